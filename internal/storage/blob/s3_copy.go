package blob

import (
	"context"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Copy implements Store server-side: one CopyObject up to the copy part
// size, else a multipart upload whose parts are UploadPartCopy ranges of
// the source (CopyObject stops at 5 GiB). Either way the source version
// is pinned by its ETag, so a source replaced meanwhile fails the copy.
func (s *S3) Copy(ctx context.Context, dst, src string) (Object, error) {
	if err := ValidKey(dst); err != nil {
		return Object{}, err
	}
	from, err := s.Stat(ctx, src)
	if err != nil {
		return Object{}, err
	}
	if src == dst {
		return from, nil // S3 refuses a copy onto itself that changes nothing
	}
	if from.Size > s.copyPartSize {
		return s.copyInParts(ctx, dst, from)
	}
	out, err := s.client.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket:            aws.String(s.bucket),
		Key:               aws.String(dst),
		CopySource:        aws.String(s.copySource(src)),
		CopySourceIfMatch: aws.String(`"` + from.ETag + `"`),
	})
	if err != nil {
		return Object{}, s3Error("copy to "+dst+" from", src, err)
	}
	obj := Object{Key: dst, Size: from.Size, ETag: from.ETag}
	if r := out.CopyObjectResult; r != nil {
		obj.ETag, obj.ModTime = unquote(r.ETag), aws.ToTime(r.LastModified)
	}
	return obj, nil
}

// copySource is CopySource's "bucket/key", URL-encoded as S3 requires.
func (s *S3) copySource(key string) string {
	return url.PathEscape(s.bucket) + "/" + escapeKey(key)
}

func (s *S3) copyInParts(ctx context.Context, dst string, from Object) (Object, error) {
	head, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(from.Key)})
	if err != nil {
		return Object{}, s3Error("head", from.Key, err)
	}
	// CopyObject carries the source's type and metadata over; a multipart
	// copy starts empty, so they are set on its creation.
	create, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket:      aws.String(s.bucket),
		Key:         aws.String(dst),
		ContentType: head.ContentType,
		Metadata:    head.Metadata,
	})
	if err != nil {
		return Object{}, s3Error("copy to "+dst+" from", from.Key, err)
	}
	id := aws.ToString(create.UploadId)
	n := int((from.Size + s.copyPartSize - 1) / s.copyPartSize)
	parts := make([]types.CompletedPart, n)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for range s.concurrency {
		wg.Go(func() {
			for i := range next {
				first := int64(i) * s.copyPartSize
				last := min(first+s.copyPartSize, from.Size) - 1
				out, err := s.client.UploadPartCopy(ctx, &s3.UploadPartCopyInput{
					Bucket:            aws.String(s.bucket),
					Key:               aws.String(dst),
					UploadId:          aws.String(id),
					PartNumber:        aws.Int32(int32(i + 1)),
					CopySource:        aws.String(s.copySource(from.Key)),
					CopySourceRange:   aws.String("bytes=" + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10)),
					CopySourceIfMatch: aws.String(`"` + from.ETag + `"`),
				})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil && out.CopyPartResult != nil {
					parts[i] = types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.CopyPartResult.ETag}
				}
				mu.Unlock()
			}
		})
	}
	for i := 0; i < n; i++ {
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr == nil {
		var done *s3.CompleteMultipartUploadOutput
		done, firstErr = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket:          aws.String(s.bucket),
			Key:             aws.String(dst),
			UploadId:        aws.String(id),
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		})
		if firstErr == nil {
			return Object{Key: dst, Size: from.Size, ETag: unquote(done.ETag)}, nil
		}
	}
	s.abort(ctx, dst, id)
	return Object{}, s3Error("copy to "+dst+" from", from.Key, firstErr)
}

// abort drops a multipart upload that failed, even when ctx is done (the
// parts would otherwise stay and cost storage).
func (s *S3) abort(ctx context.Context, key, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{ //nolint:errcheck // best effort: already failing
		Bucket: aws.String(s.bucket), Key: aws.String(key), UploadId: aws.String(id),
	})
}

// abortTimeout bounds the cleanup of a failed multipart copy.
const abortTimeout = 30 * time.Second
