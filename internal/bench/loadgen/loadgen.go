// Package loadgen is a small closed-loop HTTP load generator for `loupe
// bench`: a fixed number of workers each send one request at a time, as
// fast as the server answers, and the latencies of the measured phase go
// into a histogram. Closed loop means the offered load adapts to the
// server, so req/s is the server's throughput at that concurrency and the
// percentiles are what a client at that concurrency sees.
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Request is one request to send.
type Request struct {
	Method, URL string
	Header      http.Header
	Body        []byte
}

// Config is a load run.
type Config struct {
	// Concurrency is the number of workers, each sending one request at a time.
	Concurrency int
	// Duration is the measured phase.
	Duration time.Duration
	// Warmup runs before the measured phase and is excluded from the
	// result (connections, server caches and the Go runtime settle).
	Warmup time.Duration
	// Next builds a worker's i-th request (i counts from 0 over warm-up
	// and measured phase). It is called concurrently, but never twice at
	// once for the same worker.
	Next func(worker, i int) Request
	// Check, when set, judges a response: one that fails it counts as an
	// error. body is only valid during the call. Without Check, a status
	// of 400 or above is an error and bodies are discarded unread.
	Check func(status int, body []byte) error
}

// Result is what the measured phase saw. Latencies cover every answered
// request, errors included; requests that failed in transport count as
// errors only.
type Result struct {
	Requests, Errors int64
	// Sent counts every request sent, warm-up and cut-off ones included:
	// what the server did work for (statements per request divide by it).
	Sent          int64
	Duration      time.Duration
	RPS           float64
	P50, P90, P99 time.Duration
	Max           time.Duration
	// FirstError describes the first error of the measured phase.
	FirstError string
}

func (r Result) String() string {
	return fmt.Sprintf("%d requests in %v (%.0f req/s), %d errors, p50 %v p90 %v p99 %v max %v",
		r.Requests, r.Duration.Round(time.Millisecond), r.RPS, r.Errors, r.P50, r.P90, r.P99, r.Max)
}

// worker is one closed loop's state; each owns its histogram so that
// recording needs no lock.
type worker struct {
	hist       histogram
	sent       int64
	requests   int64
	errors     int64
	firstError string
	firstAt    time.Time
	buf        bytes.Buffer
}

// Run drives the load and answers the measured phase. A request counts
// when it starts in the measured phase and is answered before it ends; the
// ones still in flight at the end are cancelled and not counted, so the
// duration is exactly the measured phase and req/s is not inflated by
// requests finishing late. When ctx is cancelled first, Run stops at once
// and answers what it measured so far with ctx's error.
func Run(ctx context.Context, cfg Config) (Result, error) {
	switch {
	case cfg.Concurrency < 1:
		return Result{}, errors.New("loadgen: Concurrency must be at least 1")
	case cfg.Duration <= 0:
		return Result{}, errors.New("loadgen: Duration must be positive")
	case cfg.Warmup < 0:
		return Result{}, errors.New("loadgen: Warmup must not be negative")
	case cfg.Next == nil:
		return Result{}, errors.New("loadgen: Next is required")
	}
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	end := measureFrom.Add(cfg.Duration)
	// Requests in flight at the end are cut off with the run's deadline.
	runCtx, cancel := context.WithDeadline(ctx, end)
	defer cancel()

	workers := make([]*worker, cfg.Concurrency)
	var wg sync.WaitGroup
	for w := range workers {
		workers[w] = &worker{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &client{deadline: end}
			// Cancelled before the end: a pending read gives up at once.
			defer context.AfterFunc(runCtx, c.stop)()
			defer c.drop()
			workers[w].loop(runCtx, c, &cfg, w, measureFrom, end)
		}()
	}
	wg.Wait()

	stopped := time.Now()
	var (
		res   Result
		total histogram
		first time.Time
	)
	for _, w := range workers {
		total.merge(&w.hist)
		res.Requests += w.requests
		res.Sent += w.sent
		res.Errors += w.errors
		if w.firstError != "" && (first.IsZero() || w.firstAt.Before(first)) {
			first, res.FirstError = w.firstAt, w.firstError
		}
	}
	if stopped.After(end) {
		stopped = end
	}
	res.Duration = max(stopped.Sub(measureFrom), 0)
	if res.Duration > 0 {
		res.RPS = float64(res.Requests) / res.Duration.Seconds()
	}
	res.P50, res.P90, res.P99 = total.quantile(0.50), total.quantile(0.90), total.quantile(0.99)
	res.Max = time.Duration(total.max) * time.Microsecond
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

func (w *worker) loop(ctx context.Context, c *client, cfg *Config, id int, measureFrom, end time.Time) {
	for i := 0; ctx.Err() == nil; i++ {
		req := cfg.Next(id, i)
		began := time.Now()
		if !began.Before(end) {
			return
		}
		w.sent++
		status, err := w.do(c, cfg, req)
		done := time.Now()
		if began.Before(measureFrom) {
			continue // warm-up
		}
		if ctx.Err() != nil || !done.Before(end) {
			// Cut off by the end of the run or cancelled by the caller:
			// neither counted nor an error.
			return
		}
		w.requests++
		if status != 0 {
			w.hist.record(done.Sub(began))
		}
		if err != nil {
			w.errors++
			if w.firstError == "" {
				w.firstError, w.firstAt = err.Error(), done
			}
		}
	}
}

// do sends one request and reads the whole answer (so the connection can
// be reused). It answers the status (0 when there was no answer) and
// whether the request failed.
func (w *worker) do(c *client, cfg *Config, r Request) (int, error) {
	if cfg.Check == nil {
		status, err := c.do(r, nil)
		if err == nil && status >= 400 {
			err = fmt.Errorf("%s %s: status %d", r.Method, r.URL, status)
		}
		return status, err
	}
	status, err := c.do(r, &w.buf)
	if err != nil {
		return status, err
	}
	if err := cfg.Check(status, w.buf.Bytes()); err != nil {
		return status, fmt.Errorf("%s %s: status %d: %w", r.Method, r.URL, status, err)
	}
	return status, nil
}
