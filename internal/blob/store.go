package blob

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Store keeps blobs by key. Keys are slash-separated paths such as
// <tenantId>/items/<itemId>/attachments/<uuid>.pdf; the interface is the
// common ground of a local directory and an S3-compatible bucket (whole-object
// put, streamed get, idempotent delete), so either can sit behind it.
type Store interface {
	// Put stores everything r yields under key, replacing what was there,
	// and returns the number of bytes stored. Readers never see a partial
	// blob: a failed Put (including one whose reader fails, such as a body
	// over its size cap) leaves the previous blob, or none.
	Put(ctx context.Context, key string, r io.Reader) (size int64, err error)
	// Open returns the blob's content, size and time of last change. The
	// reader may also be an io.Seeker (Disk's is). Returns ErrNotFound when
	// there is no blob under key.
	Open(ctx context.Context, key string) (rc io.ReadCloser, size int64, modTime time.Time, err error)
	// Delete removes the blob under key. Deleting a missing blob is not an
	// error (as in S3), so a retried cleanup is harmless.
	Delete(ctx context.Context, key string) error
}

// Errors of a Store.
var (
	ErrNotFound   = errors.New("blob: not found")
	ErrInvalidKey = errors.New("blob: invalid key")
)

// MaxKeyLen bounds a key (S3's limit is 1024 bytes).
const MaxKeyLen = 1024

// ValidKey reports whether key may name a blob: 1 to MaxKeyLen bytes of
// UTF-8 without control characters or backslashes, made of non-empty
// segments separated by single slashes, none of which starts with a dot (so
// "." and ".." cannot climb out of a directory, and names starting with a dot
// stay free for a store's temporary files).
func ValidKey(key string) error {
	if key == "" || len(key) > MaxKeyLen || !utf8.ValidString(key) || strings.ContainsRune(key, '\\') {
		return ErrInvalidKey
	}
	for _, r := range key {
		if unicode.IsControl(r) {
			return ErrInvalidKey
		}
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '.' {
			return ErrInvalidKey
		}
	}
	return nil
}
