package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	_ "github.com/lib/pq" // the bench's own reads of the database

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// The ingest scenarios (issue 15): a bucket of small objects scanned by an
// ingest configuration into items, then scanned again with nothing new.
// Processing is skipped (skipProcessing): the scan itself is measured, not
// ffprobe on 20,000 one-byte objects.

const (
	ingestScan   = "ingest: scan of a bucket of small objects"
	ingestRescan = "ingest: rescan with nothing new"
	ingestKilled = "ingest: scan cut by kill -9 of the node, resumed by another"
)

type ingestRow struct {
	Scenario   string
	Objects    int
	Took       time.Duration
	Unmeasured string
	Note       string
}

// ingestRows fills a bucket on s3srv with n objects and has a Loupe node
// (env: its settings) scan it twice; then a second bucket's scan is cut by
// kill -9 of the node and resumed by a new one.
func ingestRows(ctx context.Context, c benchConfig, s3srv *s3test.Server, dbURL, apiKey string, n int, env []string) []ingestRow {
	fail := func(err error) []ingestRow {
		return []ingestRow{{Scenario: ingestScan, Unmeasured: err.Error()}, {Scenario: ingestRescan, Unmeasured: err.Error()},
			{Scenario: ingestKilled, Unmeasured: err.Error()}}
	}
	bucket, err := fillBucket(ctx, s3srv, n)
	if err != nil {
		return fail(err)
	}
	srv, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, env...)
	if err != nil {
		return fail(err)
	}
	defer func() { srv.stop() }()
	api := &ingestAPI{ctx: ctx, srv: srv, apiKey: apiKey}
	id, err := api.newConfig(bucket, "/Bench ingest")
	if err != nil {
		return fail(err)
	}
	rows := []ingestRow{api.scan(ingestScan, id, n), api.scan(ingestRescan, id, n)}
	return append(rows, killedScan(ctx, c, s3srv, dbURL, api, n, env))
}

// killedScan scans a new bucket of n objects, kills the node (SIGKILL)
// once part of it is in, starts another and measures until the scan is
// complete; every object must be one item exactly.
func killedScan(ctx context.Context, c benchConfig, s3srv *s3test.Server, dbURL string, api *ingestAPI, n int, env []string) ingestRow {
	row := ingestRow{Scenario: ingestKilled, Objects: n}
	bucket, err := fillBucket(ctx, s3srv, n)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	id, err := api.newConfig(bucket, "/Bench ingest killed")
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	defer db.Close()
	counts := func() (items, keys int, err error) {
		err = db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT media->>'ingestSourceKey') FROM items
			WHERE media->>'ingestSourceStorageId' = $1 AND deleted_on IS NULL`, id).Scan(&items, &keys)
		return items, keys, err
	}
	start := time.Now()
	if _, err := api.call("POST", "/ingest/api/v1/ingestStorageConfigs/"+id+"/scan", nil); err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		items, _, err := counts()
		if err != nil || time.Now().After(deadline) {
			row.Unmeasured = fmt.Sprintf("no items came in before the kill: %v", err)
			return row
		}
		if items >= n/4 {
			break
		}
	}
	syscall.Kill(api.srv.pid, syscall.SIGKILL) //nolint:errcheck
	api.srv.stop()
	before, _, _ := counts()
	srv, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, env...)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	api.srv = srv
	res := api.wait(ingestKilled, id, n, start)
	if res.Unmeasured != "" {
		return res
	}
	items, keys, err := counts()
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	res.Note = fmt.Sprintf("killed with %d items in; after: %d items for %d objects", before, items, n)
	if items != n || keys != n {
		res.Unmeasured = "not exactly once: " + res.Note
	}
	return res
}

// fillBucket makes a bucket with n one-byte objects under in/.
func fillBucket(ctx context.Context, s3srv *s3test.Server, n int) (blob.S3Config, error) {
	bucket, err := s3srv.NewBucket(ctx)
	if err != nil {
		return bucket, err
	}
	client := s3srv.Client()
	keys := make(chan string)
	var wg sync.WaitGroup
	var putErr error
	var once sync.Once
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket.Bucket), Key: aws.String(k),
					Body: strings.NewReader("x")}); err != nil {
					once.Do(func() { putErr = err })
				}
			}
		}()
	}
	for i := range n {
		keys <- fmt.Sprintf("in/d%02d/obj%06d.mp4", i%50, i)
	}
	close(keys)
	wg.Wait()
	return bucket, putErr
}

// ingestAPI calls a node's ingest endpoints.
type ingestAPI struct {
	ctx    context.Context
	srv    *server
	apiKey string
}

func (a *ingestAPI) call(method, path string, body any) (map[string]any, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(a.ctx, method, a.srv.url+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header = authHeader(a.apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s %s: %s %v", method, path, resp.Status, out)
	}
	return out, nil
}

// newConfig makes an ingest configuration of bucket into folder.
func (a *ingestAPI) newConfig(bucket blob.S3Config, folder string) (string, error) {
	cfg, err := a.call("POST", "/ingest/api/v1/ingestStorageConfigs", map[string]any{
		"title": "Bench drops " + folder, "sourceBucket": bucket.Bucket, "sourceKeyPrefix": "in", "sourceEndpoint": bucket.Endpoint,
		"accessKey": bucket.AccessKeyID, "secretKey": bucket.SecretAccessKey, "skipProcessing": true,
		"targetFolder": folder, "targetFolderRemoveSourcePrefix": true})
	if err != nil {
		return "", err
	}
	id, _ := cfg["id"].(string)
	return id, nil
}

// scan asks for a scan of configuration id and waits for it.
func (a *ingestAPI) scan(name, id string, n int) ingestRow {
	start := time.Now()
	if _, err := a.call("POST", "/ingest/api/v1/ingestStorageConfigs/"+id+"/scan", nil); err != nil {
		return ingestRow{Scenario: name, Unmeasured: err.Error()}
	}
	return a.wait(name, id, n, start)
}

// wait polls the configuration until its scan is complete.
func (a *ingestAPI) wait(name, id string, n int, start time.Time) ingestRow {
	row := ingestRow{Scenario: name, Objects: n}
	for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		got, err := a.call("GET", "/ingest/api/v1/ingestStorageConfigs/"+id, nil)
		if err != nil {
			row.Unmeasured = err.Error()
			return row
		}
		st, _ := got["scanStorageState"].(map[string]any)
		if st["state"] == "complete" {
			row.Took = time.Since(start)
			fmt.Printf("bench: %-50s %d objects in %v (%v)\n", name, n, row.Took.Round(time.Millisecond), st["message"])
			return row
		}
		if st["state"] == "failed" || time.Now().After(deadline) {
			row.Unmeasured = fmt.Sprintf("scan %v", st)
			return row
		}
	}
}

// ingestReport renders the ingest rows against their targets.
func ingestReport(rows []ingestRow) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n| ingest scenario | objects | time | items/s | target |\n|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		target := "≥ 1,000 items/s"
		switch r.Scenario {
		case ingestRescan:
			target = "≤ 2 s"
		case ingestKilled:
			target = "exactly once (" + r.Note + "); time includes the job's timeout before the rescue"
		}
		if r.Unmeasured != "" {
			fmt.Fprintf(&b, "| %s | – | – | – | not measured: %s |\n", r.Scenario, oneLine(r.Unmeasured))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f s | %.0f | %s |\n", r.Scenario, r.Objects, r.Took.Seconds(),
			float64(r.Objects)/r.Took.Seconds(), target)
	}
	return b.String()
}
