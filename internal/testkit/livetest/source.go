// Package livetest is a live source for the tests of live recordings.
package livetest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Source is a live source a test can cut: ffmpeg sending 320×180 at 25 fps
// with a tone, in real time, as an SRT listener on a local port. An SRT
// listener serves one caller and ends with it (a pipeline's measurement
// is a caller too), so it is started again whenever it ends — except
// while the test has it cut.
type Source struct {
	t    *testing.T
	port int
	URL  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	on   bool
}

// NewSource starts a source on a free port (stopped with the test).
func NewSource(t *testing.T) *Source {
	l, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.LocalAddr().(*net.UDPAddr).Port
	l.Close()
	s := &Source{t: t, port: port, URL: fmt.Sprintf("srt://127.0.0.1:%d", port)}
	s.Resume()
	t.Cleanup(s.Cut)
	return s
}

// Resume sends again (and keeps sending).
func (s *Source) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		return
	}
	s.on = true
	go func() {
		for {
			s.mu.Lock()
			if !s.on {
				s.mu.Unlock()
				return
			}
			cmd := exec.Command("ffmpeg", "-nostdin", "-v", "quiet", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25",
				"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
				"-g", "25", "-c:a", "aac", "-f", "mpegts", fmt.Sprintf("srt://127.0.0.1:%d?mode=listener", s.port))
			if err := cmd.Start(); err != nil {
				s.mu.Unlock()
				s.t.Error(err)
				return
			}
			s.cmd = cmd
			s.mu.Unlock()
			cmd.Wait() //nolint:errcheck // ends with its caller, or killed
		}
	}()
}

// Cut stops sending at once.
func (s *Source) Cut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	if s.cmd != nil && s.cmd.ProcessState == nil {
		s.cmd.Process.Kill() //nolint:errcheck // ended already is fine
	}
}

// NewHLSSource is a live HLS source any number of readers can read at
// once: ffmpeg writing 320×180 at 25 fps with a tone, in real time, as a
// live playlist of 1 s segments served over HTTP on loopback. It answers
// the playlist's URL (stopped with the test).
func NewHLSSource(t *testing.T) string {
	dir := t.TempDir()
	cmd := exec.Command("ffmpeg", "-nostdin", "-v", "quiet", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25",
		"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
		"-g", "25", "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_list_size", "6", "-hls_flags", "delete_segments",
		filepath.Join(dir, "live.m3u8"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck // killed
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "live.m3u8")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the HLS source wrote no playlist in 10 s")
		}
	}
	return srv.URL + "/live.m3u8"
}
