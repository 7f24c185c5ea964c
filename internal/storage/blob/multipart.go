package blob

import (
	"context"
	"io"
)

// Multiparter assembles a large blob from parts uploaded separately, in any
// order and each retried as often as needed: the base of resumable uploads.
// Both backends implement it with S3's semantics, so code written against
// one works on the other:
//   - part numbers run from 1 to MaxParts; uploading a number again
//     replaces that part;
//   - every part but the last must be at least MinPartSize bytes;
//   - CompleteMultipart names the parts in ascending order, each with the
//     ETag its UploadPart answered; the blob appears under the key
//     atomically, as with Put, and the upload is gone;
//   - an upload not completed or aborted keeps its parts (S3: until a
//     lifecycle rule removes them; Disk: under <root>/.uploads).
//
// The caller keeps the list of uploaded parts (Loupe keeps it in Postgres):
// an S3 server's ListParts is not reliable enough to resume from. Unknown
// upload ids answer ErrNoSuchUpload (CompleteMultipart: or ErrInvalidPart,
// as S3 servers differ there).
type Multiparter interface {
	// CreateMultipart starts an upload to key and answers its id.
	CreateMultipart(ctx context.Context, key string, opts ...PutOption) (uploadID string, err error)
	// UploadPart stores part number of the upload: exactly size bytes of r.
	UploadPart(ctx context.Context, key, uploadID string, number int, r io.Reader, size int64) (Part, error)
	// CompleteMultipart joins the parts into the blob under key. A list
	// out of order, with unknown parts, wrong ETags, or a part but the last
	// under MinPartSize answers ErrInvalidPart and leaves the upload open.
	CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) (Object, error)
	// AbortMultipart drops the upload and its parts. Aborting an upload
	// that is already gone is not an error.
	AbortMultipart(ctx context.Context, key, uploadID string) error
}

// Part is one uploaded part of a multipart upload.
type Part struct {
	Number int
	ETag   string
	Size   int64
}

// Limits of a multipart upload (S3's).
const (
	MinPartSize int64 = 5 << 20
	MaxPartSize int64 = 5 << 30
	MaxParts          = 10000
)
