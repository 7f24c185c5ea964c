package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
)

// Pool keeps helpers running that speak JSON lines: a helper says
// {"ready": true} once it can work, then answers each request line with one
// line. Up to size run, started on first use, each answering one request at
// a time; a helper whose request was cancelled, or that broke, is stopped
// and another started for the next request. When one cannot start, the
// pool answers why for a minute without trying again (what it lacks may be
// installed since).
type Pool struct {
	cmd   func() (Cmd, error)
	slots chan struct{} // one per helper running or being started
	idle  chan *helper

	mu     sync.Mutex
	failed time.Time // when a helper last could not start
	why    error
}

// Helpers' start-up.
const (
	// readyTimeout bounds a helper's start-up (Python importing OpenCV
	// from a cold disk takes seconds).
	readyTimeout = 30 * time.Second
	// retryAfter is how long a helper that could not start is not tried
	// again.
	retryAfter = time.Minute
)

// NewPool keeps up to size helpers, each started as cmd says. An error of
// cmd's (what the helper lacks: its interpreter, a module) is the pool's
// answer for a minute, as any helper's failure to start.
func NewPool(size int, cmd func() (Cmd, error)) *Pool {
	return &Pool{cmd: cmd, slots: make(chan struct{}, size), idle: make(chan *helper, size)}
}

// helper is one of a pool's kept programs.
type helper struct {
	*Kept
	tail    *Tail
	drained chan struct{} // its stderr is read to the end
}

// Do sends req as a line to a helper and decodes the line it answers into
// answer.
func (p *Pool) Do(ctx context.Context, req, answer any) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	h, err := p.take(ctx)
	if err != nil {
		return err
	}
	var got []byte
	done := make(chan error, 1)
	go func() {
		_, err := h.In.Write(append(line, '\n'))
		if err == nil {
			got, err = h.Out.ReadBytes('\n')
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		h.Stop() // the request cannot be taken back
		<-done
		p.drop()
		return ctx.Err()
	}
	if err != nil {
		err = h.end(err)
		p.drop()
		return err
	}
	if err := json.Unmarshal(got, answer); err != nil {
		h.Stop()
		p.drop()
		return fmt.Errorf("%s: unreadable answer: %w", h.name, err)
	}
	p.idle <- h
	return nil
}

// take answers an idle helper, or starts one while fewer than the slots
// run, or waits.
func (p *Pool) take(ctx context.Context) (*helper, error) {
	select {
	case h := <-p.idle:
		return h, nil
	default:
	}
	select {
	case h := <-p.idle:
		return h, nil
	case p.slots <- struct{}{}:
		h, err := p.start(ctx)
		if err != nil {
			p.drop()
			return nil, err
		}
		return h, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// drop gives up a helper's slot.
func (p *Pool) drop() { <-p.slots }

// start starts a helper and waits for its ready line.
func (p *Pool) start(ctx context.Context) (*helper, error) {
	p.mu.Lock()
	if time.Since(p.failed) < retryAfter {
		defer p.mu.Unlock()
		return nil, p.why
	}
	p.mu.Unlock()
	h, err := p.launch(ctx)
	if err != nil && ctx.Err() == nil {
		p.mu.Lock()
		p.failed, p.why = time.Now(), err
		p.mu.Unlock()
	}
	return h, err
}

func (p *Pool) launch(ctx context.Context) (*helper, error) {
	c, err := p.cmd()
	if err != nil {
		return nil, err
	}
	k, err := StartKept(c)
	if err != nil {
		return nil, err
	}
	h := &helper{Kept: k, tail: NewTail(tailBytes), drained: make(chan struct{})}
	// What it says on stderr (Pillow warns of odd EXIF, once a photo) is
	// read as it comes, its end kept for the errors: a full pipe would
	// stop it mid-request.
	go func() {
		io.Copy(h.tail, h.Err) //nolint:errcheck // ends when the helper does
		close(h.drained)
	}()
	ready := make(chan error, 1)
	go func() {
		l, err := h.Out.ReadBytes('\n')
		if err == nil {
			var r struct{ Ready bool }
			if json.Unmarshal(l, &r) != nil || !r.Ready {
				err = fmt.Errorf("said %q, not that it is ready", l)
			}
		}
		ready <- err
	}()
	timeout := time.NewTimer(readyTimeout)
	defer timeout.Stop()
	select {
	case err = <-ready:
	case <-timeout.C:
		err = fmt.Errorf("not ready in %v", readyTimeout)
	case <-ctx.Done():
		h.Stop()
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, h.end(err)
	}
	return h, nil
}

// end ends a helper that broke (err: how it was found to) and answers why:
// how it ended, with what it said last. With its stdin closed it has
// waitDelay to end before it is killed.
func (h *helper) end(err error) error {
	h.In.Close() //nolint:errcheck // it may be gone
	grace := time.NewTimer(waitDelay)
	defer grace.Stop()
	select {
	case <-h.drained:
		// A helper that went away (its output ended, its input is
		// broken): how it ended says why.
		if werr := h.wait(); werr != nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE)) {
			err = werr
		}
	case <-grace.C:
		h.Stop()
	}
	<-h.drained
	if errors.Is(err, io.EOF) {
		err = errors.New("ended without an answer")
	}
	return newError(h.name, h.tail, err)
}
