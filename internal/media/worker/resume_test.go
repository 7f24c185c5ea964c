package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/store"
)

// resumeFixture is a database, a file store shared by two nodes' workers
// (as every node shares the server's store) and a video item of 12 s at
// 25 fps whose frames show their own index.
type resumeFixture struct {
	st           *store.Store
	files        blob.Store
	tenant, item string
}

func newResumeFixture(t *testing.T) *resumeFixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(store.DSN(pgtest.DB(t)), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := store.New(db)
	files, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ten, err := st.CreateTenant(ctx, "resume", "admin@resume.test", store.NewKey{ID: "0123456789abcdef0123456789abcdef", SecretHash: []byte("h"), Label: "k"})
	if err != nil {
		t.Fatal(err)
	}
	p := &loupe.Principal{TenantID: ten.TenantID, UserID: ten.UserID, IsAdmin: true}
	title, name := "Counter", "counter.mp4"
	it, err := st.CreateItem(ctx, p, &loupe.CreateItemInput{Title: &title, ItemType: "video", OriginalFileName: &name})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"color=c=gray:s=320x180:r=25:d=12,geq=lum='if(lt(Y,H/2),235*mod(floor(N/pow(2,floor(X/(W/12)))),2)+16,128)':cb=128:cr=128",
		"-f", "lavfi", "-i", "sine=frequency=440:duration=12", "-c:v", "libx264", "-preset", "ultrafast", "-g", "100",
		"-pix_fmt", "yuv420p", "-c:a", "aac", src).CombinedOutput(); err != nil {
		t.Fatalf("making the clip: %v %s", err, out)
	}
	key := loupe.ItemFilesPrefix(ten.TenantID, it.ID) + "original/u/" + name
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := files.Put(ctx, key, f); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE items SET media = jsonb_build_object('sourceFileLocation', $3::text) WHERE tenant_id = $1 AND id = $2`,
		ten.TenantID, it.ID, loupe.FileLocation(key)); err != nil {
		t.Fatal(err)
	}
	return &resumeFixture{st: st, files: files, tenant: ten.TenantID, item: it.ID}
}

// node is one node's worker, with 2 s segments (6 for the clip).
func (f *resumeFixture) node(t *testing.T, name string) *Worker {
	return &Worker{Store: f.st, Files: f.files, Sources: &sources.Sources{Store: f.st, Files: f.files}, Node: name,
		TempDir: t.TempDir(), Concurrency: 1, SegmentSeconds: 2}
}

func (f *resumeFixture) job(id int64, attempt int) *river.Job[jobs.ProcessArgs] {
	return &river.Job[jobs.ProcessArgs]{JobRow: &rivertype.JobRow{ID: id, Attempt: attempt, Queue: jobs.QueueBulk},
		Args: jobs.ProcessArgs{TenantID: f.tenant, ItemID: f.item, Steps: []string{"proxy"}, Probed: true, DurationSeconds: 12}}
}

// state is what the item shows of its processing.
func (f *resumeFixture) state(t *testing.T) (transcoding string, progress map[string]any, proxy string) {
	t.Helper()
	var p, g []byte
	if err := f.st.DB().QueryRow(`SELECT transcoding_state, media->'progressInfo', COALESCE(media->'generated', '{}')
		FROM items WHERE tenant_id = $1 AND id = $2`, f.tenant, f.item).Scan(&transcoding, &p, &g); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(p, &progress) //nolint:errcheck
	var gen store.GeneratedMedia
	json.Unmarshal(g, &gen) //nolint:errcheck
	return transcoding, progress, gen.File("proxy")
}

// checkProxy reads the proxy under key: 300 frames, each showing the
// source frame of its own index.
func (f *resumeFixture) checkProxy(t *testing.T, key string) {
	t.Helper()
	rc, _, _, err := f.files.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("the proxy %q: %v", key, err)
	}
	defer rc.Close()
	path := filepath.Join(t.TempDir(), "proxy.mp4")
	out, _ := os.Create(path)
	io.Copy(out, rc) //nolint:errcheck
	out.Close()
	const w, h = 96, 54
	raw, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-vf", fmt.Sprintf("scale=%d:%d", w, h),
		"-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := len(raw) / (w * h)
	if n != 300 {
		t.Fatalf("the proxy has %d frames, want 300", n)
	}
	for i := range n {
		fr, v := raw[i*w*h:(i+1)*w*h], 0
		for b := range 12 {
			if fr[(h/4)*w+int((float64(b)+0.5)*w/12)] > 128 {
				v |= 1 << b
			}
		}
		if v != i {
			t.Fatalf("proxy frame %d shows source frame %d", i, v)
		}
	}
}

// keys lists the blobs under prefix.
func (f *resumeFixture) keys(t *testing.T, prefix string) []string {
	objs, _, err := f.files.List(context.Background(), prefix, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, o := range objs {
		ks = append(ks, strings.TrimPrefix(o.Key, prefix))
	}
	return ks
}

// A node cut off after keeping 2 of the proxy's 6 segments goes on; the
// job's next attempt, on another node, reuses those 2 and encodes the 4
// others only, and its proxy is every frame once. The first attempt, when
// it comes back, can record nothing (its run key is no longer the item's)
// and leaves the result as the second made it; the job's segments are
// gone once it is done.
func TestTakenOverTranscodeResumes(t *testing.T) {
	mediatest.Need(t)
	ctx := context.Background()
	f := newResumeFixture(t)
	const jobID = 42

	a := f.node(t, "node-a")
	kept := make(chan int, 8)
	release := make(chan struct{})
	var once sync.Once
	a.keptHook = func(runKey string, i int) {
		kept <- i
		if i == 1 {
			<-release // cut off: the attempt hangs on, its ffmpeg too
		}
	}
	aDone := make(chan error, 1)
	go func() { aDone <- a.Work(ctx, f.job(jobID, 1)) }()
	for i := range 2 {
		if got := <-kept; got != i {
			t.Fatalf("node a kept segment %d, want %d", got, i)
		}
	}
	defer once.Do(func() { close(release) })

	b := f.node(t, "node-b")
	var made []int
	b.keptHook = func(runKey string, i int) {
		if runKey != "42.2" {
			t.Errorf("segment %d kept as run %s", i, runKey)
		}
		made = append(made, i)
	}
	if err := b.Work(ctx, f.job(jobID, 2)); err != nil {
		t.Fatal(err)
	}
	state, progress, proxy := f.state(t)
	if state != store.TranscodingComplete || progress["runKey"] != "42.2" {
		t.Fatalf("after the second attempt: %s, %v", state, progress)
	}
	if fmt.Sprint(made) != "[2 3 4 5]" {
		t.Errorf("the second attempt made segments %v, want [2 3 4 5] only", made)
	}
	if s, _ := progress["proxySegments"].(map[string]any); s["count"] != 6.0 || s["reused"] != 2.0 {
		t.Errorf("progressInfo.proxySegments %v, want 6 with 2 reused", s)
	}
	f.checkProxy(t, proxy)

	// The first attempt, fenced: a segment it would record now is refused.
	err := f.st.KeepProxySegment(ctx, f.tenant, f.item, jobID, "42.1", store.ProxySegment{Segment: 2, Plan: "p", Key: "k", SHA256: "s"})
	if !errors.Is(err, store.ErrStaleRun) {
		t.Fatalf("a stale attempt's segment: %v, want ErrStaleRun", err)
	}
	once.Do(func() { close(release) })
	if err := <-aDone; err != nil {
		t.Fatalf("the first attempt: %v (superseded ends quietly)", err)
	}
	if state, progress, p := f.state(t); state != store.TranscodingComplete || progress["runKey"] != "42.2" || p != proxy {
		t.Fatalf("after the first attempt came back: %s, %v, %s", state, progress, p)
	}
	if segs, err := f.st.ProxySegments(ctx, f.tenant, f.item, jobID); err != nil || len(segs) != 0 {
		t.Errorf("the job's checkpoint after it is done: %v %v", segs, err)
	}
	if ks := f.keys(t, store.ProxySegmentsPrefix(f.tenant, f.item, jobID)); len(ks) != 0 {
		t.Errorf("segments left behind: %v", ks)
	}
}

// A kept segment whose blob changed since (an earlier attempt that wrote
// it again, a damaged store) is not what its checkpoint row says: the next
// attempt reuses the segments before it and makes it again.
func TestChangedSegmentIsMadeAgain(t *testing.T) {
	mediatest.Need(t)
	ctx := context.Background()
	f := newResumeFixture(t)
	const jobID = 43

	a := f.node(t, "node-a")
	aCtx, die := context.WithCancel(ctx)
	a.keptHook = func(_ string, i int) {
		if i == 2 {
			die() // the node is gone
		}
	}
	a.Work(aCtx, f.job(jobID, 1)) //nolint:errcheck // it died
	segs, err := f.st.ProxySegments(ctx, f.tenant, f.item, jobID)
	if err != nil || len(segs) != 3 {
		t.Fatalf("the first attempt kept %v (%v), want 3", segs, err)
	}
	if _, err := f.files.Put(ctx, segs[1].Key, strings.NewReader("not the segment")); err != nil {
		t.Fatal(err)
	}

	b := f.node(t, "node-b")
	var made []int
	b.keptHook = func(_ string, i int) { made = append(made, i) }
	if err := b.Work(ctx, f.job(jobID, 2)); err != nil {
		t.Fatal(err)
	}
	state, progress, proxy := f.state(t)
	if state != store.TranscodingComplete {
		t.Fatalf("after the second attempt: %s, %v", state, progress)
	}
	if fmt.Sprint(made) != "[1 2 3 4 5]" {
		t.Errorf("the second attempt made segments %v, want [1 2 3 4 5]", made)
	}
	if s, _ := progress["proxySegments"].(map[string]any); s["reused"] != 1.0 {
		t.Errorf("progressInfo.proxySegments %v, want 1 reused", s)
	}
	f.checkProxy(t, proxy)
}
