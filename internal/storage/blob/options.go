package blob

import (
	"encoding/hex"
	"strings"
)

// PutOption changes how Put (and CreateMultipart) stores a blob.
type PutOption func(*PutOptions)

// PutOptions are the settings PutOption functions fill in; backends read
// them with PutOptionsOf.
type PutOptions struct {
	// ContentType is stored with the blob where the backend keeps one (S3:
	// served to presigned GETs). Disk derives the type from the key's
	// extension when it serves the file, and ignores it.
	ContentType string
	// SHA256 is the hex SHA-256 the content must have; on a mismatch Put
	// stores nothing and answers ErrChecksum.
	SHA256 string
	// Size is the expected length when known (-1 when not). S3 sizes its
	// parts from it, so that very large bodies stay within 10,000 parts.
	Size int64
	// PartSize, for CreateMultipart, promises that every part but the last
	// has exactly this size (0: parts of any size). See WithPartSize.
	PartSize int64
}

// WithContentType stores the blob's media type where the backend can.
func WithContentType(ct string) PutOption {
	return func(o *PutOptions) { o.ContentType = ct }
}

// WithSHA256 makes Put verify the content against a known checksum (hex):
// an upload whose client announced it, or a copy being verified.
func WithSHA256(sum string) PutOption {
	return func(o *PutOptions) { o.SHA256 = strings.ToLower(sum) }
}

// WithSize tells Put how long the body will be.
func WithSize(n int64) PutOption {
	return func(o *PutOptions) { o.Size = n }
}

// WithPartSize tells CreateMultipart that parts 1, 2, … will each be n
// bytes but the last, which is at most n: what a resumable upload that
// cuts a stream into parts knows. Disk then writes each part in place in
// one file and completing renames it — no copy of the whole file at the
// end — and in exchange refuses a part larger than n, and a completion
// whose parts do not run from 1 without a gap or whose parts but the last
// are not n bytes (ErrInvalidPart). S3 ignores it.
func WithPartSize(n int64) PutOption {
	return func(o *PutOptions) { o.PartSize = n }
}

// PutOptionsOf applies opts to the defaults.
func PutOptionsOf(opts []PutOption) PutOptions {
	o := PutOptions{Size: -1}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// validSHA256 reports whether s is empty or 64 hex digits.
func validSHA256(s string) bool {
	if s == "" {
		return true
	}
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32
}
