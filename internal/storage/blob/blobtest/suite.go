// Package blobtest is the conformance suite of blob.Store: one table of
// behaviours that every backend must show alike, so that code written
// against local disk works on S3 and back. internal/storage/blob runs it against
// Disk and against S3 on a real S3 server (internal/testkit/s3test).
package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// Backend is a store under test and what the suite needs around it.
type Backend struct {
	Store blob.Store
	// Presigner hands out direct links to Store's blobs: the store itself
	// when it presigns (S3), else a blob.Signer whose links a running
	// blob.Handler over Store answers.
	Presigner blob.Presigner
	// PartSize is the size above which the backend's Put goes multipart
	// (0 when it has no such thing). Bodies of the suite are larger, so
	// that multipart uploads and copies are exercised.
	PartSize int64
}

// behaviour is one row of the suite.
type behaviour struct {
	name string
	run  func(t *testing.T, b Backend)
}

// Run runs every behaviour on a fresh, empty store from newBackend.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	var all []behaviour
	all = append(all, objectBehaviours...)
	all = append(all, copyListBehaviours...)
	all = append(all, multipartBehaviours...)
	all = append(all, presignBehaviours...)
	for _, bh := range all {
		t.Run(bh.name, func(t *testing.T) { bh.run(t, newBackend(t)) })
	}
}

// MiB is a mebibyte.
const MiB = 1 << 20

// body is a reproducible stream of n pseudo-random bytes: the suite sends
// multi-MiB bodies without holding them, and checks what comes back by its
// SHA-256.
type body struct {
	seed byte
	n    int64
}

func (b body) reader() io.Reader {
	return io.LimitReader(rand.NewChaCha8([32]byte{b.seed}), b.n)
}

func (b body) bytes() []byte {
	p, _ := io.ReadAll(b.reader())
	return p
}

func (b body) sha256() string {
	h := sha256.New()
	io.Copy(h, b.reader()) //nolint:errcheck // cannot fail
	return hex.EncodeToString(h.Sum(nil))
}

// streamOnly hides every interface of a reader but io.Reader, as a client's
// request body looks to a store (no Seek, no WriteTo, no Len).
type streamOnly struct{ r io.Reader }

func (s streamOnly) Read(p []byte) (int, error) { return s.r.Read(p) }

var ctx = context.Background()

func put(t *testing.T, s blob.Store, key string, r io.Reader, opts ...blob.PutOption) blob.Object {
	t.Helper()
	obj, err := s.Put(ctx, key, streamOnly{r}, opts...)
	if err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	return obj
}

// sumOf reads key's blob through Open and answers its size and SHA-256.
func sumOf(t *testing.T, s blob.Store, key string) (int64, string) {
	t.Helper()
	rc, size, _, err := s.Open(ctx, key)
	if err != nil {
		t.Fatalf("Open(%s): %v", key, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	if n != size {
		t.Fatalf("Open(%s) said %d bytes, read %d", key, size, n)
	}
	return n, hex.EncodeToString(h.Sum(nil))
}

// content reads a small blob whole.
func content(t *testing.T, s blob.Store, key string) string {
	t.Helper()
	rc, _, _, err := s.Open(ctx, key)
	if err != nil {
		t.Fatalf("Open(%s): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return string(b)
}

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func equalBytes(a, b []byte) bool { return bytes.Equal(a, b) }
