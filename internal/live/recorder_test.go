package live_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/live"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/livetest"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
	"github.com/loupe-mam/loupe/server"
)

// recordingAPI is a server whose nodes may read sources on loopback, with
// 2 s segments, its files in S3 (served by presigned links where a link
// names one file; the growing playlist's directory link stays Loupe's).
func recordingAPI(t *testing.T) *loupetest.API {
	s3, err := blob.NewS3(context.Background(), s3test.Bucket(t))
	if err != nil {
		t.Fatal(err)
	}
	return loupetest.New(t, func(c *server.Config) {
		c.Live = live.Config{AllowLoopback: true, ProbeInterval: time.Minute, ProbeTimeout: 5 * time.Second, SegmentSeconds: 2}
		c.Files = s3
		c.Blobs.DirectDownloads(s3)
	})
}

type recordingState struct {
	ID              string  `json:"id"`
	State           string  `json:"state"`
	RecordedSeconds float64 `json:"recordedSeconds"`
	Error           string  `json:"error"`
	Gaps            []struct {
		From, To time.Time
		Reason   string
	} `json:"gaps"`
	Item struct {
		Proxy     *string `json:"proxy"`
		Thumbnail *string `json:"thumbnail"`
	} `json:"item"`
}

func readRecording(t *testing.T, a *loupetest.Client, id string) recordingState {
	t.Helper()
	var out struct {
		ScheduledRecording recordingState `json:"scheduledRecording"`
	}
	a.GraphQL(t, `query($id: ID!) { scheduledRecording(id: $id) { id state recordedSeconds error
		gaps { from to reason } item { proxy thumbnail } } }`, map[string]any{"id": id}).OK(&out)
	return out.ScheduledRecording
}

// pipeline makes a pipeline on src and waits for its first measurement,
// as a person would (an SRT listener serves one reader at a time).
func pipeline(t *testing.T, a *loupetest.Client, src *livetest.Source, name string) string {
	t.Helper()
	var p struct {
		CreateLivePipeline struct{ PipelineID string } `json:"createLivePipeline"`
	}
	a.GraphQL(t, `mutation($in: LivePipelineInput!) { createLivePipeline(input: $in) { pipelineId } }`,
		map[string]any{"in": map[string]any{"pipelineName": name, "sources": []any{map[string]any{"key": "main", "url": src.URL}}}}).OK(&p)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var m struct {
			LivePipeline struct{ Status string } `json:"livePipeline"`
		}
		a.GraphQL(t, `query($id: ID!) { livePipeline(id: $id) { status } }`, map[string]any{"id": p.CreateLivePipeline.PipelineID}).OK(&m)
		if m.LivePipeline.Status == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pipeline status %q", m.LivePipeline.Status)
		}
	}
	return p.CreateLivePipeline.PipelineID
}

// schedule schedules a recording on the pipeline from start for d.
func schedule(t *testing.T, a *loupetest.Client, pipeline, title string, start time.Time, d time.Duration) string {
	t.Helper()
	var r struct {
		ScheduleRecording struct{ ID string } `json:"scheduleRecording"`
	}
	a.GraphQL(t, `mutation($in: ScheduleRecordingInput!) { scheduleRecording(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"pipelineId": pipeline, "title": title,
			"start": start.UTC().Format(time.RFC3339Nano), "durationSeconds": int(d.Seconds())}}).OK(&r)
	return r.ScheduleRecording.ID
}

// until polls the recording until ok says so.
func until(t *testing.T, a *loupetest.Client, id string, within time.Duration, what string, ok func(recordingState) bool) recordingState {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := readRecording(t, a, id)
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %+v", what, within, r)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// processed waits for the recording's item to be processed and answers
// its length from its frame count (25 fps).
func processed(t *testing.T, a *loupetest.Client, id string) float64 {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		it := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()
		switch it["transcodingState"] {
		case "complete":
			frames, _ := it["frameCount"].(float64)
			return frames / 25
		case "failed":
			t.Fatalf("processing failed: %v", it["progressInfo"])
		}
		if time.Now().After(deadline) {
			t.Fatalf("item %s still %v", id, it["transcodingState"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A scheduled recording records for real, its segments stored in S3 as
// they arrive: while it records, its item's
// proxy is a playlist that plays in Chromium from the recording's start
// and grows, its length so far is readable and grows, a thumbnail is
// there; after it, the item is the 20 s recorded (± one segment) and
// processed. A second recording, whose source is cut for 3 s, goes on
// after the cut with the gap marked — on the recording and in the item's
// timed metadata — and the original is the media sent.
func TestScheduledRecordingsRecord(t *testing.T) {
	mediatest.Need(t)
	chromium := webtest.Chromium(t)
	api := recordingAPI(t)
	a := api.Tenant(t, "a")
	clean, cut := livetest.NewSource(t), livetest.NewSource(t)
	feedA, feedB := pipeline(t, a, clean, "Feed A"), pipeline(t, a, cut, "Feed B")
	start := time.Now().Add(3 * time.Second)
	whole := schedule(t, a, feedA, "Feed A", start, 20*time.Second)
	gappy := schedule(t, a, feedB, "Feed B", start, 14*time.Second)

	// The cut: 3 s, from 5 s into the second recording.
	var cutAt, resumedAt time.Time
	cutDone := make(chan struct{})
	go func() {
		defer close(cutDone)
		time.Sleep(time.Until(start.Add(5 * time.Second)))
		cutAt = time.Now()
		cut.Cut()
		time.Sleep(3 * time.Second)
		resumedAt = time.Now()
		cut.Resume()
	}()

	// While it records: a playlist, a thumbnail, a growing length.
	r := until(t, a, whole, 15*time.Second, "a playlist", func(r recordingState) bool {
		return r.State == "recording" && r.Item.Proxy != nil && r.RecordedSeconds >= 4
	})
	if r.Item.Thumbnail == nil {
		t.Errorf("no thumbnail while recording")
	}
	out := webtest.Node(t, 2*time.Minute, "testdata/live_playback.cjs", nil, api.URL+"/healthz", *r.Item.Proxy, chromium, "5")
	later := readRecording(t, a, whole)
	var s struct {
		Supported                                     bool
		StartedAt, Advanced, LengthFirst, LengthLater float64
		Width, Height, Colours                        int
		Errors                                        []string
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("live_playback.cjs printed no summary (%v):\n%s", err, out)
	}
	t.Logf("while recording: %s; recorded %.1f s then %.1f s", out, r.RecordedSeconds, later.RecordedSeconds)
	if !s.Supported || s.StartedAt > 0.5 || s.Width != 320 || s.Height != 180 || s.Colours < 8 {
		t.Errorf("playback from the start: %+v", s)
	}
	if s.Advanced < 3 || s.LengthLater < s.LengthFirst+2 || len(s.Errors) > 0 {
		t.Errorf("playing a growing recording: %+v", s)
	}
	if later.State != "recording" || later.RecordedSeconds < r.RecordedSeconds+2 {
		t.Errorf("recorded length so far: %.1f s, then %+v", r.RecordedSeconds, later)
	}

	// After it: the 20 s, processed.
	done := until(t, a, whole, 60*time.Second, "complete", func(r recordingState) bool { return r.State == "complete" || r.State == "failed" })
	if done.State != "complete" || math.Abs(done.RecordedSeconds-20) > 2 || len(done.Gaps) != 0 {
		t.Fatalf("after the recording: %+v", done)
	}
	if d := processed(t, a, whole); math.Abs(d-20) > 2 {
		t.Errorf("the item is %.2f s long, want 20 ± 2 (one segment)", d)
	}

	// The cut recording: a gap of the cut's length, marked, and the rest.
	done = until(t, a, gappy, 60*time.Second, "complete", func(r recordingState) bool { return r.State == "complete" || r.State == "failed" })
	if done.State != "complete" || len(done.Gaps) != 1 {
		t.Fatalf("the cut recording: %+v", done)
	}
	<-cutDone
	g := done.Gaps[0]
	away := g.To.Sub(g.From).Seconds()
	// It starts where the source stopped sending and ends where its media
	// came back (the engine tries again every second).
	if g.From.Sub(cutAt).Abs() > time.Second || g.To.Before(resumedAt) || g.To.Sub(resumedAt) > 2500*time.Millisecond || g.Reason == "" {
		t.Errorf("gap %+v: %.1f s away; cut at %s, back at %s", g, away, cutAt.Format(time.StampMilli), resumedAt.Format(time.StampMilli))
	}
	if math.Abs(done.RecordedSeconds+away-14) > 2.5 {
		t.Errorf("recorded %.1f s and away %.1f s of 14 s", done.RecordedSeconds, away)
	}
	if d := processed(t, a, gappy); math.Abs(d-done.RecordedSeconds) > 0.5 {
		t.Errorf("the item is %.2f s long; %.2f s were recorded", d, done.RecordedSeconds)
	}
	timed := a.Get(t, "/api/v1/items/"+gappy+"/timedMetadata").Status(http.StatusOK).Object()
	entries, _ := timed["items"].([]any)
	if len(entries) != 1 {
		t.Fatalf("timed metadata %v", timed)
	}
	t.Logf("gap %+v marked as %v", g, entries[0])

	// An hour later (brought forward here) the live segments go: the
	// processed proxy and the original hold what they held.
	if _, err := api.DB.Exec(`UPDATE river_job SET scheduled_at = now() WHERE kind = 'purge_live_segments'`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		left := api.Count(t, `SELECT count(*) FROM live_recording_segments`)
		objs, _, err := api.Files.List(context.Background(), "", "", 10000)
		if err != nil {
			t.Fatal(err)
		}
		live := 0
		for _, o := range objs {
			if strings.Contains(o.Key, "/live/") {
				live++
			}
		}
		if left == 0 && live == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the purge: %d segments recorded, %d live files", left, live)
		}
	}
	it := a.Get(t, "/api/v1/items/"+whole).Status(http.StatusOK).Object()
	if proxy, _ := it["proxy"].(string); !strings.Contains(proxy, ".mp4") {
		t.Errorf("after the purge the proxy is %q", proxy)
	}
}
