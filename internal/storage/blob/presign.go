package blob

import (
	"context"
	"net/http"
	"time"
)

// Presigner hands out URLs that let a client without credentials GET or
// PUT one blob directly until they expire: S3 signs a request to the bucket
// (the bytes never pass through Loupe); on local disk the Signer's links
// point at Loupe's own /blobs/ handler, which streams to the store.
type Presigner interface {
	// Presign answers a URL for method (http.MethodGet or
	// http.MethodPut) on key, valid for ttl. Other methods answer
	// ErrNotSupported; invalid keys ErrInvalidKey.
	Presign(ctx context.Context, method, key string, ttl time.Duration) (string, error)
}

// PartPresigner presigns the PUT of one part of a multipart upload (S3
// only: the way a browser uploads a large file straight to the bucket).
type PartPresigner interface {
	PresignPart(ctx context.Context, key, uploadID string, number int, ttl time.Duration) (string, error)
}

// Presign implements Presigner with the server's own signed links.
func (s *Signer) Presign(_ context.Context, method, key string, ttl time.Duration) (string, error) {
	if method != http.MethodGet && method != http.MethodPut {
		return "", ErrNotSupported
	}
	if err := ValidKey(key); err != nil {
		return "", err
	}
	return s.URL(method, key, time.Now(), ttl), nil
}

// PresignerFor is where a client should send its bytes: the store itself
// when it presigns (S3), else the server's signed links. Pass the store as
// configured, not wrapped (usage.Files meters what passes through Loupe and
// does not presign).
func PresignerFor(files Store, signer *Signer) Presigner {
	if p, ok := files.(Presigner); ok {
		return p
	}
	return signer
}
