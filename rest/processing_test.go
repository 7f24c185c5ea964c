package rest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// withOriginal uploads data through tus as the item's original and
// answers once the upload is complete (its processing starts on its own).
func withOriginal(t *testing.T, api *loupetest.API, a *loupetest.Client, itemID, name string, data []byte) {
	t.Helper()
	tus := &tusclient.Client{Endpoint: api.URL + "/api/v1/uploads/", APIKey: a.Key}
	up, err := tus.Create(context.Background(), int64(len(data)), map[string]string{"filename": name, "itemId": itemID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tus.Patch(context.Background(), up, 0, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
}

// waitState polls the item until its transcodingState is one of want.
func waitState(t *testing.T, api *loupetest.API, a *loupetest.Client, itemID string, seen func(map[string]any), want ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		it := a.Get(t, "/api/v1/items/"+itemID).Status(http.StatusOK).Object()
		if seen != nil {
			seen(it)
		}
		for _, w := range want {
			if it["transcodingState"] == w {
				return it
			}
		}
		if time.Now().After(deadline) {
			var errs []string
			api.DB.Select(&errs, `SELECT kind || ' ' || state || ' ' || coalesce(encode(unique_key, 'hex'), '') || ' ' || coalesce(unique_states::text, '') || ' ' || args::text || coalesce(errors::text, '') FROM river_job`) //nolint:errcheck
			t.Fatalf("item %s still %v: %v; jobs: %v", itemID, it["transcodingState"], it["progressInfo"], errs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitJobsDone waits until no job waits or runs (the outputs a run
// replaced are deleted just after its item shows complete).
func waitJobsDone(t *testing.T, api *loupetest.API) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var n int
		if err := api.DB.Get(&n, `SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')`); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs still waiting or running", n)
		}
	}
}

// fetch GETs a link without credentials.
func fetch(t *testing.T, link string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// lavfiClip makes a test file with ffmpeg (lavfi sources in args) and
// answers its bytes.
func lavfiClip(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("ffmpeg", append(append([]string{"-nostdin", "-loglevel", "error"}, args...), out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making %s: %v %s", name, err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkStrip loads the strip's WebVTT map and the last sheet it names,
// relative to the map's own link.
func checkStrip(t *testing.T, strip string) {
	t.Helper()
	resp, body := fetch(t, strip)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "WEBVTT") {
		t.Fatalf("strip map: %d %.60s", resp.StatusCode, body)
	}
	cue := strings.Split(strings.TrimSpace(string(body)), "\n")
	sheetRef, _, _ := strings.Cut(cue[len(cue)-1], "#")
	base, _ := url.Parse(strip)
	sheet, _ := base.Parse(sheetRef)
	if resp, _ := fetch(t, sheet.String()); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("strip sheet %s: %d", sheetRef, resp.StatusCode)
	}
}

// POST /api/v1/process runs the real pipeline on an item's original: the
// item moves queued → processing (progress readable) → complete, its
// fields come from what was made (signed links that serve playable media,
// a strip whose map's sheets load, thumbnails by position), and a re-run
// replaces the outputs without leaving the old ones.
func TestProcessItem(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=1280x720:rate=30:duration=6", "-f", "lavfi", "-i", "sine=duration=6", "-c:v", "libx264",
		"-preset", "ultrafast", "-c:a", "aac", "-shortest", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	withOriginal(t, api, a, item, "clip.mp4", data)

	// Errors first: nothing queued by them.
	a.Post(t, "/api/v1/process", map[string]any{"itemId": loupetestID}).
		Envelope(500, "Item not found ("+loupetestID+" of "+a.TenantID+")")
	b.Post(t, "/api/v1/process", map[string]any{"itemId": item}).
		Envelope(500, "Item not found ("+item+" of "+b.TenantID+")")
	for _, body := range []any{"{", "", map[string]any{"itemId": item, "steps": []string{"x"}}} {
		a.Post(t, "/api/v1/process", body).Envelope(400, msgInvalidSyntaxST)
	}
	empty := a.CreateItem(t, map[string]any{"title": "Empty", "itemType": "video"})
	a.Post(t, "/api/v1/process", map[string]any{"itemId": empty}).Envelope(400, msgInvalidSyntaxST)

	got := a.Post(t, "/api/v1/process", map[string]any{"itemId": item}).Status(http.StatusOK).Object()
	if got["transcodingState"] != "queued" || got["itemId"] != item {
		t.Fatalf("process: %v", got)
	}
	var progress []float64
	it := waitState(t, api, a, item, func(it map[string]any) {
		if p, ok := it["progressInfo"].(map[string]any); ok && it["transcodingState"] == "processing" {
			if pct, ok := p["percent"].(float64); ok {
				progress = append(progress, pct)
			}
		}
	}, "complete", "failed")
	if it["transcodingState"] != "complete" || it["itemState"] != "ready" || it["hasProxy"] != true {
		t.Fatalf("processed item: %v %v %v %v", it["transcodingState"], it["itemState"], it["hasProxy"], it["progressInfo"])
	}
	t.Logf("progress seen while processing: %v", progress)
	tech, _ := it["technicalMetadata"].(map[string]any)
	if v, _ := tech["video"].(map[string]any); v["width"] != 1280.0 || v["codec"] != "h264" {
		t.Fatalf("technicalMetadata: %v", tech)
	}
	if it["frameCount"] != 180.0 {
		t.Errorf("frameCount %v", it["frameCount"])
	}

	// The proxy: a signed link serving playable H.264 ≤ 720 lines.
	resp, body := fetch(t, it["proxy"].(string))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "video/mp4" || it["proxySize"] != float64(len(body)) {
		t.Fatalf("proxy: %d %s, %d bytes (proxySize %v)", resp.StatusCode, resp.Header.Get("Content-Type"), len(body), it["proxySize"])
	}
	pf := filepath.Join(t.TempDir(), "proxy.mp4")
	os.WriteFile(pf, body, 0o600) //nolint:errcheck
	pp, err := media.ProbeFile(context.Background(), pf)
	if err != nil || pp.Video() == nil || pp.Video().Height != 720 || pp.Audio() == nil {
		t.Fatalf("proxy probe: %v %+v", err, pp)
	}
	if resp, _ := fetch(t, it["thumbnail"].(string)); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("poster: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// The strip's map names its sheets relative to itself: they load.
	checkStrip(t, it["thumbnailStrip"].(string))
	// Thumbnails by position, from the keyframes (every 2 s).
	var page struct {
		Thumbnails []map[string]any `json:"thumbnails"`
	}
	a.Get(t, "/api/v1/items/"+item+"/thumbnails/urls").Status(http.StatusOK).JSON(&page)
	if len(page.Thumbnails) != 3 || page.Thumbnails[1]["positionMs"] != 2000.0 {
		t.Fatalf("thumbnails: %v", page.Thumbnails)
	}
	at := a.Get(t, "/api/v1/items/"+item+"/thumbnail/4.5").Status(http.StatusOK).Object()
	if at["positionMs"] != 4000.0 {
		t.Fatalf("thumbnail at 4.5 s: %v", at)
	}
	// GraphQL: the same item, the waveform too.
	var g struct {
		Item map[string]any `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { transcodingState proxy waveformUrl waveformImageUrl hasProxy } }`,
		map[string]any{"id": item}).OK(&g)
	if resp, body := fetch(t, g.Item["waveformUrl"].(string)); resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"samples_per_pixel"`)) {
		t.Fatalf("waveform: %d %.80s", resp.StatusCode, body)
	}

	// A re-run replaces the outputs: one run's prefix left in storage.
	waitJobsDone(t, api)
	first := a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK).Object()["proxy"]
	a.Post(t, "/api/v1/process", map[string]any{"itemId": item, "steps": []string{"proxy"}}).Status(http.StatusOK)
	waitJobsDone(t, api)
	it = waitState(t, api, a, item, nil, "complete", "failed")
	if it["proxy"] == first || it["transcodingState"] != "complete" {
		t.Fatalf("re-run: %v", it["progressInfo"])
	}
	objs, _, err := api.Files.List(context.Background(), "media/"+a.TenantID+"/"+item+"/generated/", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]bool{}
	for _, o := range objs {
		runs[strings.Split(strings.TrimPrefix(o.Key, "media/"+a.TenantID+"/"+item+"/generated/"), "/")[0]] = true
	}
	if len(runs) != 1 {
		t.Fatalf("generated runs left in storage: %v", runs)
	}
}

// A new video shows a poster long before its proxy: one keyframe of the
// original, from the probe phase; the whole set replaces it and its file.
func TestEarlyPoster(t *testing.T) {
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	data := lavfiClip(t, "long.mp4", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=20",
		"-c:v", "libx264", "-preset", "ultrafast")
	item := a.CreateItem(t, map[string]any{"title": "Long", "itemType": "video"})
	withOriginal(t, api, a, item, "long.mp4", data)
	var early any
	it := waitState(t, api, a, item, func(it map[string]any) {
		if early == nil && it["thumbnail"] != nil && it["transcodingState"] != "complete" {
			early = it["thumbnail"]
			if it["hasProxy"] == true || it["thumbnailStrip"] != nil {
				t.Errorf("the early poster came with a partial set: %v", it)
			}
			if resp, _ := fetch(t, early.(string)); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
				t.Errorf("early poster: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
	}, "complete", "failed")
	if early == nil || it["thumbnail"] == early || it["transcodingState"] != "complete" {
		t.Fatalf("early poster %v, then %v (%v)", early, it["thumbnail"], it["transcodingState"])
	}
	waitJobsDone(t, api)
	objs, _, err := api.Files.List(context.Background(), "media/"+a.TenantID+"/"+item+"/generated/", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if strings.Contains(o.Key, "/early-") {
			t.Fatalf("the early poster outlived the set: %s", o.Key)
		}
	}
}

// Broken files fail with a reason a person can act on — in REST, in
// GraphQL, in the audit trail and in the metering — and nothing is made of
// them; a file that is merely not media is kept and says what it is; a
// duration a corrupt index reports is not taken as fact.
func TestProcessBrokenFiles(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	clip := filepath.Join(t.TempDir(), "c.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-preset", "ultrafast", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	moov := bytes.Index(data, []byte("moov")) - 4
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	f, _ := zw.Create("notes.txt")
	f.Write([]byte("scene 1, take 2")) //nolint:errcheck
	zw.Close()
	junk := make([]byte, 64<<10)
	rand.Read(junk) //nolint:errcheck

	cases := []struct {
		name, file string
		data       []byte
		state      string // transcodingState
		says       string // in progressInfo.error (failed) or progressInfo.message (skipped)
	}{
		{"cut before its index", "cut.mp4", data[:moov/2], "failed", "truncated: the file ends at 50 % of its media data (mdat)"},
		{"cut in its index", "cut2.mp4", data[:moov+30], "failed", "truncated: the file ends at"},
		{"text named as a film", "film.mov", []byte(strings.Repeat("INT. KITCHEN - NIGHT\n", 40)), "failed",
			"not a media file: looks like plain text, though its name (film.mov) says media"},
		{"a 22-year index", "years.mp4", mediatest.CorruptDuration(t, data), "complete", ""},
		{"an archive", "notes.zip", zipped.Bytes(), "skipped", "not media: a ZIP archive; nothing to make"},
		{"random bytes", "junk.bin", junk, "skipped", "not media: data of no known kind"},
	}
	ids := map[string]string{}
	for _, c := range cases {
		ids[c.name] = a.CreateItem(t, map[string]any{"title": c.name, "itemType": "video"})
		withOriginal(t, api, a, ids[c.name], c.file, c.data)
	}
	for _, c := range cases {
		it := waitState(t, api, a, ids[c.name], nil, "complete", "failed", "skipped")
		p, _ := it["progressInfo"].(map[string]any)
		if it["transcodingState"] != c.state {
			t.Fatalf("%s: %v %v, want %s", c.name, it["transcodingState"], p, c.state)
		}
		switch c.state {
		case "failed":
			if msg, _ := p["error"].(string); !strings.Contains(msg, c.says) || it["itemState"] != "failed" || it["hasProxy"] != false {
				t.Fatalf("%s: itemState %v, progress %v; want the error %q", c.name, it["itemState"], p, c.says)
			}
		case "skipped":
			tech, _ := it["technicalMetadata"].(map[string]any)
			if msg, _ := p["message"].(string); !strings.Contains(msg, c.says) || it["itemState"] != "ready" ||
				it["hasProxy"] != false || tech["kind"] != "other" || tech["detectedType"] == "" {
				t.Fatalf("%s: itemState %v, progress %v, technical %v; want %q", c.name, it["itemState"], p, tech, c.says)
			}
		case "complete":
			tech, _ := it["technicalMetadata"].(map[string]any)
			warnings, _ := tech["warnings"].([]any)
			if d, _ := tech["durationSeconds"].(float64); d < 3.9 || d > 4.1 || len(warnings) != 1 || it["hasProxy"] != true {
				t.Fatalf("%s: duration %v, warnings %v, hasProxy %v", c.name, tech["durationSeconds"], warnings, it["hasProxy"])
			}
		}
	}

	// GraphQL says the same.
	var g struct {
		Item struct {
			TranscodingState string
			ItemState        string
			ProgressInfo     map[string]any
		}
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { transcodingState itemState progressInfo } }`,
		map[string]any{"id": ids["text named as a film"]}).OK(&g)
	if g.Item.TranscodingState != "failed" || g.Item.ItemState != "failed" ||
		!strings.Contains(fmt.Sprint(g.Item.ProgressInfo["error"]), "looks like plain text") {
		t.Fatalf("GraphQL: %+v", g.Item)
	}

	// Each failure is audited, with its reason.
	var res struct {
		Total int `json:"total"`
		Hits  []struct {
			ItemID  string         `json:"itemId"`
			MdfDiff map[string]any `json:"mdfDiff"`
		} `json:"hits"`
	}
	a.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?actionType=processingFailed").Status(http.StatusOK).JSON(&res)
	if res.Total != 3 {
		t.Fatalf("%d processingFailed records, want 3: %+v", res.Total, res.Hits)
	}
	for _, h := range res.Hits {
		if h.ItemID == ids["cut before its index"] && !strings.Contains(fmt.Sprint(h.MdfDiff["reason"]), "truncated") {
			t.Fatalf("audited reason %v", h.MdfDiff)
		}
	}

	// And metered: three failed runs, one run with outputs (the 22-year
	// index); the skipped files did no work.
	tr := readMetering(t, a, "").MeteringInfo.OperationData["transcoding"]
	if p := tr.ByProvider["loupe-ffmpeg"]; p["failed"] != float64(3) || p["count"] != float64(1) {
		t.Fatalf("metering %v", tr.ByProvider)
	}
}

// An upload through tus is processed without being asked: the clip's
// proxy and poster appear on the item.
func TestUploadIsProcessed(t *testing.T) {
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	clip := filepath.Join(t.TempDir(), "clip.mov")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=640x360:rate=25:duration=4", "-c:v", "mpeg4", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	item := a.CreateItem(t, map[string]any{"title": "Uploaded", "itemType": "video"})
	tus := &tusclient.Client{Endpoint: api.URL + "/api/v1/uploads/", APIKey: a.Key}
	up, err := tus.Create(context.Background(), int64(len(data)), map[string]string{"filename": "clip.mov", "itemId": item})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tus.Patch(context.Background(), up, 0, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	it := waitState(t, api, a, item, nil, "complete", "failed")
	if it["transcodingState"] != "complete" || it["hasProxy"] != true || it["thumbnail"] == nil || it["mediaType"] != "video/quicktime" {
		t.Fatalf("uploaded clip: %v %v %v %v", it["transcodingState"], it["hasProxy"], it["mediaType"], it["progressInfo"])
	}
	// Two phases, each a job: the probe handed over the clip's duration,
	// which sizes the transcode's timeout (internal/media/worker).
	waitJobsDone(t, api)
	var phases []struct {
		State    string   `db:"state"`
		Probed   bool     `db:"probed"`
		Duration *float64 `db:"duration"`
	}
	if err := api.DB.Select(&phases, `SELECT state, COALESCE((args->>'probed')::bool, false) AS probed,
		(args->>'durationSeconds')::float8 AS duration FROM river_job WHERE kind = 'process_item' AND args->>'itemId' = $1 ORDER BY id`, item); err != nil {
		t.Fatal(err)
	}
	if len(phases) != 2 || phases[0].Probed || !phases[1].Probed || phases[1].State != "completed" ||
		phases[1].Duration == nil || *phases[1].Duration < 3.9 || *phases[1].Duration > 4.1 {
		t.Fatalf("processing jobs: %+v", phases)
	}
}

// An object ingested in place is processed from its bucket, with the
// ingest configuration's credentials: the original is never copied, the
// outputs land in Loupe's store.
func TestIngestedObjectIsProcessed(t *testing.T) {
	mediatest.Need(t)
	cfg := s3test.Bucket(t)
	clip := filepath.Join(t.TempDir(), "cam.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=640x360:rate=25:duration=3", "-f", "lavfi", "-i", "sine=duration=3", "-c:v", "libx264",
		"-preset", "ultrafast", "-c:a", "aac", "-shortest", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	data, _ := os.ReadFile(clip)
	putObjects(t, cfg.Bucket, map[string]string{"in/cam.mp4": string(data)})
	api, _ := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	id := a.Post(t, icPath, icBody(cfg, nil)).Status(http.StatusOK).Object()["id"].(string)
	got := a.Post(t, "/ingest/api/v1/ingestFile", map[string]any{"ingestStorageConfigId": id, "key": "in/cam.mp4"}).
		Status(http.StatusOK).Object()
	item := got["itemId"].(string)
	it := waitState(t, api, a, item, nil, "complete", "failed")
	if it["transcodingState"] != "complete" || it["hasProxy"] != true || it["sourceFileLocation"] != "s3://"+cfg.Bucket+"/in/cam.mp4" {
		t.Fatalf("ingested clip: %v %v %v %v", it["transcodingState"], it["hasProxy"], it["sourceFileLocation"], it["progressInfo"])
	}
	if resp, _ := fetch(t, it["proxy"].(string)); resp.StatusCode != 200 {
		t.Fatalf("proxy: %d", resp.StatusCode)
	}
}
