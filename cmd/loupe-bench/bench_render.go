package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/render"
	"github.com/loupe-mam/loupe/internal/media/renderjob"
)

// The render rows (issue 31; docs/render.md): a sequence of three 10 s
// clips cut from 1080p sources at 25, 29.97 and 50 fps, rendered to
// 1080p25 H.264/AAC — by Loupe (the request's render job, from its start
// to its end: probing the sources, the render, storing the file) and by
// the very ffmpeg command the engine plans, run bare at the same
// priority, in the same run.

const (
	renderBare  = "render: 3 × 10 s of 1080p (25, 29.97, 50 fps) → 1080p25 H.264, the same ffmpeg command bare (reference)"
	renderLoupe = "render: the same sequence through Loupe (render job start → end)"
)

// renderSource is a bench source: 20 s of 1080p at a rate.
type renderSource struct{ rate, path, id string }

func renderRows(ctx context.Context, c benchConfig, dir, dbURL string, seeded *benchseed.Seeded, log io.Writer) []procRow {
	fail := func(err error) []procRow {
		return []procRow{{Scenario: renderBare, Unmeasured: err.Error()}, {Scenario: renderLoupe, Unmeasured: err.Error()}}
	}
	work := filepath.Join(dir, "render")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	fmt.Fprintln(log, "bench: making the render sources with lavfi")
	srcs := []*renderSource{{rate: "25"}, {rate: "30000/1001"}, {rate: "50"}}
	for i, s := range srcs {
		s.path = filepath.Join(work, fmt.Sprintf("source%d.mp4", i))
		cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-loglevel", "error", "-y",
			"-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate="+s.rate+":duration=20",
			"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=20",
			"-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", "-g", "60", "-c:a", "aac", "-shortest", s.path)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fail(fmt.Errorf("making %s: %v %s", s.path, err, out))
		}
	}
	output := loupe.PresetOutput{Container: "mp4",
		Video: &loupe.PresetVideo{Codec: "h264", Profile: "high", Width: 1920, Height: 1080, FrameRate: "25"},
		Audio: &loupe.PresetAudio{Codec: "aac", SampleRate: 48000}}
	// Clips from 5 s to 15 s of each source, in its own frames.
	inOut := func(rate string) (int64, int64) {
		num, den, _ := loupe.ParseFrameRate(rate)
		return int64(5 * num / den), int64(15 * num / den)
	}

	// The reference: the planned command, bare.
	clips := make([]render.Clip, len(srcs))
	for i, s := range srcs {
		in, out := inOut(s.rate)
		clips[i] = render.Clip{Source: s.path, In: in, Out: out}
	}
	job, err := render.Plan(ctx, clips, renderjob.Profile(output, loupe.DefaultAudioMapping()), filepath.Join(work, "bare.mp4"))
	if err != nil {
		return fail(err)
	}
	bare := procRow{Scenario: renderBare, MediaSeconds: job.Duration.Seconds()}
	start := time.Now()
	if out, err := exec.CommandContext(ctx, "nice", append([]string{"-n", "19"}, media.FFmpegArgv(job.Args)...)...).CombinedOutput(); err != nil {
		bare.Unmeasured = fmt.Sprintf("%v %s", err, out)
	}
	bare.Took = time.Since(start)
	bare.Note = fmt.Sprintf("%d frames", job.Frames)
	fmt.Fprintf(log, "bench: %-66s %8v\n", bare.Scenario, bare.Took.Round(10*time.Millisecond))

	l := procRow{Scenario: renderLoupe, MediaSeconds: job.Duration.Seconds()}
	l.Took, l.Note, err = renderThroughLoupe(ctx, c, work, dbURL, seeded, srcs, output, inOut)
	l.Unmeasured = errText(err)
	if bare.Took > 0 && l.Took > 0 {
		l.Value = fmt.Sprintf("%.2f× the bare speed (goal ≥ 0.9)", bare.Took.Seconds()/l.Took.Seconds())
	}
	fmt.Fprintf(log, "bench: %-66s %8v %s %s\n", l.Scenario, l.Took.Round(10*time.Millisecond), l.Value, l.Unmeasured)
	return []procRow{bare, l}
}

// renderThroughLoupe uploads the sources to a fresh server (local disk),
// waits for their processing, makes the preset, asks for the render and
// answers how long its job ran (the request's startedOn to endedOn).
func renderThroughLoupe(ctx context.Context, c benchConfig, work, dbURL string, seeded *benchseed.Seeded,
	srcs []*renderSource, output loupe.PresetOutput, inOut func(string) (int64, int64)) (time.Duration, string, error) {
	if err := dropQueuedJobs(ctx, dbURL); err != nil {
		return 0, "", err
	}
	srv, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, "LOUPE_BLOB_DIR="+filepath.Join(work, "blobs"))
	if err != nil {
		return 0, "", err
	}
	defer srv.stop()
	api := &procAPI{srv: srv, apiKey: seeded.APIKey}
	var ids []string
	for _, s := range srcs {
		if s.id, _, err = api.upload(ctx, s.path); err != nil {
			return 0, "", err
		}
		ids = append(ids, s.id)
	}
	ws, err := api.follow(ctx, time.Now(), 10*time.Minute, ids...)
	if err != nil {
		return 0, "", err
	}
	for _, id := range ids {
		if ws[id].failed != "" {
			return 0, "", fmt.Errorf("source %s: %s", id, ws[id].failed)
		}
	}
	call := func(method, path string, body, out any) error { return api.client().Do(ctx, method, path, body, out) }
	var preset struct{ ID string }
	if err := call("POST", "/prime/api/v1/presets", map[string]any{"name": "bench 1080p25", "output": output}, &preset); err != nil {
		return 0, "", err
	}
	clips := make([]any, len(srcs))
	for i, s := range srcs {
		in, out := inOut(s.rate)
		clips[i] = map[string]any{"itemId": s.id, "in": in, "out": out}
	}
	var req struct{ ID string }
	if err := call("POST", "/prime/api/v1/renderSequenceRequests", map[string]any{"presetId": preset.ID, "clips": clips,
		"target": map[string]any{"type": "newItem", "analyticConfig": map[string]any{}}}, &req); err != nil {
		return 0, "", err
	}
	asked := time.Now()
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var out struct {
			Data struct {
				R struct {
					State, Error       string
					StartedOn, EndedOn *time.Time
					Frames             int64
				} `json:"renderSequenceRequest"`
			}
		}
		q := `query($id: ID!) { renderSequenceRequest(id: $id) { state error startedOn endedOn frames } }`
		if err := call("POST", "/graphql", map[string]any{"query": q, "variables": map[string]any{"id": req.ID}}, &out); err != nil {
			return 0, "", err
		}
		r := out.Data.R
		switch r.State {
		case "complete":
			return r.EndedOn.Sub(*r.StartedOn), fmt.Sprintf("%d frames; request → rendered %v", r.Frames,
				time.Since(asked).Round(10*time.Millisecond)), nil
		case "failed":
			return 0, "", fmt.Errorf("the render failed: %s", strings.TrimSpace(r.Error))
		}
		if time.Now().After(deadline) {
			return 0, "", fmt.Errorf("not rendered within 10 minutes (%s)", r.State)
		}
	}
}
