package rest_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

const (
	renderPath   = "/prime/api/v1/renderSequenceRequests"
	msgBadTarget = "Bad render sequence payload: target must be a RenderSequenceTarget with a valid analyticConfig"
)

// countedSource is a test source whose picture is flat grey at level
// 16 + 8·(frame mod 25) — every frame says its number — and whose sound
// is silence with a 1 kHz beep from frame beep for 0.1 s.
func countedSource(t *testing.T, name, rate, size string, frames, beep int) []byte {
	t.Helper()
	r, _ := strconv.ParseFloat(rate, 64)
	if n, d, ok := strings.Cut(rate, "/"); ok {
		nf, _ := strconv.ParseFloat(n, 64)
		df, _ := strconv.ParseFloat(d, 64)
		r = nf / df
	}
	at := float64(beep) / r
	seconds := float64(frames)/r + 0.5
	return lavfiClip(t, name,
		"-f", "lavfi", "-i", fmt.Sprintf("color=black:size=%s:rate=%s:duration=%.3f,format=gray,geq=lum='16+8*mod(N,25)',format=yuv420p", size, rate, float64(frames)/r),
		"-f", "lavfi", "-i", fmt.Sprintf("sine=frequency=1000:sample_rate=48000:duration=%.3f,volume='between(t,%.4f,%.4f)':eval=frame", seconds, at, at+0.1),
		"-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-g", "250", "-crf", "12", "-c:a", "pcm_s16le", "-shortest", "-f", "mov")
}

// probeCount is what ffprobe counts of a file's first video stream.
func probeCount(t *testing.T, path string) (frames int, rate string, audio float64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
		"stream=nb_read_frames,r_frame_rate", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), ",")
	frames, _ = strconv.Atoi(f[1])
	out, err = exec.Command("ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration",
		"-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	audio, _ = strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return frames, f[0], audio
}

// frameLuma is the mean luminance of frame n's centre (a quarter of each
// side: clear of the bars a conformed picture has).
func frameLuma(t *testing.T, path string, n int) float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-vf",
		fmt.Sprintf("select=eq(n\\,%d),crop=iw/4:ih/4,format=gray,scale=16:16", n), "-frames:v", "1", "-f", "rawvideo", "-").Output()
	if err != nil || len(out) != 256 {
		t.Fatalf("frame %d: %v (%d bytes)", n, err, len(out))
	}
	sum := 0
	for _, b := range out {
		sum += int(b)
	}
	return float64(sum) / 256
}

// beepStarts are when the output's first channel goes loud (> -20 dBFS
// in 5 ms windows), each start once.
func beepStarts(t *testing.T, path string) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-af", "pan=mono|c0=c0", "-ar", "48000",
		"-f", "s16le", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	const win = 240 // 5 ms
	var starts []float64
	loud := false
	for i := 0; i+2*win <= len(out); i += 2 * win {
		peak := 0
		for j := i; j < i+2*win; j += 2 {
			peak = max(peak, int(math.Abs(float64(int16(binary.LittleEndian.Uint16(out[j:]))))))
		}
		now := peak > 1000 // the beep is at 1/8 of full scale
		if now && !loud {
			starts = append(starts, float64(i/2)/48000)
		}
		loud = now
	}
	return starts
}

// A sequence of three clips from sources at 25, 29.97 and 50 fps renders,
// as a job with progress, into a new item: the frame count is the clips'
// summed length at the preset's rate, each clip's first frame is its in
// frame, the beep at each in point sounds at its cut, and the item is
// then processed like an upload. The same into a placeholder. Bad
// requests name their field and queue nothing; the statistics count the
// renders.
func TestRenderSequence(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", nil, false)

	type src struct {
		rate, size string
		in, out    int
		id, path   string
	}
	srcs := []*src{{rate: "25", size: "320x240", in: 10, out: 35}, {rate: "30000/1001", size: "352x288", in: 15, out: 45},
		{rate: "50", size: "256x144", in: 20, out: 70}}
	for i, s := range srcs {
		s.id = a.CreateItem(t, map[string]any{"title": fmt.Sprintf("Source %d", i), "itemType": "video"})
		data := countedSource(t, fmt.Sprintf("source%d.mov", i), s.rate, s.size, s.out+20, s.in)
		s.path = filepath.Join(t.TempDir(), "source.mov")
		if err := os.WriteFile(s.path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		withOriginal(t, api, a, s.id, fmt.Sprintf("source%d.mov", i), data)
	}
	for _, s := range srcs {
		waitState(t, api, a, s.id, nil, "complete")
	}
	preset := a.Post(t, presetsPath, map[string]any{"name": "Small H.264", "output": map[string]any{"container": "mp4",
		"video": map[string]any{"codec": "h264", "width": 320, "height": 180, "frameRate": "25"},
		"audio": map[string]any{"codec": "aac", "sampleRate": 48000}}}).Status(http.StatusOK).Object()["id"].(string)
	clips := make([]any, len(srcs))
	for i, s := range srcs {
		clips[i] = map[string]any{"itemId": s.id, "in": s.in, "out": s.out}
	}

	// Bad requests: each names its field; nothing is made or queued.
	placeholder := a.CreateItem(t, map[string]any{"title": "Placeholder", "itemType": "video"})
	target := func(m map[string]any) map[string]any { m["analyticConfig"] = map[string]any{}; return m }
	requests := api.Count(t, `SELECT count(*) FROM render_requests`)
	for _, c := range []struct {
		name    string
		as      *loupetest.Client
		body    map[string]any
		message string // the envelope's message, or what it contains
	}{
		{"no target", a, map[string]any{"presetId": preset, "clips": clips}, msgBadTarget},
		{"no analyticConfig", a, map[string]any{"presetId": preset, "clips": clips,
			"target": map[string]any{"type": "newItem"}}, msgBadTarget},
		{"analyticConfig of strings", a, map[string]any{"presetId": preset, "clips": clips,
			"target": map[string]any{"type": "newItem", "analyticConfig": map[string]any{"transcription": "yes"}}}, msgBadTarget},
		{"unknown target type", a, map[string]any{"presetId": preset, "clips": clips,
			"target": target(map[string]any{"type": "tape"})}, msgBadTarget},
		{"placeholder with media", a, map[string]any{"presetId": preset, "clips": clips[1:],
			"target": target(map[string]any{"type": "placeholder", "itemId": srcs[0].id})}, msgBadTarget},
		{"unknown preset", a, map[string]any{"presetId": "00000000-0000-4000-8000-000000000009", "clips": clips,
			"target": target(map[string]any{"type": "newItem"})}, "presetId"},
		{"unknown item", a, map[string]any{"presetId": preset, "clips": []any{map[string]any{"itemId": "00000000-0000-4000-8000-000000000009"}},
			"target": target(map[string]any{"type": "newItem"})}, "clips[0].itemId"},
		{"in after out", a, map[string]any{"presetId": preset, "clips": []any{map[string]any{"itemId": srcs[0].id, "in": 30, "out": 20}},
			"target": target(map[string]any{"type": "newItem"})}, "clips[0]: in 30 must be before out 20"},
		{"out past the end", a, map[string]any{"presetId": preset, "clips": []any{map[string]any{"itemId": srcs[0].id, "out": 100000}},
			"target": target(map[string]any{"type": "newItem"})}, "clips[0].out 100000 is past"},
		{"no media yet", a, map[string]any{"presetId": preset, "clips": []any{map[string]any{"itemId": placeholder}},
			"target": target(map[string]any{"type": "newItem"})}, "clips[0].itemId " + placeholder + " has no processed media"},
		{"cycle", a, map[string]any{"presetId": preset, "clips": []any{clips[0], map[string]any{"itemId": placeholder}},
			"target": target(map[string]any{"type": "placeholder", "itemId": placeholder})}, "clips[1] is the target placeholder"},
	} {
		env := c.as.Post(t, renderPath, c.body).Envelope(http.StatusBadRequest, "")
		msg, _ := env["message"].(string)
		if msg != c.message && (c.message == msgBadTarget || !strings.Contains(msg, c.message)) {
			t.Errorf("%s: %q, want %q", c.name, msg, c.message)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM render_requests`); n != requests {
		t.Fatalf("bad requests stored %d renders", n-requests)
	}
	if n := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'render_sequence'`); n != 0 {
		t.Fatalf("bad requests queued %d renders", n)
	}
	// An item the caller cannot see answers as a missing one.
	private := a.CreateItem(t, map[string]any{"title": "Private", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+private, map[string]any{
		"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{a.TenantID + ":nobody"}}}).Status(200)
	hidden := a.CreateItem(t, map[string]any{"title": "Hidden", "itemType": "video", "folderParents": []string{private}})
	unknown := ed.Post(t, renderPath, map[string]any{"presetId": preset, "clips": []any{map[string]any{"itemId": "00000000-0000-4000-8000-000000000009"}},
		"target": target(map[string]any{"type": "newItem"})}).Envelope(http.StatusBadRequest, "")
	seen := ed.Post(t, renderPath, map[string]any{"presetId": preset, "clips": []any{map[string]any{"itemId": hidden}},
		"target": target(map[string]any{"type": "newItem"})}).Envelope(http.StatusBadRequest, "")
	if strings.ReplaceAll(seen["message"].(string), hidden, "X") != strings.ReplaceAll(unknown["message"].(string), "00000000-0000-4000-8000-000000000009", "X") {
		t.Fatalf("a hidden item: %v; a missing one: %v", seen, unknown)
	}

	// The render into a new item.
	req := a.Post(t, renderPath, map[string]any{"presetId": preset, "clips": clips,
		"target": map[string]any{"type": "newItem", "title": "Cut 1", "analyticConfig": map[string]any{"transcription": false}}}).
		Status(http.StatusOK).Object()
	if req["state"] != "queued" || req["targetType"] != "newItem" || req["frames"] != float64(75) {
		t.Fatalf("request: %v", req)
	}
	// While it has not ended, the render is the preset's usage: the preset
	// cannot be deleted.
	l, _, _, _ := presetList(t, a, "")
	if use := fmtJSON(l[0]["usage"]); !strings.Contains(use, `"id":"`+req["id"].(string)+`"`) ||
		!strings.Contains(use, `"type":"renderSequenceRequest"`) {
		t.Fatalf("usage while rendering: %s", use)
	}
	a.Delete(t, presetsPath+"/"+preset).Envelope(http.StatusConflict, "")
	var sawRender bool
	item := waitState(t, api, a, req["targetItemId"].(string), func(it map[string]any) {
		if p, _ := it["progressInfo"].(map[string]any); p != nil && p["step"] == "render" {
			sawRender = true
		}
	}, "complete", "failed")
	if item["transcodingState"] != "complete" || item["title"] != "Cut 1" {
		t.Fatalf("rendered item: %v", item)
	}
	if !sawRender {
		t.Error("the item never showed the render as its progress")
	}
	var d originalDownload
	a.Get(t, "/api/v1/items/"+req["targetItemId"].(string)+"/original").Status(http.StatusOK).JSON(&d)
	resp, body := fetch(t, d.DownloadURL)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("original: %d", resp.StatusCode)
	}
	out := filepath.Join(t.TempDir(), "render.mp4")
	if err := os.WriteFile(out, body, 0o600); err != nil {
		t.Fatal(err)
	}
	// 1 s + 1.001 s + 1 s at 25 fps: boundaries 25, 50 (50.025), 75.
	frames, rate, audio := probeCount(t, out)
	if frames != 75 || rate != "25/1" || math.Abs(audio-3.0) > 0.04 {
		t.Fatalf("render: %d frames at %s, audio %.3f s; want 75 at 25/1, 3.0 s", frames, rate, audio)
	}
	for i, cut := range []int{0, 25, 50} {
		s := srcs[i]
		want := frameLuma(t, s.path, s.in)
		if got := frameLuma(t, out, cut); math.Abs(got-want) > 3 { // a frame apart is 8
			t.Errorf("clip %d's first frame (output %d): luma %.1f, want %.0f (source frame %d)", i, cut, got, want, s.in)
		}
	}
	starts := beepStarts(t, out)
	if len(starts) != 3 {
		t.Fatalf("beeps at %v, want one at each cut", starts)
	}
	for i, at := range []float64{0, 1.0, 2.0} {
		if math.Abs(starts[i]-at) > 0.04 {
			t.Errorf("beep %d at %.3f s, want %.3f (±1 frame)", i, starts[i], at)
		}
	}

	// Into a placeholder: the item gets the render as its original.
	req = a.Post(t, renderPath, map[string]any{"presetId": preset, "clips": clips[:1],
		"target": map[string]any{"type": "placeholder", "itemId": placeholder, "analyticConfig": map[string]any{}}}).
		Status(http.StatusOK).Object()
	if req["targetItemId"] != placeholder {
		t.Fatalf("placeholder request: %v", req)
	}
	if item := waitState(t, api, a, placeholder, nil, "complete", "failed"); item["transcodingState"] != "complete" {
		t.Fatalf("placeholder: %v", item)
	}
	if got := api.Count(t, `SELECT frame_count FROM items WHERE id = $1`, placeholder); got != 25 {
		t.Fatalf("placeholder's frames: %d", got)
	}

	// A source that is no longer media fails the render, saying why, on
	// the request and on its target; nothing is counted.
	mediaSrc, err := api.Store.MediaSourceOf(context.Background(), a.TenantID, srcs[1].id)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := loupe.FileKey(mediaSrc.Location)
	if _, err := api.Files.Put(context.Background(), key, strings.NewReader(strings.Repeat("not media ", 1000))); err != nil {
		t.Fatal(err)
	}
	req = a.Post(t, renderPath, map[string]any{"presetId": preset, "clips": clips[1:2],
		"target": map[string]any{"type": "newItem", "analyticConfig": map[string]any{}}}).Status(http.StatusOK).Object()
	failed := waitState(t, api, a, req["targetItemId"].(string), nil, "complete", "failed")
	progress, _ := failed["progressInfo"].(map[string]any)
	if failed["transcodingState"] != "failed" || progress == nil || !strings.Contains(fmt.Sprint(progress["error"]), "clips[0]") {
		t.Fatalf("a render of a broken source: %v", failed)
	}
	var r struct {
		RenderSequenceRequest struct{ State, Error string }
	}
	a.GraphQL(t, `query($id: ID!) { renderSequenceRequest(id: $id) { state error } }`, map[string]any{"id": req["id"]}).OK(&r)
	if r.RenderSequenceRequest.State != "failed" || r.RenderSequenceRequest.Error != progress["error"] {
		t.Fatalf("the failed request: %+v (item says %v)", r, progress["error"])
	}

	// The statistics count the two renders.
	var stats struct {
		Counts map[string]struct {
			Sum int64 `json:"sum"`
		} `json:"counts"`
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		a.Get(t, statsPath).Status(http.StatusOK).JSON(&stats)
		if stats.Counts["render_sequence_in_cloud"].Sum == 2 || time.Now().After(deadline) {
			break
		}
	}
	for k, want := range map[string]int64{"render_sequence_in_cloud": 2, "render_sequence_to_new_item": 1,
		"render_sequence_to_placeholder": 1, "render_sequence_in_gateway": 0} {
		if got := stats.Counts[k].Sum; got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
}
