package upload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/loupe-mam/loupe/internal/blob"
)

// DefaultReadAhead is the memory a node lends uploads to read a part while
// the previous one is being stored: two 16 MiB parts for each of two
// uploads at once. Storing a part and reading the next one from the client
// then overlap instead of taking turns; to an S3 server that computes each
// part's MD5 on arrival, that was most of the gap to the SDK's own
// parallel upload. Uploads beyond it stream part by part as before.
const DefaultReadAhead int64 = 64 << 20

// readAhead lends part buffers within a budget of bytes.
type readAhead struct {
	budget *semaphore.Weighted
	pool   sync.Pool // *[]byte
}

func newReadAhead(budget int64) *readAhead {
	if budget <= 0 {
		return nil
	}
	return &readAhead{budget: semaphore.NewWeighted(budget)}
}

// get lends a buffer of n bytes, or nil when the budget is spent (or none
// was given).
func (r *readAhead) get(n int64) []byte {
	if r == nil || !r.budget.TryAcquire(n) {
		return nil
	}
	if p, _ := r.pool.Get().(*[]byte); p != nil && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

// put gives a buffer back.
func (r *readAhead) put(buf []byte) {
	r.budget.Release(int64(len(buf)))
	r.pool.Put(&buf)
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
