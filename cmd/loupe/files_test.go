package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// TestMain stops the test S3 server after the package's tests. Run with
// LOUPE_TEST_AS_LOUPE set, the test binary is `loupe` itself, its
// arguments the variable's words: a test starts real server processes
// (and kills them) without building the binary.
func TestMain(m *testing.M) {
	if args := os.Getenv("LOUPE_TEST_AS_LOUPE"); args != "" {
		runProcess(strings.Fields(args))
	}
	s3test.Main(m)
}

// setS3Env configures the server's files in cfg's bucket, as an operator
// would.
func setS3Env(t *testing.T, cfg blob.S3Config) {
	t.Setenv("LOUPE_S3_ENDPOINT", cfg.Endpoint)
	t.Setenv("LOUPE_S3_REGION", cfg.Region)
	t.Setenv("LOUPE_S3_BUCKET", cfg.Bucket)
	t.Setenv("LOUPE_S3_PATH_STYLE", "true")
	t.Setenv("LOUPE_S3_ACCESS_KEY_ID", cfg.AccessKeyID)
	t.Setenv("LOUPE_S3_SECRET_ACCESS_KEY", cfg.SecretAccessKey)
}

// TestServeKeepsFilesInS3: `loupe serve` with LOUPE_S3_* settings keeps an
// attachment uploaded through its signed link in the bucket (nothing on
// local disk) and links it as a presigned URL to the bucket, ranges
// included; another node on the same database and bucket, with direct
// downloads off, serves it through its own links.
func TestServeKeepsFilesInS3(t *testing.T) {
	bucket := s3test.Bucket(t)
	t.Setenv("DATABASE_URL", pgtest.DB(t))
	setS3Env(t, bucket)
	t.Setenv("LOUPE_BLOB_KEY", strings.Repeat("5a", 32))
	blobDir := t.TempDir()
	t.Setenv("LOUPE_BLOB_DIR", blobDir)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	t.Setenv("LOUPE_ADDR", addr)
	t.Setenv("LOUPE_PUBLIC_URL", "http://"+addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	code, out := runCaptured(t, ctx, "tenant", "create", "--name", "s3", "--admin-email", "boss@s3.test")
	if code != 0 {
		t.Fatalf("tenant create exited %d: %s", code, out)
	}
	var tenant struct{ TenantID, APIKey string }
	if err := json.Unmarshal([]byte(lastLine(out)), &tenant); err != nil {
		t.Fatal(err)
	}
	exited := make(chan int)
	go func() { code, _ := runCaptured(t, ctx, "serve"); exited <- code }()
	base := "http://" + addr
	waitReady(t, base)

	call := func(method, url string, body string, header ...string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(url, base+"/api/") {
			req.Header.Set("Authorization", "Bearer "+tenant.APIKey)
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	status, b := call("POST", base+"/api/v1/items", `{"title":"Clip","itemType":"video"}`)
	var item struct{ ID string }
	if status != 200 || json.Unmarshal(b, &item) != nil {
		t.Fatalf("create item: %d %s", status, b)
	}
	status, b = call("POST", base+"/api/v1/items/"+item.ID+"/attachments", `{"fileName":"notes.txt","type":"file","role":"file"}`)
	var upload string
	if status != 200 || json.Unmarshal(b, &upload) != nil {
		t.Fatalf("create attachment: %d %s", status, b)
	}
	content := strings.Repeat("a line of the script\n", 5000)
	if status, b = call("PUT", upload, content); status != 200 || len(b) != 0 { // S3's answer: no body
		t.Fatalf("upload: %d %s", status, b)
	}
	status, b = call("GET", base+"/api/v1/items/"+item.ID+"/attachments", "")
	var list []struct{ DownloadURL string }
	// Direct downloads (the default): a presigned URL to the bucket.
	if status != 200 || json.Unmarshal(b, &list) != nil || len(list) != 1 || !strings.HasPrefix(list[0].DownloadURL, bucket.Endpoint+"/") {
		t.Fatalf("list attachments: %d %s", status, b)
	}
	if status, b = call("GET", list[0].DownloadURL, ""); status != 200 || string(b) != content {
		t.Fatalf("download: %d, %d bytes", status, len(b))
	}
	if status, b = call("GET", list[0].DownloadURL, "", "Range", "bytes=2-5"); status != 206 || string(b) != content[2:6] {
		t.Fatalf("ranged download: %d %q", status, b)
	}

	// The file is in the bucket, under the tenant's prefix, and not on disk.
	s, err := blob.NewS3(ctx, bucket)
	if err != nil {
		t.Fatal(err)
	}
	objs, _, err := s.List(ctx, tenant.TenantID+"/items/"+item.ID+"/attachments/", "", 0)
	if err != nil || len(objs) != 1 || objs[0].Size != int64(len(content)) {
		t.Fatalf("the bucket holds %+v, %v; want the attachment", objs, err)
	}
	if entries, _ := os.ReadDir(blobDir); len(entries) != 0 {
		t.Fatalf("files were written to the local directory too: %v", entries)
	}

	// A second node on the same database and bucket, with the first one
	// stopped: it serves the file the first one took in (no node-local
	// state). Nodes share LOUPE_BLOB_KEY so that either's links work.
	stop := func(cancel context.CancelFunc, exited chan int) {
		t.Helper()
		cancel()
		select {
		case code := <-exited:
			if code != 0 {
				t.Fatalf("serve exited %d after the signal", code)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop after the signal")
		}
	}
	stop(cancel, exited)
	addr = "127.0.0.1:" + strconv.Itoa(freePort(t))
	t.Setenv("LOUPE_ADDR", addr)
	t.Setenv("LOUPE_PUBLIC_URL", "http://"+addr)
	// Without direct downloads, links are the node's own.
	t.Setenv("LOUPE_S3_DIRECT_DOWNLOADS", "false")
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	exited2 := make(chan int)
	go func() { code, _ := runCaptured(t, ctx2, "serve"); exited2 <- code }()
	base = "http://" + addr
	waitReady(t, base)
	status, b = call("GET", base+"/api/v1/items/"+item.ID+"/attachments", "")
	if status != 200 || json.Unmarshal(b, &list) != nil || len(list) != 1 || !strings.HasPrefix(list[0].DownloadURL, base) {
		t.Fatalf("list attachments on the second node: %d %s", status, b)
	}
	if status, b = call("GET", list[0].DownloadURL, ""); status != 200 || string(b) != content {
		t.Fatalf("download from the second node: %d, %d bytes", status, len(b))
	}
	stop(cancel2, exited2)
}

// TestOpenFilesRefusals: a configuration that cannot work stops the start,
// and the message names the bucket, never the secret.
func TestOpenFilesRefusals(t *testing.T) {
	bucket := s3test.Bucket(t)
	ctx := context.Background()

	wrong := bucket
	wrong.SecretAccessKey = "wrong-secret-9f8e7d6c5b4a"
	_, err := openFiles(ctx, config{S3: wrong})
	if err == nil || !strings.Contains(err.Error(), bucket.Bucket) || strings.Contains(err.Error(), wrong.SecretAccessKey) {
		t.Fatalf("wrong secret: %v; want a refusal naming the bucket, not the secret", err)
	}
	missing := bucket
	missing.Bucket = "no-such-bucket"
	if _, err := openFiles(ctx, config{S3: missing}); err == nil {
		t.Fatal("a bucket that does not exist was accepted")
	}

	// Some LOUPE_S3_ settings but no bucket: not silently local disk.
	t.Setenv("LOUPE_S3_ENDPOINT", bucket.Endpoint)
	t.Setenv("LOUPE_S3_BUCKET", "")
	c := config{BlobDir: t.TempDir(), S3: s3FromEnv()}
	if _, err := openFiles(ctx, c); err == nil || !strings.Contains(err.Error(), "LOUPE_S3_BUCKET") {
		t.Fatalf("S3 settings without a bucket: %v", err)
	}
	// None at all: local disk.
	t.Setenv("LOUPE_S3_ENDPOINT", "")
	if files, err := openFiles(ctx, c); err != nil {
		t.Fatal(err)
	} else if _, ok := files.(*blob.Disk); !ok {
		t.Fatalf("without S3 settings the files are in a %T", files)
	}
	// Every setting is read.
	setS3Env(t, bucket)
	t.Setenv("LOUPE_S3_PART_SIZE", "16777216")
	t.Setenv("LOUPE_S3_ROLE_ARN", "arn:aws:iam::1:role/r")
	t.Setenv("LOUPE_S3_EXTERNAL_ID", "ext")
	got := s3FromEnv()
	want := bucket
	want.PathStyle, want.PartSize, want.RoleARN, want.ExternalID = true, 16<<20, "arn:aws:iam::1:role/r", "ext"
	if got != want {
		t.Fatalf("s3FromEnv = %s, want %s", got, want)
	}
}
