package blob

import (
	"errors"
	"fmt"

	"github.com/aws/smithy-go"
)

// s3Error maps an S3 answer onto the store's errors and wraps the rest with
// the operation and key. The SDK's messages carry the operation, status,
// request id and S3's error code and message — never credentials or
// signatures.
func s3Error(op, key string, err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return ErrNotFound
		case "NoSuchUpload":
			return ErrNoSuchUpload
		case "InvalidRange":
			return ErrInvalidRange
		case "InvalidPart", "InvalidPartOrder", "EntityTooSmall":
			return fmt.Errorf("%w: %s", ErrInvalidPart, ae.ErrorMessage())
		}
	}
	return fmt.Errorf("blob: s3 %s %s: %w", op, key, err)
}
