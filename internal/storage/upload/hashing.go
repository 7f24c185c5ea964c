package upload

import (
	"encoding"
	"fmt"
	"hash"
	"io"
	"sync"
)

// Hashing runs beside the request: on a small machine the SHA-256 of the
// body costs as much as reading the socket and writing the file together,
// so doing it in the same goroutine halved an upload's speed
// (docs/performance.md). The body is copied into a few buffers that a goroutine
// hashes while the next bytes are read and stored.
const (
	hashChunk   = 1 << 20 // bytes handed to the hasher at once
	hashBuffers = 4       // at most this many in flight per request
)

// hashing reads the body, keeping its first headBytes and hashing it in
// its own goroutine. close must be called once reading is over.
type hashing struct {
	r     io.Reader
	h     hash.Hash
	pos   int64 // offset in the upload of the next byte
	n     int64 // bytes read
	head  []byte
	ended bool

	buf     []byte      // being filled, nil when none is
	full    chan []byte // to the hasher
	free    chan []byte // back from it
	pending sync.WaitGroup
	done    chan struct{}
}

func newHashing(r io.Reader, h hash.Hash, pos int64, head []byte) *hashing {
	b := &hashing{r: r, h: h, pos: pos, head: append([]byte(nil), head...),
		full: make(chan []byte, hashBuffers), free: make(chan []byte, hashBuffers), done: make(chan struct{})}
	for range hashBuffers {
		b.free <- make([]byte, 0, hashChunk)
	}
	go func() {
		defer close(b.done)
		for p := range b.full {
			b.h.Write(p)
			b.free <- p[:0]
			b.pending.Done()
		}
	}()
	return b
}

func (b *hashing) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.feed(p[:n])
		if b.pos < headBytes {
			b.head = append(b.head, p[:min(int64(n), headBytes-b.pos)]...)
		}
		b.pos += int64(n)
		b.n += int64(n)
	}
	if err != nil {
		b.ended = true
	}
	return n, err
}

// feed copies p into the buffers, handing each full one to the hasher.
func (b *hashing) feed(p []byte) {
	for len(p) > 0 {
		if b.buf == nil {
			b.buf = <-b.free
		}
		k := copy(b.buf[len(b.buf):cap(b.buf)], p)
		b.buf, p = b.buf[:len(b.buf)+k], p[k:]
		if len(b.buf) == cap(b.buf) {
			b.send()
		}
	}
}

func (b *hashing) send() {
	b.pending.Add(1)
	b.full <- b.buf
	b.buf = nil
}

// state is the hash state of every byte read so far (what a commit
// records), once the hasher has caught up.
func (b *hashing) state() ([]byte, error) {
	if len(b.buf) > 0 {
		b.send()
	}
	b.pending.Wait()
	state, err := b.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	return state, nil
}

// close stops the hasher.
func (b *hashing) close() {
	if b.buf != nil {
		b.free <- b.buf // not hashed: nothing after the last commit counts
		b.buf = nil
	}
	close(b.full)
	<-b.done
}
