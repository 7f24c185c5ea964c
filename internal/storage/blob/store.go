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

// Store keeps blobs by key: every file Loupe keeps (originals, proxies,
// thumbnails, attachments, transcripts). Keys are slash-separated paths such
// as <tenantId>/items/<itemId>/attachments/<uuid>.pdf. The interface is the
// common ground of a local directory (Disk) and an S3-compatible bucket
// (S3), so either can sit behind it; both pass the same conformance suite
// (internal/storage/blob/blobtest). Bodies are streamed both ways: no method holds a
// whole file in memory.
//
// Keys that ValidKey refuses answer ErrInvalidKey to writes and ErrNotFound
// to reads (nothing can be stored under them). Optional capabilities are
// separate interfaces: Multiparter, Presigner, PartPresigner, Checker.
type Store interface {
	// Put stores everything r yields under key, replacing what was there,
	// and returns what it stored, with the SHA-256 of the bytes computed as
	// they streamed. Readers never see a partial blob: a failed Put
	// (including one whose reader fails, such as a body over its size cap,
	// or one whose checksum differs from WithSHA256's) leaves the previous
	// blob, or none. A reader's own error is returned as is (callers look
	// for *http.MaxBytesError).
	Put(ctx context.Context, key string, r io.Reader, opts ...PutOption) (Object, error)
	// Open returns the blob's content, size and time of last change. The
	// reader is also an io.ReadSeeker on both backends (S3's issues a
	// ranged GET after a seek), so http.ServeContent answers ranges.
	// Returns ErrNotFound when there is no blob under key.
	Open(ctx context.Context, key string) (rc io.ReadCloser, size int64, modTime time.Time, err error)
	// OpenRange returns length bytes of the blob from offset (to its end
	// when length < 0, fewer when the blob ends first) and the blob's
	// description (Size is the whole blob's). An offset past the end (or
	// negative) is ErrInvalidRange; an offset equal to the size reads
	// nothing. Returns ErrNotFound when there is no blob under key.
	OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, Object, error)
	// Stat describes the blob under key without reading it (S3's HEAD), or
	// answers ErrNotFound.
	Stat(ctx context.Context, key string) (Object, error)
	// Copy makes dst a copy of src inside the store (S3: server-side, in
	// parts above 5 GiB; the bytes never pass through Loupe), replacing dst
	// atomically. Returns ErrNotFound when src is missing.
	Copy(ctx context.Context, dst, src string) (Object, error)
	// Delete removes the blob under key. Deleting a missing blob is not an
	// error (as in S3), so a retried cleanup is harmless.
	Delete(ctx context.Context, key string) error
	// List returns up to limit blobs (MaxListLimit when limit <= 0 or
	// above it) whose keys start with prefix and sort after the key after
	// ("" from the start), in byte order of their keys, and whether more
	// follow. The last key returned is the next call's after: a position
	// that survives restarts, unlike an opaque continuation token.
	List(ctx context.Context, prefix, after string, limit int) (page []Object, more bool, err error)
}

// Object describes a stored blob.
type Object struct {
	Key  string
	Size int64
	// ETag identifies this version of the blob, without quotes: S3's
	// (MD5, or MD5-<parts> for multipart uploads), Disk's from the file's
	// modification time and size. It changes when the blob is replaced.
	ETag string
	// ModTime is when the blob was last written. Put on S3 leaves it zero
	// (S3 does not answer it to a PUT); Stat tells it.
	ModTime time.Time
	// SHA256 is the hex SHA-256 of the content. Only Put sets it (it hashes
	// the bytes as they pass); the caller records it where it needs it.
	SHA256 string
}

// MaxListLimit is the largest page List returns (S3's maximum).
const MaxListLimit = 1000

// Errors of a Store.
var (
	ErrNotFound     = errors.New("blob: not found")
	ErrInvalidKey   = errors.New("blob: invalid key")
	ErrInvalidRange = errors.New("blob: range not satisfiable")
	ErrChecksum     = errors.New("blob: checksum mismatch")
	ErrInvalidPart  = errors.New("blob: invalid multipart part list")
	ErrNotSupported = errors.New("blob: not supported by this store")
	ErrNoSuchUpload = errors.New("blob: no such multipart upload")
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
