package upload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"syscall"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// DefaultReadAhead is the memory a node lends uploads to read a part while
// the previous one is being stored: two 16 MiB parts for each of two
// uploads at once. Storing a part and reading the next one from the client
// then overlap instead of taking turns; to an S3 server that computes each
// part's MD5 on arrival, that was most of the gap to the SDK's own
// parallel upload. Uploads beyond it stream part by part as before.
const DefaultReadAhead int64 = 64 << 20

// readAhead lends part buffers within a budget of bytes. The buffers are
// mapped memory outside Go's heap, kept for the next part once given back:
// on the heap, long-lived and large, they would raise the collector's goal
// (it lets the heap grow to twice what is live) by their own size again.
type readAhead struct {
	mu     sync.Mutex
	budget int64
	held   int64    // bytes of the buffers made and not dropped
	free   [][]byte // given back
}

func newReadAhead(budget int64) *readAhead {
	if budget <= 0 {
		return nil
	}
	return &readAhead{budget: budget}
}

// get lends a buffer of n bytes, or nil when the budget is spent (or none
// was given).
func (r *readAhead) get(n int64) []byte {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, b := range r.free {
		if int64(cap(b)) >= n {
			r.free = append(r.free[:i], r.free[i+1:]...)
			return b[:n]
		}
	}
	// Kept buffers too small for this part's size go, to make room.
	for len(r.free) > 0 && r.held+n > r.budget {
		r.held -= int64(cap(r.free[0]))
		release(r.free[0])
		r.free = r.free[1:]
	}
	if r.held+n > r.budget {
		return nil
	}
	r.held += n
	return allocate(n)
}

// allocate maps n bytes of anonymous memory (the heap's when mapping fails).
func allocate(n int64) []byte {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return b
}

// release unmaps a buffer of allocate's (a heap one is left to the
// collector).
func release(b []byte) {
	_ = syscall.Munmap(b[:cap(b)]) // EINVAL for a heap buffer: nothing to do
}

// put gives a buffer back.
func (r *readAhead) put(buf []byte) {
	r.mu.Lock()
	r.free = append(r.free, buf)
	r.mu.Unlock()
}

// partAhead is a part read into memory whose UploadPart, and then its
// recording, run in their own goroutine.
type partAhead struct {
	buf  []byte
	done chan struct{}
	err  error
}

// storeAhead stores buf as part number and hands the stored part to
// record.
func (s *Service) storeAhead(ctx context.Context, key, multipartID string, number int, buf []byte, record func(blob.Part) error) *partAhead {
	a := &partAhead{buf: buf, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		// Not seekable on purpose: S3 then sends it UNSIGNED-PAYLOAD, as a
		// streamed part, instead of hashing it once more to sign it.
		p, err := s.Files.UploadPart(ctx, key, multipartID, number, struct{ io.Reader }{bytes.NewReader(buf)}, int64(len(buf)))
		if err != nil {
			a.err = fmt.Errorf("upload: unable to store part %d: %w", number, err)
			return
		}
		a.err = record(p)
	}()
	return a
}

// wait answers how the part's storing and recording went, and gives the
// buffer back.
func (a *partAhead) wait(r *readAhead) error {
	<-a.done
	r.put(a.buf)
	return a.err
}
