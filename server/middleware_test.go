package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/shares"
)

// admit runs at most n requests at once; the others wait and then run,
// and one whose context ends while it waits is answered by fail without
// running.
func TestAdmit(t *testing.T) {
	const n = 2
	var running, peak, ran atomic.Int64
	release := make(chan struct{})
	h := admit(n, func(w http.ResponseWriter, err error) { http.Error(w, err.Error(), http.StatusServiceUnavailable) })(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			cur := running.Add(1)
			for p := peak.Load(); cur > p && !peak.CompareAndSwap(p, cur); p = peak.Load() {
			}
			<-release
			running.Add(-1)
			ran.Add(1)
		}))

	var wg sync.WaitGroup
	codes := make([]int, 5)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/graphql", nil))
			codes[i] = rec.Code
		}()
	}
	// Two run, three wait.
	waitFor(t, func() bool { return running.Load() == n })
	time.Sleep(20 * time.Millisecond)
	if r := running.Load(); r != n {
		t.Fatalf("%d running, want %d", r, n)
	}

	// A waiting request whose client leaves is answered and never runs.
	ctx, cancel := context.WithCancel(context.Background())
	gone := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(gone, httptest.NewRequest("POST", "/graphql", nil).WithContext(ctx))
		close(done)
	}()
	cancel()
	<-done
	if gone.Code != http.StatusServiceUnavailable {
		t.Fatalf("a cancelled waiting request answered %d", gone.Code)
	}

	close(release)
	wg.Wait()
	if ran.Load() != 5 || peak.Load() != n {
		t.Fatalf("%d ran (want 5), at most %d at once (want %d)", ran.Load(), peak.Load(), n)
	}
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d answered %d", i, c)
		}
	}

	// Below 1, no limit: the handler itself.
	plain := &okHandler{}
	if got := admit(0, nil)(plain); got != http.Handler(plain) {
		t.Fatal("admit(0) wraps the handler")
	}
}

type okHandler struct{}

func (*okHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// The request log names a share link's path without its token.
func TestRequestLogKeepsNoShareToken(t *testing.T) {
	var b bytes.Buffer
	h := requestLog(slog.New(slog.NewTextHandler(&b, nil)), nil, true)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	token := shares.NewToken()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/share/api/links/"+token+"/open", nil))
	if strings.Contains(b.String(), token) || !strings.Contains(b.String(), "/share/api/links/s_…/open") {
		t.Fatalf("the log line: %s", b.String())
	}
}
