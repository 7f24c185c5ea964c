package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Put implements Store through the SDK's transfer manager: one PutObject
// for a body up to the part size, a multipart upload of part-size parts
// (a few in flight) above it, aborted when anything fails — including the
// body's reader, or the checksum the body must have.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, opts ...PutOption) (Object, error) {
	o := PutOptionsOf(opts)
	if !validSHA256(o.SHA256) {
		return Object{}, fmt.Errorf("blob: %q is no SHA-256", o.SHA256)
	}
	if err := ValidKey(key); err != nil {
		return Object{}, err
	}
	hr := newHashingReader(ctx, r, o.SHA256)
	in := &transfermanager.UploadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), Body: hr}
	if o.ContentType != "" {
		in.ContentType = aws.String(o.ContentType)
	}
	out, err := s.uploader.UploadObject(ctx, in, func(t *transfermanager.Options) {
		// Keep within S3's 10,000 parts (with a margin) when the size is
		// known; an unknown size can reach PartSize × 10,000.
		if min := o.Size/(MaxParts-500) + 1; min > t.PartSizeBytes {
			t.PartSizeBytes = min
			t.MultipartUploadThreshold = min
		}
	})
	if err != nil {
		// The body's own error as is (callers look for
		// *http.MaxBytesError), whichever layer wrapped it.
		if rerr := hr.err; rerr != nil {
			return Object{Size: hr.n}, rerr
		}
		return Object{Size: hr.n}, s3Error("put", key, err)
	}
	return Object{Key: key, Size: hr.n, ETag: unquote(out.ETag), SHA256: hr.sum()}, nil
}

// Open implements Store: the reader is an io.ReadSeeker whose reads after
// a seek issue a ranged GET of the same version (If-Match its ETag).
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, int64, time.Time, error) {
	if ValidKey(key) != nil {
		return nil, 0, time.Time{}, ErrNotFound
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, 0, time.Time{}, s3Error("get", key, err)
	}
	obj := Object{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(out.ETag), ModTime: aws.ToTime(out.LastModified)}
	return &s3Reader{ctx: ctx, s: s, obj: obj, body: out.Body}, obj.Size, obj.ModTime, nil
}

// OpenRange implements Store with one ranged GET.
func (s *S3) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, Object, error) {
	if ValidKey(key) != nil {
		return nil, Object{}, ErrNotFound
	}
	if offset < 0 {
		return nil, Object{}, fmt.Errorf("%w: offset %d", ErrInvalidRange, offset)
	}
	if length == 0 {
		return s.emptyAt(ctx, key, offset)
	}
	rng := "bytes=" + strconv.FormatInt(offset, 10) + "-"
	if length > 0 {
		rng += strconv.FormatInt(offset+length-1, 10)
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), Range: aws.String(rng)})
	if err != nil {
		err = s3Error("get", key, err)
		if errors.Is(err, ErrInvalidRange) {
			// S3 refuses a range starting at the end; the store reads
			// nothing there.
			return s.emptyAt(ctx, key, offset)
		}
		return nil, Object{}, err
	}
	obj := Object{Key: key, ETag: unquote(out.ETag), ModTime: aws.ToTime(out.LastModified)}
	total, ranged := contentRangeTotal(aws.ToString(out.ContentRange))
	if !ranged {
		// The whole object came back (some servers answer a range of
		// an empty object so): skip to the offset.
		obj.Size = aws.ToInt64(out.ContentLength)
		if offset > obj.Size {
			out.Body.Close() //nolint:errcheck // refused
			return nil, Object{}, fmt.Errorf("%w: offset %d of %d bytes", ErrInvalidRange, offset, obj.Size)
		}
		if _, err := io.CopyN(io.Discard, out.Body, offset); err != nil {
			out.Body.Close() //nolint:errcheck // failing
			return nil, Object{}, s3Error("get", key, err)
		}
	} else {
		obj.Size = total
	}
	if length < 0 || length > obj.Size-offset {
		length = obj.Size - offset
	}
	return &limitedReadCloser{io.LimitReader(out.Body, length), out.Body}, obj, nil
}

// emptyAt answers the empty read at offset of key's blob: nothing when the
// offset is the blob's size or before it, ErrInvalidRange past it.
func (s *S3) emptyAt(ctx context.Context, key string, offset int64) (io.ReadCloser, Object, error) {
	obj, err := s.Stat(ctx, key)
	if err != nil {
		return nil, Object{}, err
	}
	if offset > obj.Size {
		return nil, Object{}, fmt.Errorf("%w: offset %d of %d bytes", ErrInvalidRange, offset, obj.Size)
	}
	return io.NopCloser(strings.NewReader("")), obj, nil
}

// contentRangeTotal is the complete length of a Content-Range "bytes
// a-b/total".
func contentRangeTotal(cr string) (int64, bool) {
	_, total, ok := strings.Cut(cr, "/")
	if !ok || !strings.HasPrefix(cr, "bytes ") {
		return 0, false
	}
	n, err := strconv.ParseInt(total, 10, 64)
	return n, err == nil
}

type limitedReadCloser struct {
	io.Reader
	io.Closer
}

// Stat implements Store with a HEAD.
func (s *S3) Stat(ctx context.Context, key string) (Object, error) {
	if ValidKey(key) != nil {
		return Object{}, ErrNotFound
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return Object{}, s3Error("head", key, err)
	}
	return Object{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(out.ETag), ModTime: aws.ToTime(out.LastModified)}, nil
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		err = s3Error("delete", key, err)
		if errors.Is(err, ErrNotFound) {
			return nil // some servers answer 404 where S3 answers 204
		}
		return err
	}
	return nil
}
