package rest_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/live"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/server"
)

const livePipelinesPath = "/prime/api/v1/live/pipelines"

// specLiveKeys are 2.21's keys.
var specLiveKeys = []string{"status", "liveSourceId", "liveSourceType", "liveSourceName", "cidr", "pipelineId", "pipelineName",
	"pipelineLocationId", "objectOutput", "audioOnly", "mxfWithTsProxy", "mediaPipelineDynamicSources", "mediaPipelineStatus"}

const livePipelineFields = `pipelineId pipelineName status liveSourceId liveSourceType liveSourceName cidr audioOnly
  mediaPipelineDynamicSources { current dynamicSourceListKey }
  mediaPipelineStatus { activeDynamicSource source { type errorMessage reason } }
  measured { format video { codec width height } audio { codec } address } checkedOn stale`

type livePipelineT struct {
	PipelineID, PipelineName, Status, LiveSourceID, LiveSourceType, LiveSourceName, Cidr string
	AudioOnly                                                                            bool
	MediaPipelineDynamicSources                                                          struct {
		Current, DynamicSourceListKey *string
	}
	MediaPipelineStatus struct {
		ActiveDynamicSource *string
		Source              struct {
			Type, ErrorMessage string
			Reason             *string
		}
	}
	Measured *struct {
		Format string
		Video  *struct {
			Codec         string
			Width, Height int
		}
		Audio   *struct{ Codec string }
		Address string
	}
	CheckedOn *string
	Stale     bool
}

// hlsSource writes a short HLS stream with ffmpeg (lavfi; video with
// audio, or audio alone) and serves its directory over HTTP.
func hlsSource(t *testing.T, audioOnly bool) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	args := []string{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3"}
	if !audioOnly {
		args = append([]string{"-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10"}, args...)
		args = append(args, "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p")
	}
	args = append(args, "-c:a", "aac", "-b:a", "32k", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0",
		"-hls_playlist_type", "vod", filepath.Join(dir, "live.m3u8"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := media.Run(ctx, media.Command{Args: args}); err != nil {
		t.Fatalf("ffmpeg: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "live.m3u8")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv
}

// deadPort is a loopback port nobody listens on.
func deadPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func createLive(t *testing.T, c *loupetest.Client, input map[string]any) livePipelineT {
	t.Helper()
	var out struct{ CreateLivePipeline livePipelineT }
	c.GraphQL(t, `mutation($i: LivePipelineInput!) { createLivePipeline(input: $i) { `+livePipelineFields+` } }`,
		map[string]any{"i": input}).OK(&out)
	return out.CreateLivePipeline
}

func probeLive(t *testing.T, c *loupetest.Client, id string) livePipelineT {
	t.Helper()
	var out struct{ ProbeLivePipeline livePipelineT }
	c.GraphQL(t, `mutation($id: ID!) { probeLivePipeline(id: $id) { `+livePipelineFields+` } }`,
		map[string]any{"id": id}).OK(&out)
	return out.ProbeLivePipeline
}

func getLive(t *testing.T, c *loupetest.Client, id string) *livePipelineT {
	t.Helper()
	var out struct{ LivePipeline *livePipelineT }
	c.GraphQL(t, `query($id: ID!) { livePipeline(id: $id) { `+livePipelineFields+` } }`,
		map[string]any{"id": id}).OK(&out)
	return out.LivePipeline
}

// liveAPI is a server whose live sources may be on loopback (the test's
// HLS server) and whose scheduler measures every half second.
func liveAPI(t *testing.T) *loupetest.API {
	return loupetest.New(t, func(c *server.Config) {
		c.Live = live.Config{AllowLoopback: true, ProbeInterval: 500 * time.Millisecond, ProbeTimeout: 5 * time.Second}
	})
}

// Pipelines measure real sources: a served HLS stream is ok with its
// video measured; a 404, a dead port and an audio-only stream for a video
// pipeline are errors saying what to fix; the scheduler turns an ok
// pipeline to an error when its source stops.
func TestLivePipelineStatus(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	src := hlsSource(t, false)
	radio := hlsSource(t, true)

	p := createLive(t, a, map[string]any{"pipelineName": "Studio A",
		"sources": []map[string]any{{"key": "cam1", "name": "Camera 1", "url": src.URL + "/live.m3u8"},
			{"key": "dead", "url": "http://" + deadPort(t) + "/live.m3u8"}},
		"dynamicSourceListKey": "studio-a"})
	if p.Status != "unknown" || !p.Stale || p.LiveSourceID != "cam1" || p.LiveSourceType != "hls" || p.LiveSourceName != "Camera 1" ||
		p.MediaPipelineStatus.Source.Type != "unknown" || p.CheckedOn != nil {
		t.Fatalf("created: %+v", p)
	}
	if d := p.MediaPipelineDynamicSources; d.Current == nil || *d.Current != "cam1" || d.DynamicSourceListKey == nil ||
		*d.DynamicSourceListKey != "studio-a" {
		t.Fatalf("dynamic sources: %+v", d)
	}

	got := probeLive(t, a, p.PipelineID)
	if got.Status != "ok" || got.Stale || got.CheckedOn == nil || got.MediaPipelineStatus.Source.Type != "ok" ||
		got.MediaPipelineStatus.Source.ErrorMessage != "" || got.Measured == nil || got.Measured.Video == nil ||
		got.Measured.Video.Codec != "h264" || got.Measured.Video.Width != 160 || got.Measured.Video.Height != 120 ||
		got.Measured.Audio == nil || got.Measured.Audio.Codec != "aac" || got.Measured.Address != "127.0.0.1" ||
		*got.MediaPipelineStatus.ActiveDynamicSource != "cam1" {
		t.Fatalf("probed: %+v %+v", got, got.Measured)
	}

	// Switching to the dead source: unknown until measured, then
	// unreachable.
	var sw struct{ SwitchLivePipelineSource livePipelineT }
	a.GraphQL(t, `mutation($id: ID!) { switchLivePipelineSource(id: $id, key: "dead") { `+livePipelineFields+` } }`,
		map[string]any{"id": p.PipelineID}).OK(&sw)
	if sw.SwitchLivePipelineSource.Status != "unknown" || sw.SwitchLivePipelineSource.LiveSourceID != "dead" {
		t.Fatalf("switched: %+v", sw.SwitchLivePipelineSource)
	}
	got = probeLive(t, a, p.PipelineID)
	if got.Status != "error" || *got.MediaPipelineStatus.Source.Reason != "unreachable" ||
		!strings.Contains(got.MediaPipelineStatus.Source.ErrorMessage, "connection refused") {
		t.Fatalf("dead port: %+v", got.MediaPipelineStatus)
	}
	a.GraphQL(t, `mutation($id: ID!) { switchLivePipelineSource(id: $id, key: "nope") { pipelineId } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("BAD_USER_INPUT")

	// A path the server does not have: refused, saying 404.
	missing := createLive(t, a, map[string]any{"pipelineName": "Missing",
		"sources": []map[string]any{{"key": "x", "url": src.URL + "/nothing.m3u8"}}})
	got = probeLive(t, a, missing.PipelineID)
	if got.Status != "error" || *got.MediaPipelineStatus.Source.Reason != "refused" ||
		!strings.Contains(got.MediaPipelineStatus.Source.ErrorMessage, "404") {
		t.Fatalf("404: %+v", got.MediaPipelineStatus)
	}

	// Audio alone is no video stream for a video pipeline, and ok for an
	// audioOnly one.
	sound := createLive(t, a, map[string]any{"pipelineName": "Radio",
		"sources": []map[string]any{{"key": "fm", "url": radio.URL + "/live.m3u8"}}})
	got = probeLive(t, a, sound.PipelineID)
	if got.Status != "error" || *got.MediaPipelineStatus.Source.Reason != "noVideo" ||
		!strings.Contains(got.MediaPipelineStatus.Source.ErrorMessage, "no video stream") {
		t.Fatalf("audio only: %+v", got.MediaPipelineStatus)
	}
	var up struct{ UpdateLivePipeline livePipelineT }
	a.GraphQL(t, `mutation($id: ID!) { updateLivePipeline(id: $id, input: {audioOnly: true}) { `+livePipelineFields+` } }`,
		map[string]any{"id": sound.PipelineID}).OK(&up)
	if up.UpdateLivePipeline.Status != "unknown" || !up.UpdateLivePipeline.AudioOnly {
		t.Fatalf("audioOnly: %+v", up.UpdateLivePipeline)
	}
	if got = probeLive(t, a, sound.PipelineID); got.Status != "ok" || got.Measured.Video != nil {
		t.Fatalf("audioOnly probed: %+v", got)
	}

	// The scheduler measures again on its interval: the stream stops, the
	// pipeline turns to an error by itself.
	camOnly := createLive(t, a, map[string]any{"pipelineName": "Scheduled",
		"sources": []map[string]any{{"key": "cam", "url": src.URL + "/live.m3u8"}}})
	await := func(want string) livePipelineT {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if g := getLive(t, a, camOnly.PipelineID); g.Status == want {
				return *g
			}
			if time.Now().After(deadline) {
				t.Fatalf("pipeline not %s: %+v", want, getLive(t, a, camOnly.PipelineID))
			}
		}
	}
	first := await("ok")
	src.Close()
	failed := await("error")
	if *failed.MediaPipelineStatus.Source.Reason != "unreachable" || *failed.CheckedOn <= *first.CheckedOn {
		t.Fatalf("after the source stopped: %+v", failed.MediaPipelineStatus)
	}
}

// Pipelines are admins' to write and every user's to read, within their
// tenant; bad input is refused naming the field, nothing written; the
// REST list has every 2.21 key.
func TestLivePipelineAccess(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", nil, false)
	b := api.Tenant(t, "b")

	in := map[string]any{"pipelineName": "Feed", "cidr": "10.20.0.0/16",
		"sources": []map[string]any{{"key": "main", "url": "srt://10.20.1.5:9000?mode=caller"}}}
	p := createLive(t, a, in)
	if p.LiveSourceType != "srt" || p.Cidr != "10.20.0.0/16" || p.MediaPipelineDynamicSources.Current != nil {
		t.Fatalf("created: %+v", p)
	}

	// Bad input: 400 naming the field; nothing created.
	for field, bad := range map[string]map[string]any{
		"sources[0].url": {"pipelineName": "x", "sources": []map[string]any{{"key": "m", "url": "http://169.254.169.254/latest/meta-data"}}},
		"sources[1].url": {"pipelineName": "x", "sources": []map[string]any{{"key": "m", "url": "srt://10.20.1.5:9000"},
			{"key": "n", "url": "http://[fd00:ec2::254]/x.m3u8"}}},
		"cidr":           {"pipelineName": "x", "cidr": "10.20.0.0/99", "sources": []map[string]any{{"key": "m", "url": "srt://10.20.1.5:9000"}}},
		"pipelineName":   {"sources": []map[string]any{{"key": "m", "url": "srt://10.20.1.5:9000"}}},
		"sources[0].key": {"pipelineName": "x", "sources": []map[string]any{{"key": "a b", "url": "srt://10.20.1.5:9000"}}},
		"scheme":         {"pipelineName": "x", "sources": []map[string]any{{"key": "m", "url": "file:///etc/passwd"}}},
		"pipelineLocationId": {"pipelineName": "x", "pipelineLocationId": "0190a0a0-0000-7000-8000-000000000000",
			"sources": []map[string]any{{"key": "m", "url": "srt://10.20.1.5:9000"}}},
	} {
		msg := a.GraphQL(t, `mutation($i: LivePipelineInput!) { createLivePipeline(input: $i) { pipelineId } }`,
			map[string]any{"i": bad}).ErrorCode("BAD_USER_INPUT")
		if !strings.Contains(msg, field) {
			t.Errorf("%s: message %q does not name it", field, msg)
		}
	}
	// An address outside the cidr.
	msg := a.GraphQL(t, `mutation($id: ID!) { updateLivePipeline(id: $id, input: {sources: [{key: "m", url: "rtsp://192.168.1.9/cam"}]}) { pipelineId } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("BAD_USER_INPUT")
	if !strings.Contains(msg, "sources[0].url") || !strings.Contains(msg, "cidr") {
		t.Fatalf("outside cidr: %s", msg)
	}

	// REST: every 2.21 key, for every user of the tenant; nothing of it
	// for another tenant.
	var list []map[string]any
	ed.Get(t, livePipelinesPath).Status(http.StatusOK).JSON(&list)
	if len(list) != 1 {
		t.Fatalf("list: %v", list)
	}
	for _, k := range specLiveKeys {
		if _, ok := list[0][k]; !ok {
			t.Errorf("record lacks %s: %v", k, list[0])
		}
	}
	d := list[0]["mediaPipelineDynamicSources"].(map[string]any)
	s := list[0]["mediaPipelineStatus"].(map[string]any)
	src := s["source"].(map[string]any)
	_, hasCurrent := d["current"]
	_, hasKey := d["dynamicSourceListKey"]
	_, hasActive := s["activeDynamicSource"]
	if !hasCurrent || !hasKey || !hasActive || src["type"] != "unknown" || src["errorMessage"] != "" ||
		list[0]["pipelineLocationId"] != "loupe" || list[0]["objectOutput"] != false {
		t.Fatalf("record: %v", list[0])
	}
	var other []map[string]any
	b.Get(t, livePipelinesPath).Status(http.StatusOK).JSON(&other)
	if len(other) != 0 {
		t.Fatalf("b sees %v", other)
	}
	if g := getLive(t, b, p.PipelineID); g != nil {
		t.Fatalf("b reads %+v", g)
	}
	b.GraphQL(t, `mutation($id: ID!) { updateLivePipeline(id: $id, input: {pipelineName: "theirs"}) { pipelineId } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("NOT_FOUND")
	b.GraphQL(t, `mutation($id: ID!) { probeLivePipeline(id: $id) { pipelineId } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("NOT_FOUND")
	b.GraphQL(t, `mutation($id: ID!) { deleteLivePipeline(id: $id) { id } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("NOT_FOUND")

	// Users read; only admins write.
	if g := getLive(t, ed, p.PipelineID); g == nil || g.PipelineName != "Feed" {
		t.Fatalf("ed reads %+v", g)
	}
	ed.GraphQL(t, `mutation($i: LivePipelineInput!) { createLivePipeline(input: $i) { pipelineId } }`,
		map[string]any{"i": in}).ErrorCode("FORBIDDEN")
	ed.GraphQL(t, `mutation($id: ID!) { switchLivePipelineSource(id: $id, key: "main") { pipelineId } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("FORBIDDEN")
	ed.GraphQL(t, `mutation($id: ID!) { deleteLivePipeline(id: $id) { id } }`,
		map[string]any{"id": p.PipelineID}).ErrorCode("FORBIDDEN")

	a.GraphQL(t, `mutation($id: ID!) { deleteLivePipeline(id: $id) { id } }`, map[string]any{"id": p.PipelineID}).OK(nil)
	a.Get(t, livePipelinesPath).Status(http.StatusOK).JSON(&list)
	if len(list) != 0 {
		t.Fatalf("after delete: %v", list)
	}

	// The spec's absent live paths stay 404.
	for _, path := range []string{"/prime/api/v1/live", "/prime/api/v1/live/sources", "/prime/api/v1/live/series/x"} {
		a.Get(t, path).Status(http.StatusNotFound)
	}
}

// A source URL's credentials — an SRT passphrase, a password, an RTMP
// stream key — never appear in an answer (REST or GraphQL) nor in a
// measurement's message; a record read back and written again keeps them.
func TestLivePipelineCredentials(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	const pass, word, key = "s3cretPassphrase", "hunter2pw", "live_abcd1234efgh"
	p := createLive(t, a, map[string]any{"pipelineName": "Secret feeds", "sources": []map[string]any{
		{"key": "srt", "url": "srt://" + deadPort(t) + "?mode=caller&passphrase=" + pass},
		{"key": "rtsp", "url": "rtsp://cam:" + word + "@" + deadPort(t) + "/stream1"},
		{"key": "rtmp", "url": "rtmp://" + deadPort(t) + "/live/" + key}}})
	probed := probeLive(t, a, p.PipelineID)
	if probed.Status != "error" {
		t.Fatalf("a dead source measured %+v", probed)
	}
	leaks := func(what string, body []byte) {
		t.Helper()
		for _, secret := range []string{pass, word, key} {
			if strings.Contains(string(body), secret) {
				t.Fatalf("%s shows a credential: %s", what, body)
			}
		}
	}
	leaks("GET "+livePipelinesPath, a.Get(t, livePipelinesPath).Status(http.StatusOK).Body)
	const sources = `query($id: ID!) { livePipeline(id: $id) { sources { key name url } mediaPipelineStatus { source { errorMessage } } } }`
	r := a.GraphQL(t, sources, map[string]any{"id": p.PipelineID})
	leaks("livePipeline", r.Data)
	var read struct {
		LivePipeline struct {
			Sources []map[string]any
		}
	}
	r.OK(&read)
	if u := read.LivePipeline.Sources[0]["url"]; !strings.HasSuffix(u.(string), "passphrase=***") {
		t.Fatalf("redacted: %v", u)
	}
	// Written back as read (a name changed): the stored URLs keep their
	// secrets.
	in := make([]map[string]any, len(read.LivePipeline.Sources))
	for i, s := range read.LivePipeline.Sources {
		in[i] = map[string]any{"key": s["key"], "name": "renamed", "url": s["url"]}
	}
	a.GraphQL(t, `mutation($id: ID!, $i: LivePipelineInput!) { updateLivePipeline(id: $id, input: $i) { pipelineId } }`,
		map[string]any{"id": p.PipelineID, "i": map[string]any{"sources": in}}).OK(nil)
	var stored string
	if err := api.DB.Get(&stored, `SELECT sources::text FROM live_pipelines WHERE id = $1`, p.PipelineID); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{pass, word, key} {
		if !strings.Contains(stored, secret) {
			t.Fatalf("writing back lost a credential: %s", stored)
		}
	}
}
