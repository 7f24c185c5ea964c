package mediabench

import (
	"context"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// SDKUpload is the S3 reference: the AWS SDK's own uploader (the transfer
// manager, multipart, its default part size and concurrency) writing src to
// key in cfg's bucket directly. It answers how long that took.
func SDKUpload(ctx context.Context, cfg blob.S3Config, key string, src io.Reader) (time.Duration, error) {
	client := s3.New(s3.Options{
		BaseEndpoint: aws.String(cfg.Endpoint), Region: cfg.Region, UsePathStyle: cfg.PathStyle,
		Credentials:                credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	start := time.Now()
	_, err := transfermanager.New(client).UploadObject(ctx, &transfermanager.UploadObjectInput{
		Bucket: aws.String(cfg.Bucket), Key: aws.String(key), Body: src,
	})
	return time.Since(start), err
}
