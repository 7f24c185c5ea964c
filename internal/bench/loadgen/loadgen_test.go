package loadgen_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/loadgen"
)

// server answers after a delay and tracks how many requests it sees and
// how many it works on at once.
type server struct {
	delay    func(n int64) time.Duration // by request number, from 1
	status   func(n int64) int
	seen     atomic.Int64
	inFlight atomic.Int64
	mu       sync.Mutex
	peak     int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.seen.Add(1)
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.mu.Lock()
	s.peak = max(s.peak, cur)
	s.mu.Unlock()
	if s.delay != nil {
		time.Sleep(s.delay(n))
	}
	status := http.StatusOK
	if s.status != nil {
		status = s.status(n)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, "answer %d", n)
}

func (s *server) peakSeen() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

func start(t *testing.T, s *server) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(url string) func(int, int) loadgen.Request {
	return func(int, int) loadgen.Request { return loadgen.Request{Method: "GET", URL: url} }
}

func TestRun(t *testing.T) {
	const delay = 10 * time.Millisecond
	for _, tc := range []struct {
		name        string
		concurrency int
		status      func(n int64) int
		check       func(int, []byte) error
		wantErrors  bool
	}{
		{name: "one worker", concurrency: 1},
		{name: "eight workers", concurrency: 8},
		{name: "server errors", concurrency: 4, wantErrors: true,
			status: func(n int64) int {
				if n%3 == 0 {
					return http.StatusInternalServerError
				}
				return http.StatusOK
			}},
		{name: "check fails some", concurrency: 4, wantErrors: true,
			check: func(status int, body []byte) error {
				if !strings.HasPrefix(string(body), "answer ") {
					return fmt.Errorf("unexpected body %q", body)
				}
				if body[len(body)-1] == '7' {
					return errors.New("ends in 7")
				}
				return nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &server{delay: func(int64) time.Duration { return delay }, status: tc.status}
			url := start(t, s)
			res, err := loadgen.Run(context.Background(), loadgen.Config{
				Concurrency: tc.concurrency, Duration: 500 * time.Millisecond, Warmup: 100 * time.Millisecond,
				Next: get(url), Check: tc.check,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res)
			if res.Duration != 500*time.Millisecond {
				t.Errorf("Duration = %v, want the measured phase 500ms", res.Duration)
			}
			// Closed loop: each worker does at most one request per delay.
			most := int64(tc.concurrency) * int64(500*time.Millisecond/delay)
			if res.Requests < most/4 || res.Requests > most {
				t.Errorf("Requests = %d, want between %d and %d", res.Requests, most/4, most)
			}
			// Sent is every request sent: warm-up and cut-off ones too
			// (what statements per request divide by). Those in flight at
			// the deadline (at most one per worker) may not have reached
			// the server.
			if seen := s.seen.Load(); res.Sent < seen || res.Sent > seen+int64(tc.concurrency) || res.Sent <= res.Requests {
				t.Errorf("Sent = %d, server saw %d, measured %d", res.Sent, seen, res.Requests)
			}
			if res.P50 < delay || res.P50 > delay+15*time.Millisecond {
				t.Errorf("P50 = %v, want about %v", res.P50, delay)
			}
			if res.P50 > res.P90 || res.P90 > res.P99 || res.P99 > res.Max {
				t.Errorf("percentiles out of order: %v", res)
			}
			if got := res.RPS; got < float64(res.Requests)/0.51 || got > float64(res.Requests)/0.49 {
				t.Errorf("RPS = %v for %d requests in 500ms", got, res.Requests)
			}
			if tc.wantErrors {
				if res.Errors == 0 || res.Errors > res.Requests/2 || res.FirstError == "" {
					t.Errorf("Errors = %d of %d (first %q), want some but not most", res.Errors, res.Requests, res.FirstError)
				}
			} else if res.Errors != 0 {
				t.Errorf("Errors = %d (first %q), want 0", res.Errors, res.FirstError)
			}
			if peak := s.peakSeen(); peak != int64(tc.concurrency) {
				t.Errorf("server saw %d requests at once, want the concurrency %d", peak, tc.concurrency)
			}
		})
	}
}

// The warm-up's slow answers stay out of the result, though the server saw
// them. The slow answers are far slower than a loaded machine's scheduling
// delays (which a measured answer may suffer), so Max tells them apart.
func TestWarmupExcluded(t *testing.T) {
	t.Parallel()
	const slow = 500 * time.Millisecond
	began := time.Now()
	s := &server{delay: func(int64) time.Duration {
		if time.Since(began) < 200*time.Millisecond {
			return slow
		}
		return 2 * time.Millisecond
	}}
	url := start(t, s)
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Concurrency: 4, Warmup: time.Second, Duration: 300 * time.Millisecond, Next: get(url),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if res.Max >= slow {
		t.Errorf("Max = %v: a warm-up request was counted", res.Max)
	}
	if seen := s.seen.Load(); seen <= res.Requests {
		t.Errorf("server saw %d requests, result counts %d: warm-up not excluded", seen, res.Requests)
	}
}

// Next sees each worker's own count, and a request's method, header and body arrive.
func TestNextAndRequestShape(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		fmt.Fprint(&b, r.Method, " ", r.URL.Path, " ", r.Header.Get("X-Test"), " ")
		buf := make([]byte, 64)
		n, _ := r.Body.Read(buf)
		b.Write(buf[:n])
		mu.Lock()
		got[b.String()] = true
		mu.Unlock()
	}))
	defer srv.Close()
	var calls [2]atomic.Int64
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Concurrency: 2, Duration: 100 * time.Millisecond,
		Next: func(w, i int) loadgen.Request {
			if int64(i) != calls[w].Add(1)-1 {
				t.Errorf("worker %d: i = %d out of sequence", w, i)
			}
			return loadgen.Request{Method: "POST", URL: fmt.Sprintf("%s/w%d", srv.URL, w),
				Header: http.Header{"X-Test": {"yes"}}, Body: []byte("payload")}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != 0 {
		t.Fatalf("result %v", res)
	}
	// The request cut off at the end may still be in the handler.
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"POST /w0 yes payload", "POST /w1 yes payload"} {
		if !got[want] {
			t.Errorf("server never saw %q; saw %v", want, got)
		}
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	t.Parallel()
	url := start(t, &server{delay: func(int64) time.Duration { return 5 * time.Millisecond }})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	res, err := loadgen.Run(ctx, loadgen.Config{Concurrency: 4, Duration: time.Minute, Next: get(url)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("Run took %v after cancel", took)
	}
	if res.Requests == 0 || res.Errors != 0 || res.Duration > time.Second {
		t.Errorf("partial result %v", res)
	}
}

func TestConnectionErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	res, err := loadgen.Run(context.Background(), loadgen.Config{Concurrency: 2, Duration: 100 * time.Millisecond, Next: get(url)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors == 0 || res.Errors != res.Requests || res.FirstError == "" {
		t.Errorf("result %v (first %q), want every request an error", res, res.FirstError)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []loadgen.Config{
		{Duration: time.Second, Next: get("http://x")},
		{Concurrency: 1, Next: get("http://x")},
		{Concurrency: 1, Duration: time.Second},
		{Concurrency: 1, Duration: time.Second, Warmup: -1, Next: get("http://x")},
	} {
		if _, err := loadgen.Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v): no error", cfg)
		}
	}
}

// The client reads every framing a server may answer with, and keeps
// working when the server closes the connection after an answer.
func TestFraming(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 5000)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
		status  int
	}{
		{"content length", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "short answer") }, "short answer", 200},
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			for i := range 5 {
				fmt.Fprint(w, big[i*10000:(i+1)*10000])
				w.(http.Flusher).Flush()
			}
		}, big, 200},
		{"connection close", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			fmt.Fprint(w, "bye")
		}, "bye", 200},
		{"no content", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }, "", 204},
		{"error status", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusConflict) }, "nope\n", 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewUnstartedServer(tc.handler)
			var conns atomic.Int64
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			res, err := loadgen.Run(context.Background(), loadgen.Config{
				Concurrency: 2, Duration: 400 * time.Millisecond, Next: get(srv.URL + "/x"),
				Check: func(status int, body []byte) error {
					if status != tc.status || string(body) != tc.want {
						return fmt.Errorf("status %d, body of %d bytes %.20q", status, len(body), body)
					}
					return nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			// A few requests suffice to show the framing; a loaded machine
			// (the race detector, other packages' tests) may allow no more.
			if res.Requests < 4 || res.Errors != 0 {
				t.Fatalf("result %v, first error %q", res, res.FirstError)
			}
			// Kept-alive connections unless the server closes them.
			if n := conns.Load(); (tc.name == "connection close") != (n > 2) {
				t.Errorf("%d connections for %d requests", n, res.Sent)
			}
		})
	}
}
