package blob

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// MaxPresignTTL is the longest a SigV4 presigned URL can be valid (7 days).
// With assume-role credentials a URL also stops working when the temporary
// credentials that signed it expire (an hour by default), whatever its TTL.
const MaxPresignTTL = 7 * 24 * time.Hour

// Presign implements Presigner: a SigV4 query-signed URL to the bucket,
// computed locally (no request to S3). A presigned PUT sends the body as
// UNSIGNED-PAYLOAD, so any client can use it with a plain HTTP PUT.
func (s *S3) Presign(ctx context.Context, method, key string, ttl time.Duration) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	if ttl <= 0 || ttl > MaxPresignTTL {
		return "", fmt.Errorf("blob: a presigned URL is valid for up to %s, not %s", MaxPresignTTL, ttl)
	}
	expires := func(o *s3.PresignOptions) { o.Expires = ttl }
	switch method {
	case http.MethodGet:
		req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, expires)
		if err != nil {
			return "", s3Error("presign get", key, err)
		}
		return req.URL, nil
	case http.MethodPut:
		req, err := s.presign.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, expires)
		if err != nil {
			return "", s3Error("presign put", key, err)
		}
		return req.URL, nil
	}
	return "", ErrNotSupported
}

// PresignPart implements PartPresigner.
func (s *S3) PresignPart(ctx context.Context, key, uploadID string, number int, ttl time.Duration) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	if number < 1 || number > MaxParts {
		return "", fmt.Errorf("%w: part number %d", ErrInvalidPart, number)
	}
	if ttl <= 0 || ttl > MaxPresignTTL {
		return "", fmt.Errorf("blob: a presigned URL is valid for up to %s, not %s", MaxPresignTTL, ttl)
	}
	req, err := s.presign.PresignUploadPart(ctx, &s3.UploadPartInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), UploadId: aws.String(uploadID), PartNumber: aws.Int32(int32(number)),
	}, func(o *s3.PresignOptions) { o.Expires = ttl })
	if err != nil {
		return "", s3Error("presign part of", key, err)
	}
	return req.URL, nil
}
