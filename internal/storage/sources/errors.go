package sources

import (
	"errors"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// BucketError is err as a client may read it: prefix, then err with the
// secret masked; S3's error code, when it gave one, as payload key.
func BucketError(prefix string, err error, secret string) *loupe.Error {
	out := &loupe.Error{Kind: loupe.EINVALID, Message: prefix + MaskSecret(err.Error(), secret)}
	if code := S3ErrorCode(err); code != "" {
		out.Payload = map[string]any{"key": code}
	}
	return out
}

// MaskSecret is msg with secret blanked out (an SDK error may quote a
// request).
func MaskSecret(msg, secret string) string {
	if secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, secret, "[secret]")
}

// S3ErrorCode is the S3 error code err carries ("" when none).
func S3ErrorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// IsAccessError reports a failure that retrying will not mend: the bucket
// missing, access refused, the credentials refused, or no STS to assume a
// role with.
func IsAccessError(err error) bool {
	var ae interface{ ErrorCode() string }
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "AccessDenied", "NoSuchBucket", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AllAccessDisabled":
			return true
		}
	}
	if errors.Is(err, blob.ErrNotFound) {
		return true
	}
	msg := err.Error()
	for _, sts := range []string{"AssumeRole", "sts.", "STS"} {
		if strings.Contains(msg, sts) {
			return true
		}
	}
	return false
}
