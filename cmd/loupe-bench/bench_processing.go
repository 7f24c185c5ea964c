package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/bench/loadgen"
	"github.com/loupe-mam/loupe/internal/demo"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
)

// The processing side of the benchmark (issue 16): real clips made with
// ffmpeg's lavfi sources, uploaded through tus to a fresh `loupe serve` on
// local disk, timed from the upload's completion to the item's complete;
// beside the same ffmpeg commands run bare in one shell script, in the
// same run on the same machine.

// Scenario names of the processing rows.
const (
	procBare1080  = "process: 60 s 1080p, the same ffmpeg commands bare (reference)"
	procLoupe1080 = "process: 60 s 1080p through Loupe (upload complete → complete)"
	procTwo       = "process: two 60 s 1080p clips at once"
	procBare4K    = "process: 10 s 4K HDR (PQ, HEVC 10-bit), bare (reference)"
	procLoupe4K   = "process: 10 s 4K HDR through Loupe"
	procImages    = "process: 20 photos of 12 MP (upload + renditions)"
	procGetIdle   = "get item p99, idle"
	procGetBusy   = "get item p99, two transcodes running"
	procKilled    = "process: kill -9 mid-transcode, another node finishes"
)

// takeoverBound is how soon after a node's death its transcode must run
// again elsewhere (issue 34: within 30 s; internal/jobs/liveness.go takes
// it over after 15 s without a heartbeat, at the next 5 s beat).
const takeoverBound = 30 * time.Second

type procRow struct {
	Scenario string
	Took     time.Duration
	// MediaSeconds processed (0: not a media-time row).
	MediaSeconds float64
	Value        string // what the row measures when not time (p99, images/s)
	Note         string
	Unmeasured   string
}

func (r procRow) realtime() float64 {
	if r.Took <= 0 || r.MediaSeconds == 0 {
		return 0
	}
	return r.MediaSeconds / r.Took.Seconds()
}

// procClips are the bench's sources.
type procClips struct{ hd, uhd, photo string }

func makeClips(ctx context.Context, dir string) (procClips, error) {
	c := procClips{hd: filepath.Join(dir, "hd.mp4"), uhd: filepath.Join(dir, "uhd-hdr.mp4"), photo: filepath.Join(dir, "photo.jpg")}
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=60", "-f", "lavfi", "-i", "sine=frequency=440:duration=60",
			"-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", "-g", "60", "-c:a", "aac", "-shortest", c.hd},
		{"-f", "lavfi", "-i", "testsrc2=size=3840x2160:rate=25:duration=10", "-f", "lavfi", "-i", "sine=duration=10",
			"-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
			"-x265-params", "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc",
			"-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-tag:v", "hvc1",
			"-c:a", "aac", "-shortest", c.uhd},
		{"-f", "lavfi", "-i", "testsrc2=size=4000x3000", "-frames:v", "1", "-q:v", "3", c.photo},
	} {
		cmd := exec.CommandContext(ctx, "ffmpeg", append([]string{"-nostdin", "-loglevel", "error", "-y"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return c, fmt.Errorf("making %s: %v %s", args[len(args)-1], err, out)
		}
	}
	return c, nil
}

// bareScript is the shell script of the commands a video run executes,
// as the step table gives them (pipeline.Bare), at the media tools'
// priority.
func bareScript(ctx context.Context, in, dir string) (string, error) {
	p, err := media.ProbeFile(ctx, in)
	if err != nil {
		return "", err
	}
	lines := []string{"set -e"}
	for _, argv := range pipeline.Bare(in, dir, p) {
		q := make([]string, len(argv))
		for i, s := range argv {
			q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		lines = append(lines, "nice -n 19 "+strings.Join(q, " ")+" >/dev/null")
	}
	script := filepath.Join(dir, "bare.sh")
	return script, os.WriteFile(script, []byte(strings.Join(lines, "\n")+"\n"), 0o700)
}

func runBare(ctx context.Context, in, dir string) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	script, err := bareScript(ctx, in, dir)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if out, err := exec.CommandContext(ctx, "sh", script).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("bare script: %v %s", err, out)
	}
	return time.Since(start), nil
}

// procAPI talks to the bench's server as the seeded tenant, through the
// demo's client (the REST items and tus uploads any integration uses).
type procAPI struct {
	srv    *server
	apiKey string
}

func (a *procAPI) client() *demo.Client { return &demo.Client{URL: a.srv.url, APIKey: a.apiKey} }

// upload creates an item and sends the file as its original; it answers
// when the upload is complete (processing starts on its own).
func (a *procAPI) upload(ctx context.Context, path string) (string, time.Time, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", time.Time{}, err
	}
	name := filepath.Base(path)
	f := demo.File{Sample: demo.Sample{FileName: name, Title: "bench " + name, ItemType: "video"}, Path: path, Size: st.Size()}
	c := a.client()
	id, err := c.CreateItem(ctx, f)
	if err == nil {
		err = c.Upload(ctx, id, f)
	}
	return id, time.Now(), err
}

func (a *procAPI) get(ctx context.Context, id string) (*demo.Item, error) {
	return a.client().Item(ctx, id)
}

// watch is what polling an item every 50 ms saw, from since.
type watch struct {
	firstProgress, firstPoster, done time.Duration
	maxGap                           time.Duration // longest wait between two progress changes (step or percent)
	partial                          string        // a snapshot with outputs but not complete, if seen
	failed                           string
	etas                             []etaSeen // the time left the item said, as it went
}

// etaSeen is a time left an item said at a time, at a percent.
type etaSeen struct {
	at           time.Duration
	percent, eta float64
}

// etaError is the median error of the times left the item said once 10 %
// of the work was done (the goal: within 25 %), over those said with at
// least 3 s to go (the estimate is in whole seconds); -1 when none was.
func (w *watch) etaError() float64 {
	var errs []float64
	for _, e := range w.etas {
		if left := (w.done - e.at).Seconds(); e.percent >= 10 && left >= 3 {
			errs = append(errs, math.Abs(e.eta-left)/left)
		}
	}
	if len(errs) == 0 {
		return -1
	}
	slices.Sort(errs)
	return errs[len(errs)/2]
}

// follow polls the items until each is complete or failed (or timeout).
func (a *procAPI) follow(ctx context.Context, since time.Time, timeout time.Duration, ids ...string) (map[string]*watch, error) {
	ws := map[string]*watch{}
	last := map[string]string{}
	lastAt := map[string]time.Time{}
	for _, id := range ids {
		ws[id] = &watch{}
	}
	for deadline := since.Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		open := 0
		for _, id := range ids {
			w := ws[id]
			if w.done > 0 {
				continue
			}
			it, err := a.get(ctx, id)
			if err != nil {
				if time.Now().After(deadline) {
					return ws, err
				}
				open++ // a node being restarted
				continue
			}
			now := time.Since(since)
			// A change of step or percent is progress a client sees.
			if p := it.ProgressInfo; p != nil && p.Percent != nil && it.TranscodingState == "processing" &&
				fmt.Sprint(p.Step, *p.Percent) != last[id] {
				if w.firstProgress == 0 {
					w.firstProgress = now
				} else if gap := time.Since(lastAt[id]); gap > w.maxGap {
					w.maxGap = gap
				}
				last[id], lastAt[id] = fmt.Sprint(p.Step, *p.Percent), time.Now()
				w.etas = append(w.etas, etaSeen{at: now, percent: *p.Percent, eta: p.ETASeconds})
			}
			if it.Thumbnail != "" && w.firstPoster == 0 {
				w.firstPoster = now
			}
			if it.Proxy != "" && it.TranscodingState != "complete" && w.partial == "" && it.TranscodingState != "processing" {
				w.partial = fmt.Sprintf("proxy visible while %s", it.TranscodingState)
			}
			switch it.TranscodingState {
			case "complete":
				w.done = now
			case "failed":
				w.done, w.failed = now, "failed"
				if it.ProgressInfo != nil {
					w.failed = it.ProgressInfo.Error
				}
			default:
				open++
			}
		}
		if open == 0 {
			return ws, nil
		}
		if time.Now().After(deadline) {
			return ws, fmt.Errorf("not processed within %v", timeout)
		}
	}
}

// processingRows runs the processing scenarios on a fresh server of their
// own (local disk).
func processingRows(ctx context.Context, c benchConfig, dir, dbURL string, seeded *benchseed.Seeded, log io.Writer) []procRow {
	var rows []procRow
	add := func(r procRow) {
		fmt.Fprintf(log, "bench: %-66s %8v %6.2fx %s %s%s\n", r.Scenario, r.Took.Round(10*time.Millisecond), r.realtime(), r.Value, r.Note, r.Unmeasured)
		rows = append(rows, r)
	}
	fail := func(names []string, err error) []procRow {
		for _, n := range names {
			add(procRow{Scenario: n, Unmeasured: err.Error()})
		}
		return rows
	}
	all := []string{procBare1080, procLoupe1080, procTwo, procBare4K, procLoupe4K, procImages, procGetIdle, procGetBusy, procKilled}
	work := filepath.Join(dir, "processing")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return fail(all, err)
	}
	defer os.RemoveAll(work)
	fmt.Fprintln(log, "bench: making the processing clips with lavfi")
	clips, err := makeClips(ctx, work)
	if err != nil {
		return fail(all, err)
	}
	// The rows before left jobs in the queue (the ingest rows' 20,000 new
	// items, the upload rows' originals, each asking to be processed):
	// worked beside the clips, they took the slots the rows measure.
	if err := dropQueuedJobs(ctx, dbURL); err != nil {
		return fail(all, err)
	}
	env := []string{"LOUPE_BLOB_DIR=" + filepath.Join(work, "blobs")}
	srv, err := startServer(ctx, c.loupe, dbURL, false, log, env...)
	if err != nil {
		return fail(all, err)
	}
	defer func() { srv.stop() }()
	api := &procAPI{srv: srv, apiKey: seeded.APIKey}
	if c.only == "process-kill" {
		// The takeover row alone (issue 34).
		add(killed(ctx, c, api, &srv, clips.hd, dbURL, env))
		return rows
	}

	one := func(name, clip string, seconds float64) procRow {
		row := procRow{Scenario: name, MediaSeconds: seconds}
		id, at, err := api.upload(ctx, clip)
		if err != nil {
			row.Unmeasured = err.Error()
			return row
		}
		ws, err := api.follow(ctx, at, 10*time.Minute, id)
		w := ws[id]
		row.Took = w.done
		row.Note = fmt.Sprintf("first progress %v, then every ≤ %v; first poster %v; time left off by %.0f %% (median, after 10 %%)",
			w.firstProgress.Round(time.Millisecond), w.maxGap.Round(time.Millisecond), w.firstPoster.Round(time.Millisecond), w.etaError()*100)
		row.Unmeasured = errText(err) + w.failed + w.partial
		return row
	}

	switch c.only { // one row alone, for a quick look
	case "process: photos":
		add(photos(ctx, api, clips.photo, 20))
		return rows
	case "process: 4K":
		took, err := runBare(ctx, clips.uhd, filepath.Join(work, "bare-uhd"))
		add(procRow{Scenario: procBare4K, Took: took, MediaSeconds: 10, Unmeasured: errText(err)})
		add(one(procLoupe4K, clips.uhd, 10))
		return rows
	}
	getItem := c.only == "process: get item" // the get-item rows alone
	var took time.Duration
	if !getItem {
		took, err = runBare(ctx, clips.hd, filepath.Join(work, "bare-hd"))
		add(procRow{Scenario: procBare1080, Took: took, MediaSeconds: 60, Unmeasured: errText(err)})
		add(one(procLoupe1080, clips.hd, 60))
		if c.only == "process: 1080p" {
			return rows
		}
	}

	// Two at once, then two more under the get-item load.
	two := func(name string, during func()) procRow {
		row := procRow{Scenario: name, MediaSeconds: 120}
		a, _, err := api.upload(ctx, clips.hd)
		var b string
		var at time.Time
		if err == nil {
			b, at, err = api.upload(ctx, clips.hd)
		}
		if err != nil {
			row.Unmeasured = err.Error()
			return row
		}
		if during != nil {
			go during()
		}
		ws, err := api.follow(ctx, at, 10*time.Minute, a, b)
		row.Took = max(ws[a].done, ws[b].done)
		row.Unmeasured = errText(err) + ws[a].failed + ws[b].failed
		return row
	}
	if !getItem {
		add(two(procTwo, nil))
	}

	getLoad := getItemLoad(srv.url, seeded)
	getLoad.Concurrency, getLoad.Warmup, getLoad.Duration = c.concurrency, time.Second, 10*time.Second
	idle, err := loadgen.Run(ctx, getLoad)
	add(procRow{Scenario: procGetIdle, Value: ms(idle.P99), Unmeasured: errText(err)})
	busy := make(chan loadgen.Result, 1)
	twoBusy := two(procTwo+" (under the get-item load)", func() {
		time.Sleep(3 * time.Second) // both transcodes under way
		r, _ := loadgen.Run(ctx, getLoad)
		busy <- r
	})
	add(twoBusy)
	var b loadgen.Result
	select {
	case b = <-busy:
	case <-time.After(time.Minute):
	}
	add(procRow{Scenario: procGetBusy, Value: ms(b.P99), Note: fmt.Sprintf("%.2f× idle (%.0f req/s, %d errors)",
		float64(b.P99)/float64(max(idle.P99, 1)), b.RPS, b.Errors)})
	if getItem {
		return rows
	}

	took, err = runBare(ctx, clips.uhd, filepath.Join(work, "bare-uhd"))
	add(procRow{Scenario: procBare4K, Took: took, MediaSeconds: 10, Unmeasured: errText(err)})
	add(one(procLoupe4K, clips.uhd, 10))
	add(photos(ctx, api, clips.photo, 20))
	add(killed(ctx, c, api, &srv, clips.hd, dbURL, env))
	for _, r := range analysisRows(ctx, work) {
		add(r)
	}
	return rows
}

// dropQueuedJobs deletes the jobs no worker has finished.
func dropQueuedJobs(ctx context.Context, dbURL string) error {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `DELETE FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')`)
	return err
}

// photos uploads n photos one after the other and waits for all: images/s
// from the first upload's start to the last item complete.
func photos(ctx context.Context, api *procAPI, photo string, n int) procRow {
	row := procRow{Scenario: procImages}
	start := time.Now()
	ids := make([]string, 0, n)
	for range n {
		id, _, err := api.upload(ctx, photo)
		if err != nil {
			row.Unmeasured = err.Error()
			return row
		}
		ids = append(ids, id)
	}
	ws, err := api.follow(ctx, start, 5*time.Minute, ids...)
	for _, w := range ws {
		row.Took = max(row.Took, w.done)
		row.Unmeasured += w.failed
	}
	row.Unmeasured += errText(err)
	if row.Took > 0 {
		row.Value = fmt.Sprintf("%.1f images/s", float64(n)/row.Took.Seconds())
	}
	return row
}

// killed uploads the 60 s clip, kills the node (SIGKILL) once the transcode
// is a fifth done, starts another and measures when the new node takes the
// transcode over (its progress starts again: within takeoverBound), when
// the item is complete, and how many of the proxy's segments the new node
// reused rather than encoded again (the run's last progressInfo).
func killed(ctx context.Context, c benchConfig, api *procAPI, srv **server, clip, dbURL string, env []string) procRow {
	row := procRow{Scenario: procKilled, MediaSeconds: 60}
	id, at, err := api.upload(ctx, clip)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	var percent float64
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		it, err := api.get(ctx, id)
		if err != nil || time.Now().After(deadline) {
			row.Unmeasured = fmt.Sprintf("the transcode did not get under way: %v", err)
			return row
		}
		if p := it.ProgressInfo; p != nil && p.Percent != nil && it.TranscodingState == "processing" && *p.Percent >= 20 {
			percent = *p.Percent
			break
		}
	}
	killedAt := time.Since(at)
	// The node's ffmpeg runs in a process group of its own and outlives
	// it: kill it too, as the crash of a machine would — the node's own
	// processes only, found while the node is stopped (no new one starts),
	// not every ffmpeg of the machine.
	syscall.Kill((*srv).pid, syscall.SIGSTOP) //nolint:errcheck
	under := descendants((*srv).pid)
	syscall.Kill((*srv).pid, syscall.SIGKILL) //nolint:errcheck
	for _, pid := range under {
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck
	}
	(*srv).stop()
	next, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, env...)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	*srv, api.srv = next, next
	// Taken over: the new node's run writes its own progress, from 0.
	var takenOver time.Duration
	for deadline := time.Now().Add(takeoverBound + time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		it, err := api.get(ctx, id)
		if err != nil {
			continue
		}
		if p := it.ProgressInfo; it.TranscodingState != "processing" || (p != nil && p.Percent != nil && *p.Percent < percent) {
			takenOver = time.Since(at) - killedAt
			break
		}
	}
	ws, err := api.follow(ctx, at, killedAt+takeoverBound+5*time.Minute, id)
	w := ws[id]
	row.Took = w.done
	row.Value = fmt.Sprintf("taken over %.1f s after the kill", takenOver.Seconds())
	if it, err := api.get(ctx, id); err == nil && it.ProgressInfo != nil && it.ProgressInfo.ProxySegments != nil {
		// What the taken-over run did not encode again (issue 34).
		ps := it.ProgressInfo.ProxySegments
		row.Value += fmt.Sprintf("; proxy segments reused %d/%d", ps.Reused, ps.Count)
	} else {
		row.Value += "; proxy segments reused: none said"
	}
	row.Note = fmt.Sprintf("killed at %v (%.0f %%); taken over %v after the kill (bound %v); complete %v after it",
		killedAt.Round(time.Millisecond), percent, takenOver.Round(time.Millisecond), takeoverBound,
		(w.done - killedAt).Round(time.Millisecond))
	row.Unmeasured = errText(err) + w.failed + w.partial
	if row.Unmeasured == "" && (takenOver == 0 || takenOver > takeoverBound) {
		row.Unmeasured = "not taken over within the bound: " + row.Note
	}
	return row
}

// descendants are the processes under pid (its children, theirs…), as
// /proc says.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(f[1])
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

// processingReport renders the processing rows and their ratios.
func processingReport(rows []procRow) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Processing, analysis, renders and transfers (issues 16, 17, 31)\n\n| scenario | time | realtime | value | note |\n|---|---:|---:|---|---|\n")
	by := map[string]procRow{}
	for _, r := range rows {
		by[r.Scenario] = r
		rt := ""
		if r.realtime() > 0 {
			rt = fmt.Sprintf("%.2f×", r.realtime())
		}
		took := ""
		if r.Took > 0 {
			took = fmt.Sprintf("%.2f s", r.Took.Seconds())
		}
		note := r.Note
		if r.Unmeasured != "" {
			note = "**not measured: " + oneLine(r.Unmeasured) + "** " + note
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Scenario, took, rt, r.Value, note)
	}
	if bare, l := by[procBare1080], by[procLoupe1080]; bare.Took > 0 && l.Took > 0 {
		fmt.Fprintf(&b, "\nLoupe's overhead over the bare commands (60 s 1080p): %+.1f %% (goal ≤ 5 %%, ≤ 15 s).\n",
			100*(l.Took.Seconds()/bare.Took.Seconds()-1))
	}
	if bare, l := by[procBare4K], by[procLoupe4K]; bare.Took > 0 && l.Took > 0 {
		fmt.Fprintf(&b, "4K HDR: Loupe %.2f× realtime, bare %.2f× (goal ≥ 1.0×).\n", l.realtime(), bare.realtime())
	}
	if bare, l := by[renderBare], by[renderLoupe]; bare.Took > 0 && l.Took > 0 {
		fmt.Fprintf(&b, "Render: Loupe at %.2f× the speed of the same ffmpeg command bare (goal ≥ 0.9).\n",
			bare.Took.Seconds()/l.Took.Seconds())
	}
	if sdk, l := by[transferSDK], by[transferLoupe]; sdk.Took > 0 && l.Took > 0 {
		fmt.Fprintf(&b, "Transfer: Loupe at %.2f× the speed of the AWS SDK putting the same file directly (goal ≥ 0.8).\n",
			sdk.Took.Seconds()/l.Took.Seconds())
	}
	return b.String()
}
