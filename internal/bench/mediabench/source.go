// Package mediabench is the benchmark's media side (issue 15): the bytes an
// upload sends, the references it is measured against (plain HTTP to a file
// with fsync; the AWS SDK writing to S3 directly), a tus 1.0 client that
// uploads through Loupe, and the server's memory while it does.
package mediabench

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
)

// blockSize is the random block a Source repeats: large enough that no
// layer could dedupe or compress its way to a better number.
const blockSize = 4 << 20

// Source is size bytes of pseudo-random data made on the fly (nothing
// stored): the same seed gives the same bytes.
type Source struct {
	block []byte
	size  int64
	off   int64
}

// NewSource answers a reader of size bytes.
func NewSource(seed uint64, size int64) *Source {
	b := make([]byte, blockSize)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24)})
	r.Read(b) //nolint:errcheck // never fails
	return &Source{block: b, size: size}
}

// Read implements io.Reader.
func (s *Source) Read(p []byte) (int, error) {
	if s.off >= s.size {
		return 0, io.EOF
	}
	i := s.off % blockSize
	n := copy(p, s.block[i:])
	if rem := s.size - s.off; int64(n) > rem {
		n = int(rem)
	}
	s.off += int64(n)
	return n, nil
}

// Skip moves the reader to off (a resumed upload sends from there).
func (s *Source) Skip(off int64) { s.off = off }

// SHA256 is the hex SHA-256 of all size bytes (reads a fresh copy).
func (s *Source) SHA256() string {
	h := sha256.New()
	c := &Source{block: s.block, size: s.size}
	io.Copy(h, c) //nolint:errcheck // cannot fail
	return hex.EncodeToString(h.Sum(nil))
}
