package mediabench

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"
)

var vmRSS = regexp.MustCompile(`VmRSS:\s+(\d+) kB`)

// RSSMiB is the resident memory of process pid (0 when unreadable).
func RSSMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	m := vmRSS.FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseFloat(string(m[1]), 64)
	return kb / 1024
}

// WatchRSS samples pid's resident memory every 50 ms until the returned
// function is called, which answers the growth: the highest sample less the
// first.
func WatchRSS(pid int) func() float64 {
	first := RSSMiB(pid)
	peak := first
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				peak = max(peak, RSSMiB(pid))
			}
		}
	}()
	return func() float64 {
		close(done)
		<-stopped
		return max(peak, RSSMiB(pid)) - first
	}
}
