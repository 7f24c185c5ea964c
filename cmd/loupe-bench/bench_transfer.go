package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// The transfer rows (issue 31; docs/replication.md): one original copied
// from Loupe's store on local disk to an S3 bucket (versitygw on
// loopback) by a replication run — the transfer from its start to its
// end, verified — beside the AWS SDK's transfer manager putting the same
// file into the same server directly, in the same run.

const (
	transferSDK   = "transfer: disk → S3, the AWS SDK transfer manager direct (reference)"
	transferLoupe = "transfer: the same file by a replication run (transfer start → end, verified)"
)

func transferRows(ctx context.Context, c benchConfig, dir, dbURL string, seeded *benchseed.Seeded, log io.Writer) []procRow {
	fail := func(err error) []procRow {
		return []procRow{{Scenario: transferSDK, Unmeasured: err.Error()}, {Scenario: transferLoupe, Unmeasured: err.Error()}}
	}
	size := int64(1 << 30)
	if c.quick {
		size = 128 << 20
	}
	work := filepath.Join(dir, "transfer")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	path := filepath.Join(work, "original.bin")
	f, err := os.Create(path)
	if err != nil {
		return fail(err)
	}
	_, err = io.CopyN(f, rand.Reader, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	s3srv, err := s3test.Launch()
	if err != nil {
		return fail(err)
	}
	defer s3srv.Stop()
	bucket, err := s3srv.NewBucket(ctx)
	if err != nil {
		return fail(err)
	}

	// The reference: the SDK from the file to the bucket.
	sdk := procRow{Scenario: transferSDK, Value: fmt.Sprintf("%d MiB", size>>20)}
	direct, err := blob.NewS3(ctx, bucket)
	if err != nil {
		return fail(err)
	}
	in, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	_, err = direct.Put(ctx, "direct/original.bin", in, blob.WithSize(size))
	sdk.Took = time.Since(start)
	in.Close()
	sdk.Unmeasured = errText(err)
	sdk.Note = fmt.Sprintf("%.0f MiB/s", float64(size)/(1<<20)/sdk.Took.Seconds())
	fmt.Fprintf(log, "bench: %-66s %8v %s\n", sdk.Scenario, sdk.Took.Round(10*time.Millisecond), sdk.Note)

	l := procRow{Scenario: transferLoupe, Value: sdk.Value}
	l.Took, err = transferThroughLoupe(ctx, c, work, dbURL, seeded, bucket, path)
	l.Unmeasured = errText(err)
	if l.Took > 0 {
		l.Note = fmt.Sprintf("%.0f MiB/s", float64(size)/(1<<20)/l.Took.Seconds())
	}
	if sdk.Took > 0 && l.Took > 0 {
		l.Value = fmt.Sprintf("%.2f× the SDK (goal ≥ 0.8)", sdk.Took.Seconds()/l.Took.Seconds())
	}
	fmt.Fprintf(log, "bench: %-66s %8v %s %s\n", l.Scenario, l.Took.Round(10*time.Millisecond), l.Value, l.Unmeasured)
	return []procRow{sdk, l}
}

// transferThroughLoupe uploads the file to a fresh server (local disk),
// saves the bucket as a storage location and a replication source to it,
// runs the source and answers how long its transfer ran.
func transferThroughLoupe(ctx context.Context, c benchConfig, work, dbURL string, seeded *benchseed.Seeded,
	bucket blob.S3Config, path string) (time.Duration, error) {
	if err := dropQueuedJobs(ctx, dbURL); err != nil {
		return 0, err
	}
	srv, err := startServer(ctx, c.loupe, dbURL, false, io.Discard, "LOUPE_BLOB_DIR="+filepath.Join(work, "blobs"),
		"LOUPE_STORAGE_ALLOW_PRIVATE=true")
	if err != nil {
		return 0, err
	}
	defer srv.stop()
	api := &procAPI{srv: srv, apiKey: seeded.APIKey}
	if _, _, err := api.upload(ctx, path); err != nil {
		return 0, err
	}
	call := func(method, path string, body, out any) error { return api.client().Do(ctx, method, path, body, out) }
	var loc struct{ ID string }
	if err := call("POST", "/prime/api/v1/storages", map[string]any{"name": "bench", "bucketName": bucket.Bucket,
		"endpoint": bucket.Endpoint, "region": bucket.Region, "pathStyle": true, "accessType": "key-user",
		"accessKey": bucket.AccessKeyID, "secretKey": bucket.SecretAccessKey, "pathPrefix": "replica"}, &loc); err != nil {
		return 0, err
	}
	var set struct{ Sources []struct{ ID string } }
	if err := call("PUT", "/prime/api/v1/replication", map[string]any{"sources": []any{map[string]any{
		"name": "bench", "scope": map[string]any{"type": "tenant"}, "toLocationId": loc.ID, "media": []any{"original"}}}},
		&set); err != nil {
		return 0, err
	}
	if len(set.Sources) != 1 {
		return 0, fmt.Errorf("replication answered %d sources", len(set.Sources))
	}
	if err := call("PUT", "/prime/api/v1/replication", map[string]any{"run": []any{set.Sources[0].ID}}, &set); err != nil {
		return 0, err
	}
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var page struct {
			Transfers []struct {
				State                 string
				Error                 *string
				StartedOn, FinishedOn *time.Time
			}
		}
		if err := call("GET", "/auxiliary/api/v1/transfers?sourceId="+set.Sources[0].ID, nil, &page); err != nil {
			return 0, err
		}
		if len(page.Transfers) > 0 {
			t := page.Transfers[0]
			switch t.State {
			case "complete":
				return t.FinishedOn.Sub(*t.StartedOn), nil
			case "failed":
				return 0, fmt.Errorf("the transfer failed: %v", t.Error)
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("not transferred within 10 minutes")
		}
	}
}
