package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/mediabench"
	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// The media side of the benchmark (issue 15): one upload of --upload-bytes
// through Loupe's tus endpoint, to local disk and to an S3 server, each
// beside its reference measured in the same run on the same disk or server;
// then the same upload cut halfway, the server restarted, and resumed.

// tusPath is Loupe's tus creation endpoint (docs/uploads.md).
const tusPath = "/api/v1/uploads/"

// Scenario names of the media rows (the ratios name them).
const (
	uploadPlain     = "upload: plain HTTP to a file + fsync (reference)"
	uploadLoupeDisk = "upload: tus through Loupe to local disk"
	uploadSDK       = "upload: AWS SDK transfer manager to S3 (reference)"
	uploadLoupeS3   = "upload: tus through Loupe to S3"
	uploadResume    = "upload: cut at half, server restarted, resumed"
	uploadBig       = "upload: large file to local disk, cut at half, server restarted, resumed"
)

type mediaRow struct {
	Scenario   string
	Bytes      int64
	Took       time.Duration
	RSSGrowth  float64 // MiB; 0 for references
	Note       string
	Unmeasured string
}

func (r mediaRow) mibps() float64 {
	if r.Took <= 0 {
		return 0
	}
	return float64(r.Bytes) / (1 << 20) / r.Took.Seconds()
}

// mediaRows runs the media scenarios against a fresh `loupe serve` per
// storage (the load scenarios' server keeps its own). Their files go to
// the disk (the system's temporary directory; s3test's server keeps its
// data there too), not where the bench's database is: that is /dev/shm
// when it fits.
func mediaRows(ctx context.Context, c benchConfig, dbURL, apiKey string, log io.Writer, ingest *[]ingestRow) []mediaRow {
	dir, err := os.MkdirTemp("", "loupe-bench-media-")
	if err != nil {
		return []mediaRow{{Scenario: uploadPlain, Unmeasured: err.Error()}}
	}
	defer os.RemoveAll(dir)
	size := c.uploadBytes
	want := mediabench.NewSource(1, size).SHA256()
	var rows []mediaRow
	add := func(r mediaRow) {
		fmt.Fprintf(log, "bench: %-50s %8.1f MiB/s  RSS +%.0f MiB %s%s\n", r.Scenario, r.mibps(), r.RSSGrowth, r.Note, r.Unmeasured)
		rows = append(rows, r)
	}

	settleDisk()
	took, err := mediabench.PlainUpload(ctx, dir, mediabench.NewSource(1, size), size)
	add(mediaRow{Scenario: uploadPlain, Bytes: size, Took: took, Unmeasured: errText(err)})

	blobs := filepath.Join(dir, "loupe-blobs")
	srv, err := startServer(ctx, c.loupe, dbURL, c.profileDir != "", log, "LOUPE_BLOB_DIR="+blobs)
	if err != nil {
		return append(rows, mediaRow{Scenario: uploadLoupeDisk, Unmeasured: err.Error()})
	}
	defer srv.stop() // resumedUpload stops it before; stopping twice is harmless
	settleDisk()
	add(loupeUpload(ctx, c, log, uploadLoupeDisk, srv, apiKey, size, want))
	settleDisk()
	add(resumedUpload(ctx, c, uploadResume, srv, dbURL, apiKey, size, want, "LOUPE_BLOB_DIR="+blobs))
	if c.bigUpload > 0 {
		add(bigUpload(ctx, c, dir, dbURL, apiKey, log, "LOUPE_BLOB_DIR="+blobs))
	}
	os.RemoveAll(blobs) //nolint:errcheck // the bench's own directory

	s3srv, err := s3test.Launch()
	if err != nil {
		return append(rows, mediaRow{Scenario: uploadSDK, Unmeasured: err.Error()},
			mediaRow{Scenario: uploadLoupeS3, Unmeasured: err.Error()})
	}
	defer s3srv.Stop()
	bucket, err := s3srv.NewBucket(ctx)
	if err != nil {
		return append(rows, mediaRow{Scenario: uploadSDK, Unmeasured: err.Error()})
	}
	settleDisk()
	took, err = mediabench.SDKUpload(ctx, bucket, "reference/sdk-upload", mediabench.NewSource(1, size))
	add(mediaRow{Scenario: uploadSDK, Bytes: size, Took: took, Unmeasured: errText(err)})
	s3env := []string{"LOUPE_S3_ENDPOINT=" + bucket.Endpoint, "LOUPE_S3_REGION=" + bucket.Region,
		"LOUPE_S3_BUCKET=" + bucket.Bucket, "LOUPE_S3_PATH_STYLE=true",
		"LOUPE_S3_ACCESS_KEY_ID=" + bucket.AccessKeyID, "LOUPE_S3_SECRET_ACCESS_KEY=" + bucket.SecretAccessKey}
	srv3, err := startServer(ctx, c.loupe, dbURL, c.profileDir != "", log, s3env...)
	if err != nil {
		return append(rows, mediaRow{Scenario: uploadLoupeS3, Unmeasured: err.Error()})
	}
	settleDisk()
	add(loupeUpload(ctx, c, log, uploadLoupeS3, srv3, apiKey, size, want))
	srv3.stop()
	// The ingest scan reaches the bucket on loopback (a private address)
	// with key-user credentials the server seals.
	if !strings.HasPrefix(c.only, "upload") { // --only upload: the uploads alone
		ingestEnv := append(s3env, "LOUPE_STORAGE_ALLOW_PRIVATE=true")
		*ingest = ingestRows(ctx, c, s3srv, dbURL, apiKey, c.ingestObjects, ingestEnv)
	}
	return rows
}

// settleDisk writes out what earlier steps left in the page cache, so that
// no row pays for the writeback of the one before (the reference's speed
// swung from 0.3 to 1.2 GiB/s without it).
func settleDisk() { syscall.Sync() }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// newItem creates the item an upload goes to.
func newItem(ctx context.Context, base, apiKey, title string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/items",
		strings.NewReader(`{"itemType":"video","title":"`+title+`"}`))
	if err != nil {
		return "", err
	}
	req.Header = authHeader(apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var item struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&item); err != nil || item.ID == "" {
		return "", fmt.Errorf("create item: %s %v", resp.Status, err)
	}
	return item.ID, nil
}

// loupeUpload sends one upload of size bytes in a single PATCH, as
// tus-js-client does by default, timing create to completion and watching
// the server's memory (and profiling it over the upload's first seconds
// with --profile).
func loupeUpload(ctx context.Context, c benchConfig, log io.Writer, name string, srv *server, apiKey string, size int64, want string) mediaRow {
	row := mediaRow{Scenario: name, Bytes: size}
	itemID, err := newItem(ctx, srv.url, apiKey, "bench upload")
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	tus := &tusclient.Client{Endpoint: srv.url + tusPath, APIKey: apiKey}
	rss := mediabench.WatchRSS(srv.pid)
	pc := c
	pc.warmup, pc.duration = 200*time.Millisecond, 5*time.Second
	profiled := profileServer(ctx, pc, srv, name, log)
	defer func() { <-profiled }()
	start := time.Now()
	up, err := tus.Create(ctx, size, map[string]string{"filename": "bench.bin", "itemId": itemID})
	if err == nil {
		_, err = tus.Patch(ctx, up, 0, mediabench.NewSource(1, size), size)
	}
	row.Took = time.Since(start)
	row.RSSGrowth = rss()
	if c.profileDir != "" { // what the server holds after the upload
		saveProfile(srv.pprof+"/debug/pprof/heap?gc=1", filepath.Join(c.profileDir, "heap-after-"+slug(name)+".pprof"), log)
	}
	if err == nil {
		err = checkUploaded(ctx, srv.url, apiKey, itemID, size, want)
	}
	row.Unmeasured = errText(err)
	return row
}

// resumedUpload cuts an upload halfway (the client's connection drops),
// restarts the server, asks it the offset and sends the rest: the time is
// the whole, restart included.
func resumedUpload(ctx context.Context, c benchConfig, name string, srv *server, dbURL, apiKey string, size int64, want string, env ...string) mediaRow {
	row := mediaRow{Scenario: name, Bytes: size}
	itemID, err := newItem(ctx, srv.url, apiKey, "bench resumed upload")
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	tus := &tusclient.Client{Endpoint: srv.url + tusPath, APIKey: apiKey}
	start := time.Now()
	up, err := tus.Create(ctx, size, map[string]string{"filename": "bench.bin", "itemId": itemID})
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	cut := &cutReader{r: mediabench.NewSource(1, size), left: size / 2}
	if _, err := tus.Patch(ctx, up, 0, cut, size); err == nil {
		row.Unmeasured = "the cut PATCH succeeded"
		return row
	}
	srv.stop()
	srv2, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, env...)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	defer srv2.stop()
	// The upload's URL names the first server: the same path on the new one.
	if u, err := url.Parse(up); err == nil {
		up = srv2.url + u.Path
	}
	tus.Endpoint = srv2.url + tusPath
	off, err := tus.Offset(ctx, up)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	src := mediabench.NewSource(1, size)
	src.Skip(off)
	if _, err := tus.Patch(ctx, up, off, src, size-off); err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	row.Took = time.Since(start)
	row.Note = fmt.Sprintf("resumed at %.0f%% after the restart", 100*float64(off)/float64(size))
	row.Unmeasured = errText(checkUploaded(ctx, srv2.url, apiKey, itemID, size, want))
	return row
}

// bigUpload is resumedUpload of a file of --big-upload-bytes (50 GiB), on
// a server of its own watched for memory, when the disk has room for it.
func bigUpload(ctx context.Context, c benchConfig, dir, dbURL, apiKey string, log io.Writer, env ...string) mediaRow {
	size := c.bigUpload
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return mediaRow{Scenario: uploadBig, Bytes: size, Unmeasured: err.Error()}
	}
	if free := int64(st.Bavail) * st.Bsize; free < size+(4<<30) {
		return mediaRow{Scenario: uploadBig, Bytes: size,
			Unmeasured: fmt.Sprintf("not enough free disk: %.1f GiB for a %.0f GiB upload", float64(free)/(1<<30), float64(size)/(1<<30))}
	}
	want := mediabench.NewSource(1, size).SHA256()
	srv, err := startServer(ctx, c.loupe, dbURL, false, log, env...)
	if err != nil {
		return mediaRow{Scenario: uploadBig, Bytes: size, Unmeasured: err.Error()}
	}
	defer srv.stop()
	rss := mediabench.WatchRSS(srv.pid)
	settleDisk()
	row := resumedUpload(ctx, c, uploadBig, srv, dbURL, apiKey, size, want, env...)
	row.RSSGrowth = rss() // the first server's, until the cut
	return row
}

// cutReader fails after left bytes, as a dropped connection does.
type cutReader struct {
	r    io.Reader
	left int64
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errors.New("connection cut")
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// checkUploaded reads the item (GraphQL: mediaSha256 is not a spec key):
// its size is the upload's and its checksum the bytes' SHA-256.
func checkUploaded(ctx context.Context, base, apiKey, itemID string, size int64, want string) error {
	body, _ := json.Marshal(map[string]any{"query": `query($id: ID!) { item(id: $id) { mediaSize mediaSha256 } }`,
		"variables": map[string]any{"id": itemID}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = authHeader(apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Item struct {
				MediaSize   int64  `json:"mediaSize"`
				MediaSha256 string `json:"mediaSha256"`
			} `json:"item"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return err
	}
	if it := out.Data.Item; it.MediaSize != size || it.MediaSha256 != want {
		return fmt.Errorf("item %s has mediaSize %d and SHA-256 %q, want %d and the upload's", itemID, it.MediaSize, it.MediaSha256, size)
	}
	return nil
}

// mediaReport renders the media rows and their ratios.
func mediaReport(rows []mediaRow) string {
	var b strings.Builder
	b.WriteString("\n## Media in (issue 15)\n\nOne upload each, the same bytes (pseudo-random, made on the fly), " +
		"loopback, this machine's disk; the S3 server is versitygw (POSIX backend on the same disk).\n\n")
	b.WriteString("| scenario | size | time | MiB/s | server RSS growth | note |\n|---|---:|---:|---:|---:|---|\n")
	byName := map[string]mediaRow{}
	for _, r := range rows {
		byName[r.Scenario] = r
		if r.Unmeasured != "" {
			fmt.Fprintf(&b, "| %s | – | – | – | – | not measured: %s |\n", r.Scenario, oneLine(r.Unmeasured))
			continue
		}
		rss := "–"
		if r.RSSGrowth != 0 {
			rss = fmt.Sprintf("%.0f MiB", r.RSSGrowth)
		}
		fmt.Fprintf(&b, "| %s | %.2f GiB | %.1f s | %.0f | %s | %s |\n", r.Scenario, float64(r.Bytes)/(1<<30),
			r.Took.Seconds(), r.mibps(), rss, r.Note)
	}
	b.WriteString("\n| ratio | value | target |\n|---|---:|---:|\n")
	ratio := func(name, a, ref string, target float64) {
		x, y := byName[a], byName[ref]
		if x.Unmeasured != "" || y.Unmeasured != "" || x.mibps() == 0 || y.mibps() == 0 {
			fmt.Fprintf(&b, "| %s | – | ≥ %.2f |\n", name, target)
			return
		}
		fmt.Fprintf(&b, "| %s | %.2f | ≥ %.2f |\n", name, x.mibps()/y.mibps(), target)
	}
	ratio("tus through Loupe to disk / plain HTTP + fsync", uploadLoupeDisk, uploadPlain, 0.8)
	ratio("tus through Loupe to S3 / SDK direct", uploadLoupeS3, uploadSDK, 0.8)
	for _, n := range []string{uploadLoupeDisk, uploadLoupeS3, uploadBig} {
		if r, ok := byName[n]; ok && r.Unmeasured == "" {
			fmt.Fprintf(&b, "| server RSS growth, %s | %.0f MiB | ≤ 64 MiB |\n", strings.TrimPrefix(n, "upload: "), r.RSSGrowth)
		}
	}
	return b.String()
}
