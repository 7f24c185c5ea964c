package live

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// The address policy: metadata and link-local never, loopback only when
// allowed, private by default, multicast for udp and rtp.
func TestPolicy(t *testing.T) {
	def, loop, public := Policy{}, Policy{AllowLoopback: true}, Policy{DenyPrivate: true}
	for _, c := range []struct {
		p     Policy
		addr  string
		typ   string
		allow bool
	}{
		{def, "169.254.169.254", loupe.LiveHLS, false},
		{loop, "169.254.169.254", loupe.LiveHLS, false},
		{def, "fd00:ec2::254", loupe.LiveHTTP, false},
		{def, "fe80::1", loupe.LiveRTSP, false},
		{def, "0.0.0.0", loupe.LiveSRT, false},
		{def, "::ffff:169.254.169.254", loupe.LiveHTTP, false},
		{def, "127.0.0.1", loupe.LiveHLS, false},
		{loop, "127.0.0.1", loupe.LiveHLS, true},
		{loop, "::1", loupe.LiveRTMP, true},
		{def, "10.1.2.3", loupe.LiveSRT, true},
		{def, "192.168.0.9", loupe.LiveRTSP, true},
		{def, "fd12:3456::1", loupe.LiveRTSP, true},
		{public, "10.1.2.3", loupe.LiveSRT, false},
		{def, "8.8.8.8", loupe.LiveRTMP, true},
		{def, "239.1.1.1", loupe.LiveUDP, true},
		{def, "239.1.1.1", loupe.LiveHLS, false},
		{def, "224.0.0.1", loupe.LiveUDP, false},
		{def, "232.1.1.1", loupe.LiveRTP, true},
		{def, "ff02::1", loupe.LiveUDP, false},
	} {
		why := c.p.Refusal(netip.MustParseAddr(c.addr), c.typ)
		if (why == "") != c.allow {
			t.Errorf("%+v %s %s: refusal %q, want allowed %v", c.p, c.addr, c.typ, why, c.allow)
		}
	}
}

// Each protocol's options are ones ffprobe takes: a dead port is
// unreachable (refused or timed out), never an option error.
func TestMeasureDeadSources(t *testing.T) {
	mediatest.Need(t, "ffprobe")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := New(Config{AllowLoopback: true, ProbeTimeout: 3 * time.Second})
	for _, url := range []string{"rtsp://" + addr + "/cam", "rtmp://" + addr + "/live/x", "srt://" + addr,
		"udp://" + addr, "http://" + addr + "/x.ts", "https://localhost:1/x.m3u8"} {
		u, err := loupe.ParseLiveSourceURL("url", url)
		if err != nil {
			t.Fatal(err)
		}
		p := &loupe.LivePipeline{Sources: []loupe.LiveSource{{Key: "k", URL: url, Type: loupe.LiveSourceType(u)}}, Current: "k"}
		r := s.Measure(context.Background(), p)
		if r.Status != loupe.LiveStatusError || r.CheckedOn.IsZero() {
			t.Fatalf("%s: %+v", url, r)
		}
		t.Logf("%s: %s: %s", url, r.Reason, r.Message)
		if r.Reason != loupe.LiveReasonUnreachable || strings.Contains(strings.ToLower(r.Message), "option") {
			t.Errorf("%s: %s %s", url, r.Reason, r.Message)
		}
	}
}
