package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
)

// hashingReader passes a body through, counting and hashing it as it goes,
// and stops once its context is done (client gone, server shutting down).
// When want is set it turns the final io.EOF into ErrChecksum on a
// mismatch: the store sees a failing reader before it commits anything
// (Disk before its rename; S3's uploader before PutObject or
// CompleteMultipartUpload, which it then aborts), so a wrong body is never
// stored.
type hashingReader struct {
	ctx  context.Context
	r    io.Reader
	h    hash.Hash
	n    int64
	want string
	// err is the first failure Read returned (not io.EOF): the body's own,
	// the context's, or ErrChecksum. Stores return it as is, however the
	// layers between wrapped it.
	err error
}

func newHashingReader(ctx context.Context, r io.Reader, want string) *hashingReader {
	return &hashingReader{ctx: ctx, r: r, h: sha256.New(), want: want}
}

func (hr *hashingReader) Read(p []byte) (int, error) {
	if hr.err != nil {
		return 0, hr.err
	}
	if err := hr.ctx.Err(); err != nil {
		hr.err = err
		return 0, err
	}
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	hr.n += int64(n)
	if err == io.EOF && hr.want != "" && hr.sum() != hr.want {
		err = fmt.Errorf("%w: the content's SHA-256 is %s, not %s", ErrChecksum, hr.sum(), hr.want)
	}
	if err != nil && err != io.EOF {
		hr.err = err
	}
	return n, err
}

// sum is the hex SHA-256 of what was read so far.
func (hr *hashingReader) sum() string { return hex.EncodeToString(hr.h.Sum(nil)) }

// SHA256Of reads the blob under key and answers its hex SHA-256: to verify
// a copy, or to record the checksum of a blob that arrived some other way
// than Put (multipart, a presigned PUT, ingest).
func SHA256Of(ctx context.Context, s Store, key string) (string, error) {
	rc, _, _, err := s.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, rc}); err != nil {
		return "", fmt.Errorf("blob: unable to read %s: %w", key, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
