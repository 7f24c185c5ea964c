package main

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/livetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// Two nodes; the one recording a live HLS source is killed with kill -9
// mid-recording. The
// other takes the recording's lease over and goes on into a new segment
// within a segment's length (4 s) of the kill; the recording completes,
// its one gap names the node change, and what was recorded before the
// kill is in the original.
func TestRecordingGoesOnAfterKill(t *testing.T) {
	mediatest.Need(t)
	dbURL := pgtest.DB(t)
	t.Setenv("DATABASE_URL", dbURL)
	env := nodeEnv(t, "LOUPE_LIVE_ALLOW_LOOPBACK=true")
	key := tenantKey(t, "rec")
	nodes := map[string]*node{}
	for _, name := range []string{"node-a", "node-b"} {
		nodes[name] = startNode(t, append(env, "LOUPE_INSTANCE_ID="+name), "127.0.0.1:"+strconv.Itoa(freePort(t)))
	}
	base := nodes["node-a"].base
	// (The nodes' first measurement of a pipeline makes no difference here:
	// an HLS source serves every reader.)
	// A source any number of readers may read (HLS): the next node
	// connects at once. (An SRT listener that takes one caller accepts the
	// next only once it has noticed the dead one, 5 s later.)
	src := livetest.NewHLSSource(t)

	p := gql(t, base, key, `mutation($in: LivePipelineInput!) { createLivePipeline(input: $in) { pipelineId } }`,
		map[string]any{"in": map[string]any{"pipelineName": "Feed", "sources": []any{map[string]any{"key": "main", "url": src}}}})
	pipeline := p["createLivePipeline"].(map[string]any)["pipelineId"].(string)
	r := gql(t, base, key, `mutation($in: ScheduleRecordingInput!) { scheduleRecording(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"pipelineId": pipeline, "title": "Crash", "durationSeconds": 24,
			"start": time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)}})
	id := r["scheduleRecording"].(map[string]any)["id"].(string)

	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type state struct {
		State, Node, Gaps string
		Recorded          float64
		Epoch             int
	}
	read := func() state {
		var s state
		if err := db.QueryRow(`SELECT state, lease_node, gaps::text, recorded_seconds, epoch FROM live_recordings`).
			Scan(&s.State, &s.Node, &s.Gaps, &s.Recorded, &s.Epoch); err != nil {
			t.Fatal(err)
		}
		return s
	}
	wait := func(what string, within time.Duration, ok func(state) bool) state {
		t.Helper()
		for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
			s := read()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %s: %+v", what, within, s)
			}
		}
	}
	before := wait("8 s recorded", 30*time.Second, func(s state) bool { return s.State == "recording" && s.Recorded >= 8 })
	nodes[before.Node].kill()
	killed := time.Now()
	other := "node-a"
	if before.Node == other {
		other = "node-b"
	}
	taken := wait("taken over", 10*time.Second, func(s state) bool { return s.Epoch > before.Epoch && s.Node == other })
	wait("a segment of the other node", 10*time.Second, func(s state) bool { return s.Recorded > before.Recorded+2 })
	t.Logf("recorded %.1f s on %s; taken over by %s", before.Recorded, before.Node, taken.Node)

	end := wait("complete", 60*time.Second, func(s state) bool { return s.State == "complete" || s.State == "failed" })
	var gaps []struct {
		From, To time.Time
		Reason   string
	}
	if err := json.Unmarshal([]byte(end.Gaps), &gaps); err != nil || end.State != "complete" || len(gaps) != 1 {
		t.Fatalf("after the kill: %+v (%v)", end, err)
	}
	g := gaps[0]
	t.Logf("gap %+v; media again %.1f s after the kill", g, g.To.Sub(killed).Seconds())
	if back := g.To.Sub(killed); back > 4*time.Second || !strings.Contains(g.Reason, before.Node) {
		t.Errorf("gap %+v: media again %.1f s after the kill, want within a segment (4 s)", g, back.Seconds())
	}
	// The recording holds what both nodes recorded: the whole less the gap.
	away := g.To.Sub(g.From).Seconds()
	if end.Recorded < before.Recorded || end.Recorded+away < 24-4 || end.Recorded+away > 24+4 {
		t.Errorf("recorded %.1f s with %.1f s away, of 24 s", end.Recorded, away)
	}
	// …and the surviving node processes it.
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		code, body := rest(t, "GET", nodes[other].base+"/api/v1/items/"+id, key, nil)
		var it struct{ TranscodingState string }
		json.Unmarshal(body, &it) //nolint:errcheck // checked below
		if it.TranscodingState == "complete" {
			break
		}
		if code != 200 || it.TranscodingState == "failed" || time.Now().After(deadline) {
			t.Fatalf("item: %d %s", code, body)
		}
	}
}
