//go:build linux

package tool_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/tool"
)

// echoHelper says it is ready, then answers each request with its pid and
// the request; a request holding "slow" takes 100 s, one holding "die"
// ends it.
const echoHelper = `echo '{"ready": true}'
while read -r line; do
	case "$line" in
	*slow*) sleep 100 ;;
	*die*) echo 'dying of it' >&2; exit 5 ;;
	esac
	echo "{\"pid\": $$, \"got\": $line}"
done`

type echoAnswer struct {
	PID int `json:"pid"`
	Got struct {
		N int `json:"n"`
	} `json:"got"`
}

func echoPool(size int, starts *atomic.Int32, script string) *tool.Pool {
	return tool.NewPool(size, func() (tool.Cmd, error) {
		starts.Add(1)
		return tool.Cmd{Program: "sh", Args: []string{"-c", script}, Name: "the echo helper"}, nil
	})
}

// A helper answers request after request; a cancelled request's helper is
// stopped and another answers the next; one that breaks says why.
func TestPool(t *testing.T) {
	var starts atomic.Int32
	p := echoPool(1, &starts, echoHelper)
	ctx := context.Background()
	do := func(req any) (echoAnswer, error) {
		var a echoAnswer
		err := p.Do(ctx, req, &a)
		return a, err
	}
	first, err := do(map[string]int{"n": 1})
	if err != nil || first.Got.N != 1 {
		t.Fatalf("%+v %v", first, err)
	}
	again, err := do(map[string]int{"n": 2})
	if err != nil || again.Got.N != 2 || again.PID != first.PID {
		t.Fatalf("second request: %+v %v (first from %d)", again, err, first.PID)
	}

	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := p.Do(cctx, "slow", &echoAnswer{}); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled request: %v after %v", err, time.Since(start))
	}
	if !gone(first.PID) {
		t.Errorf("the cancelled request's helper %d runs on", first.PID)
	}
	next, err := do(map[string]int{"n": 3})
	if err != nil || next.Got.N != 3 || next.PID == first.PID {
		t.Fatalf("after the cancel: %+v %v", next, err)
	}

	err = p.Do(ctx, "die", &echoAnswer{})
	var te *tool.Error
	if !errors.As(err, &te) || err.Error() != "the echo helper: dying of it (exit 5)" {
		t.Fatalf("broken helper: %v", err)
	}
	idle, err := do(map[string]int{"n": 4})
	if err != nil || idle.Got.N != 4 {
		t.Fatalf("after the break: %+v %v", idle, err)
	}

	// One killed while idle says so to the next request.
	syscall.Kill(idle.PID, syscall.SIGKILL) //nolint:errcheck // checked below
	for !gone(idle.PID) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.Do(ctx, map[string]int{"n": 5}, &echoAnswer{}); err == nil || err.Error() != "the echo helper: signal: killed" {
		t.Fatalf("helper killed while idle: %v", err)
	}
	if a, err := do(map[string]int{"n": 6}); err != nil || a.Got.N != 6 {
		t.Fatalf("after the kill: %+v %v", a, err)
	}
	if n := starts.Load(); n != 4 {
		t.Errorf("%d helpers started, want 4", n)
	}
}

// No more helpers run than the pool's size.
func TestPoolSize(t *testing.T) {
	var starts atomic.Int32
	p := echoPool(2, &starts, "sleep 0.2\n"+echoHelper)
	var mu sync.Mutex
	pids := map[int]bool{}
	var wg sync.WaitGroup
	for n := range 6 {
		wg.Go(func() {
			var a echoAnswer
			if err := p.Do(context.Background(), map[string]int{"n": n}, &a); err != nil || a.Got.N != n {
				t.Errorf("request %d: %+v %v", n, a, err)
			}
			mu.Lock()
			pids[a.PID] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(pids) != 2 || starts.Load() != 2 {
		t.Fatalf("answered by %v, %d started", pids, starts.Load())
	}
}

// A helper that cannot start makes the pool unavailable: it says why, and
// does not try again for a while.
func TestPoolUnavailable(t *testing.T) {
	lacking := errors.New("python3-frobnicate is not installed")
	for _, tc := range []struct {
		name string
		cmd  func() (tool.Cmd, error)
		want string
	}{
		{name: "cannot be found", cmd: func() (tool.Cmd, error) { return tool.Cmd{}, lacking }, want: lacking.Error()},
		{name: "not on PATH", cmd: func() (tool.Cmd, error) { return tool.Cmd{Program: "loupe-no-such-helper"}, nil },
			want: "loupe-no-such-helper: exec"},
		{name: "dies at start", cmd: func() (tool.Cmd, error) {
			return tool.Cmd{Program: "sh", Args: []string{"-c", "echo 'ImportError: no cv2' >&2; exit 3"}, Name: "faces"}, nil
		}, want: "faces: ImportError: no cv2 (exit 3)"},
		{name: "not ready", cmd: func() (tool.Cmd, error) {
			return tool.Cmd{Program: "sh", Args: []string{"-c", `echo '{"ready": false}'; read -r line`}, Name: "h"}, nil
		}, want: `h: said "{\"ready\": false}\n", not that it is ready`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tries atomic.Int32
			p := tool.NewPool(1, func() (tool.Cmd, error) {
				tries.Add(1)
				return tc.cmd()
			})
			for range 2 {
				if err := p.Do(context.Background(), "hello", new(any)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("err %v, want %q", err, tc.want)
				}
			}
			if tries.Load() != 1 {
				t.Errorf("tried %d times", tries.Load())
			}
		})
	}
}
