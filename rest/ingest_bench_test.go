package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// TestIngestThroughput measures a scan of a bucket of LOUPE_INGEST_OBJECTS
// (default 20,000) one-byte objects: items per second through the job
// queue, then a rescan with nothing new. It logs the numbers and asserts
// only correctness (a timed assertion would fail on a loaded machine).
// Run it with LOUPE_INGEST_BENCH=1:
//
//	LOUPE_INGEST_BENCH=1 go run ./cmd/loupe with-postgres -- go test -count=1 ./rest/ -run TestIngestThroughput -v
func TestIngestThroughput(t *testing.T) {
	if os.Getenv("LOUPE_INGEST_BENCH") == "" {
		t.Skip("set LOUPE_INGEST_BENCH=1 to measure ingest throughput")
	}
	n := 20000
	if v := os.Getenv("LOUPE_INGEST_OBJECTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	cfg := s3test.Bucket(t)
	client := s3test.Start(t).Client()
	start := time.Now()
	keys := make(chan string)
	var wg sync.WaitGroup
	var failed sync.Once
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(cfg.Bucket),
					Key: aws.String(k), Body: strings.NewReader("x")}); err != nil {
					failed.Do(func() { t.Errorf("put %s: %v", k, err) })
				}
			}
		}()
	}
	for i := range n {
		keys <- fmt.Sprintf("in/d%02d/obj%06d.mp4", i%50, i)
	}
	close(keys)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("wrote %d objects in %v", n, time.Since(start).Round(time.Millisecond))

	api, _ := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	id := a.Post(t, icPath, icBody(cfg, map[string]any{"targetFolder": "/Bench", "targetFolderRemoveSourcePrefix": true})).
		Status(http.StatusOK).Object()["id"].(string)

	start = time.Now()
	a.Post(t, icPath+"/"+id+"/scan", nil).Status(http.StatusOK)
	st := waitScanFor(t, a, id, 10*time.Minute)
	took := time.Since(start)
	if got := api.Count(t, `SELECT count(*) FROM ingested_objects WHERE tenant_id = $1`, a.TenantID); got != n || st["state"] != "complete" {
		t.Fatalf("ingested %d of %d: %v", got, n, st)
	}
	t.Logf("scan: %d items in %v: %.0f items/s (%s)", n, took.Round(time.Millisecond), float64(n)/took.Seconds(), st["message"])

	start = time.Now()
	a.Post(t, icPath+"/"+id+"/scan", nil).Status(http.StatusOK)
	st = waitScanFor(t, a, id, 10*time.Minute)
	took = time.Since(start)
	if got := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND item_type = 'video'`, a.TenantID); got != n {
		t.Fatalf("rescan: %d items", got)
	}
	t.Logf("rescan with nothing new: %v (%s)", took.Round(time.Millisecond), st["message"])
}
