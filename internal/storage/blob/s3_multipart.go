package blob

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// CreateMultipart implements Multiparter.
func (s *S3) CreateMultipart(ctx context.Context, key string, opts ...PutOption) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	o := PutOptionsOf(opts)
	in := &s3.CreateMultipartUploadInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}
	if o.ContentType != "" {
		in.ContentType = aws.String(o.ContentType)
	}
	out, err := s.client.CreateMultipartUpload(ctx, in)
	if err != nil {
		return "", s3Error("create multipart upload", key, err)
	}
	return aws.ToString(out.UploadId), nil
}

// UploadPart implements Multiparter. A body that cannot seek (a client's
// request, streamed through) is sent as UNSIGNED-PAYLOAD: signing its
// SHA-256 would mean reading it twice, that is holding it whole.
func (s *S3) UploadPart(ctx context.Context, key, uploadID string, number int, r io.Reader, size int64) (Part, error) {
	if err := ValidKey(key); err != nil {
		return Part{}, ErrNoSuchUpload
	}
	if number < 1 || number > MaxParts {
		return Part{}, fmt.Errorf("%w: part number %d", ErrInvalidPart, number)
	}
	if size < 0 || size > MaxPartSize {
		return Part{}, fmt.Errorf("%w: part size %d", ErrInvalidPart, size)
	}
	var (
		body   io.Reader = r
		stream *errRecorder
		optFns []func(*s3.Options)
	)
	if _, ok := r.(io.ReadSeeker); !ok {
		stream = &errRecorder{r: ctxReader{ctx, r}}
		body = stream
		optFns = append(optFns, s3.WithAPIOptions(v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware))
	}
	out, err := s.client.UploadPart(ctx, &s3.UploadPartInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		UploadId:      aws.String(uploadID),
		PartNumber:    aws.Int32(int32(number)),
		Body:          body,
		ContentLength: aws.Int64(size),
	}, optFns...)
	if err != nil {
		if stream != nil && stream.err != nil {
			return Part{}, stream.err // the body's own failure, as Put answers it
		}
		return Part{}, s3Error("upload part of", key, err)
	}
	return Part{Number: number, ETag: aws.ToString(out.ETag), Size: size}, nil
}

// errRecorder remembers its body's failure, which the SDK wraps.
type errRecorder struct {
	r   io.Reader
	err error
}

func (c *errRecorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
	}
	return n, err
}

// CompleteMultipart implements Multiparter.
func (s *S3) CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) (Object, error) {
	if err := ValidKey(key); err != nil {
		return Object{}, ErrNoSuchUpload
	}
	if len(parts) == 0 {
		return Object{}, fmt.Errorf("%w: no parts", ErrInvalidPart)
	}
	done := make([]types.CompletedPart, len(parts))
	var size int64
	for i, p := range parts {
		if i > 0 && p.Number <= parts[i-1].Number {
			return Object{}, fmt.Errorf("%w: part %d after part %d", ErrInvalidPart, p.Number, parts[i-1].Number)
		}
		done[i] = types.CompletedPart{PartNumber: aws.Int32(int32(p.Number)), ETag: aws.String(p.ETag)}
		size += p.Size
	}
	out, err := s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket:          aws.String(s.bucket),
		Key:             aws.String(key),
		UploadId:        aws.String(uploadID),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: done},
	})
	if err != nil {
		return Object{}, s3Error("complete multipart upload of", key, err)
	}
	return Object{Key: key, Size: size, ETag: unquote(out.ETag)}, nil
}

// AbortMultipart implements Multiparter.
func (s *S3) AbortMultipart(ctx context.Context, key, uploadID string) error {
	if ValidKey(key) != nil {
		return nil
	}
	_, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), UploadId: aws.String(uploadID),
	})
	if err != nil {
		err = s3Error("abort multipart upload of", key, err)
		if errors.Is(err, ErrNoSuchUpload) || errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	}
	return nil
}
