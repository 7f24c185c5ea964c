package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// The ingest scenarios (issue 15): a bucket of small objects scanned by an
// ingest configuration into items, then scanned again with nothing new.
// Processing is skipped (skipProcessing): the scan itself is measured, not
// ffprobe on 20,000 one-byte objects.

const (
	ingestScan   = "ingest: scan of a bucket of small objects"
	ingestRescan = "ingest: rescan with nothing new"
)

type ingestRow struct {
	Scenario   string
	Objects    int
	Took       time.Duration
	Unmeasured string
}

// ingestRows fills a bucket on s3srv with n objects and has a Loupe node
// (env: its settings) scan it twice.
func ingestRows(ctx context.Context, c benchConfig, s3srv *s3test.Server, dbURL, apiKey string, n int, env []string) []ingestRow {
	fail := func(err error) []ingestRow {
		return []ingestRow{{Scenario: ingestScan, Unmeasured: err.Error()}, {Scenario: ingestRescan, Unmeasured: err.Error()}}
	}
	bucket, err := s3srv.NewBucket(ctx)
	if err != nil {
		return fail(err)
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
	if putErr != nil {
		return fail(putErr)
	}
	srv, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, env...)
	if err != nil {
		return fail(err)
	}
	defer srv.stop()
	call := func(method, path string, body any) (map[string]any, error) {
		b, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(ctx, method, srv.url+path, bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		req.Header = authHeader(apiKey)
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
	cfg, err := call("POST", "/ingest/api/v1/ingestStorageConfigs", map[string]any{
		"title": "Bench drops", "sourceBucket": bucket.Bucket, "sourceKeyPrefix": "in", "sourceEndpoint": bucket.Endpoint,
		"accessKey": bucket.AccessKeyID, "secretKey": bucket.SecretAccessKey, "skipProcessing": true,
		"targetFolder": "/Bench ingest", "targetFolderRemoveSourcePrefix": true})
	if err != nil {
		return fail(err)
	}
	id, _ := cfg["id"].(string)
	scanOnce := func(name string) ingestRow {
		row := ingestRow{Scenario: name, Objects: n}
		start := time.Now()
		if _, err := call("POST", "/ingest/api/v1/ingestStorageConfigs/"+id+"/scan", nil); err != nil {
			row.Unmeasured = err.Error()
			return row
		}
		for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			got, err := call("GET", "/ingest/api/v1/ingestStorageConfigs/"+id, nil)
			if err != nil {
				row.Unmeasured = err.Error()
				return row
			}
			st, _ := got["scanStorageState"].(map[string]any)
			if st["state"] == "complete" {
				row.Took = time.Since(start)
				row.Unmeasured = ""
				fmt.Printf("bench: %-50s %d objects in %v (%v)\n", name, n, row.Took.Round(time.Millisecond), st["message"])
				return row
			}
			if st["state"] == "failed" || time.Now().After(deadline) {
				row.Unmeasured = fmt.Sprintf("scan %v", st)
				return row
			}
		}
	}
	return []ingestRow{scanOnce(ingestScan), scanOnce(ingestRescan)}
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
		if r.Scenario == ingestRescan {
			target = "≤ 2 s"
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
