package blob_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// recorder notes every request an S3 store sends.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) take() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	reqs := r.reqs
	r.reqs = nil
	return reqs
}

func newS3(t *testing.T, cfg blob.S3Config) *blob.S3 {
	t.Helper()
	s, err := blob.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func random(seed byte, n int64) io.Reader {
	return io.LimitReader(rand.NewChaCha8([32]byte{seed}), n)
}

// TestS3SendsNoDefaultChecksumsAndGoesMultipart: Ceph, R2 and older MinIO
// refuse the SDK's default CRC32 checksums, so no request may carry one;
// a body over the part size is uploaded, and a blob over the copy part size
// copied, in parts.
func TestS3SendsNoDefaultChecksumsAndGoesMultipart(t *testing.T) {
	rec := &recorder{}
	cfg := s3test.Bucket(t)
	cfg.PartSize, cfg.CopyPartSize, cfg.HTTPClient = blob.MinPartSize, blob.MinPartSize, rec
	s := newS3(t, cfg)
	ctx := context.Background()
	const size = 2*blob.MinPartSize + 10

	obj, err := s.Put(ctx, "t/big", random(1, size))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(obj.ETag, "-3") {
		t.Errorf("Put ETag %q: not the ETag of a three-part upload", obj.ETag)
	}
	parts := 0
	for _, r := range rec.take() {
		if r.URL.Query().Has("partNumber") && r.Method == http.MethodPut {
			parts++
		}
		checkNoChecksum(t, r)
	}
	if parts != 3 {
		t.Errorf("Put sent %d parts, want 3", parts)
	}

	if _, err := s.Copy(ctx, "t/copy", "t/big"); err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, r := range rec.take() {
		if r.URL.Query().Has("partNumber") && r.Header.Get("X-Amz-Copy-Source") != "" {
			copies++
		}
		checkNoChecksum(t, r)
	}
	if copies != 3 {
		t.Errorf("Copy sent %d part copies, want 3", copies)
	}

	// Every other operation.
	if _, err := s.Put(ctx, "t/small", strings.NewReader("small")); err != nil {
		t.Fatal(err)
	}
	rc, _, err := s.OpenRange(ctx, "t/small", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(rc) //nolint:errcheck // only the requests matter
	rc.Close()
	if _, err := s.Stat(ctx, "t/small"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.List(ctx, "t/", "", 10); err != nil {
		t.Fatal(err)
	}
	id, err := s.CreateMultipart(ctx, "t/mp")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.UploadPart(ctx, "t/mp", id, 1, struct{ io.Reader }{strings.NewReader("part")}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteMultipart(ctx, "t/mp", id, []blob.Part{p}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "t/small"); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.take() {
		checkNoChecksum(t, r)
	}
}

func checkNoChecksum(t *testing.T, r *http.Request) {
	t.Helper()
	for name := range r.Header {
		n := strings.ToLower(name)
		if strings.HasPrefix(n, "x-amz-checksum-") || n == "x-amz-sdk-checksum-algorithm" || n == "x-amz-trailer" {
			t.Errorf("%s %s carries %s: %s", r.Method, r.URL.Path, name, r.Header.Get(name))
		}
	}
}

// TestS3PutHoldsBoundedMemory: a body many parts long is never held whole;
// Put allocates about PartSize × (Concurrency + 2) whatever the body's size.
func TestS3PutHoldsBoundedMemory(t *testing.T) {
	cfg := s3test.Bucket(t)
	cfg.PartSize = blob.MinPartSize
	s := newS3(t, cfg)
	const size = 80 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := s.Put(context.Background(), "t/large", struct{ io.Reader }{random(2, size)}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("Put of %d MiB allocated %d MiB", size>>20, allocated>>20)
	if limit := uint64(blob.MinPartSize * 8); allocated > limit {
		t.Fatalf("Put of %d MiB allocated %d MiB, more than %d MiB", size>>20, allocated>>20, limit>>20)
	}
}

// TestS3RefusesWrongCredentialsWithoutTellingThem: the test server checks
// signatures, and no error names the secret.
func TestS3RefusesWrongCredentialsWithoutTellingThem(t *testing.T) {
	cfg := s3test.Bucket(t)
	cfg.SecretAccessKey = "not-the-secret-" + cfg.SecretAccessKey[:8]
	s := newS3(t, cfg)
	ctx := context.Background()
	_, err := s.Put(ctx, "t/x", strings.NewReader("x"))
	checkRefusedQuietly(t, "Put", err, cfg.SecretAccessKey)
	_, err = s.Stat(ctx, "t/x")
	checkRefusedQuietly(t, "Stat", err, cfg.SecretAccessKey)
	checkRefusedQuietly(t, "Check", s.Check(ctx), cfg.SecretAccessKey)
	for _, c := range []string{cfg.String(), fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg)} {
		if strings.Contains(c, cfg.SecretAccessKey) {
			t.Fatalf("the configuration prints its secret: %s", c)
		}
	}
}

func checkRefusedQuietly(t *testing.T, op string, err error, secret string) {
	t.Helper()
	if err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("%s with a wrong secret: %v, want a refusal", op, err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("%s's error names the secret: %v", op, err)
	}
}

// TestS3AssumeRole: with RoleARN the store asks STS (here one at
// STSEndpoint that hands out the test server's keys) for the role's
// credentials, signing with the key-user's, and passes the external id.
func TestS3AssumeRole(t *testing.T) {
	bucket := s3test.Bucket(t)
	const role, external = "arn:aws:iam::123456789012:role/loupe-ingest", "tenant-7f3a"
	var mu sync.Mutex
	var got url.Values
	var signed string
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm() //nolint:errcheck // checked below
		mu.Lock()
		got, signed = r.PostForm, r.Header.Get("Authorization")
		mu.Unlock()
		fmt.Fprintf(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>
<Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey><SessionToken></SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>
<AssumedRoleUser><Arn>%s/loupe</Arn><AssumedRoleId>AROA0:loupe</AssumedRoleId></AssumedRoleUser>
</AssumeRoleResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></AssumeRoleResponse>`,
			bucket.AccessKeyID, bucket.SecretAccessKey, role)
	}))
	defer sts.Close()
	cfg := bucket
	cfg.AccessKeyID, cfg.SecretAccessKey = "AKIABASEUSER", "base-user-secret"
	cfg.RoleARN, cfg.ExternalID, cfg.STSEndpoint = role, external, sts.URL
	s := newS3(t, cfg)
	if _, err := s.Put(context.Background(), "t/assumed", strings.NewReader("x")); err != nil {
		t.Fatalf("Put with assumed-role credentials: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Get("Action") != "AssumeRole" || got.Get("RoleArn") != role || got.Get("ExternalId") != external || got.Get("RoleSessionName") != "loupe" {
		t.Fatalf("STS was asked %v", got)
	}
	if !strings.Contains(signed, "Credential=AKIABASEUSER/") {
		t.Fatalf("STS request signed as %q, want the key-user", signed)
	}
}

func TestS3ConfigRefusals(t *testing.T) {
	ok := blob.S3Config{Bucket: "b", AccessKeyID: "a", SecretAccessKey: "s"}
	cases := []struct {
		name string
		edit func(*blob.S3Config)
	}{
		{"no bucket", func(c *blob.S3Config) { c.Bucket = "" }},
		{"endpoint without scheme", func(c *blob.S3Config) { c.Endpoint = "minio:9000" }},
		{"ftp endpoint", func(c *blob.S3Config) { c.Endpoint = "ftp://minio" }},
		{"STS endpoint without host", func(c *blob.S3Config) { c.STSEndpoint = "https://" }},
		{"key without secret", func(c *blob.S3Config) { c.SecretAccessKey = "" }},
		{"secret without key", func(c *blob.S3Config) { c.AccessKeyID = "" }},
		{"external id without role", func(c *blob.S3Config) { c.ExternalID = "x" }},
		{"parts too small", func(c *blob.S3Config) { c.PartSize = 1 << 20 }},
		{"copy parts too large", func(c *blob.S3Config) { c.CopyPartSize = 6 << 30 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok
			c.edit(&cfg)
			if _, err := blob.NewS3(context.Background(), cfg); err == nil {
				t.Fatal("accepted")
			} else if strings.Contains(err.Error(), "s\"") {
				t.Fatalf("error shows the secret: %v", err)
			}
		})
	}
	if _, err := blob.NewS3(context.Background(), ok); err != nil {
		t.Fatalf("a good configuration: %v", err)
	}
}

// TestS3BehindTheHandler: the /blobs/ handler answers ranges and HEAD from
// S3 as from disk (Open's reader seeks with ranged GETs).
func TestS3BehindTheHandler(t *testing.T) {
	s := newS3(t, s3test.Bucket(t))
	srv := httptest.NewServer(nil)
	defer srv.Close()
	signer := blob.NewSigner([]byte("s3-handler-test-key-0123456789abcdef"), srv.URL)
	srv.Config.Handler = &blob.Handler{Store: s, Signer: signer, MaxUpload: 20000}
	const key = "t/items/i/attachments/a.txt"
	content := strings.Repeat("0123456789", 1000)
	put, _ := signer.Presign(context.Background(), "PUT", key, time.Hour)
	if resp, body := do(t, "PUT", put, strings.NewReader(content)); resp.StatusCode != 200 {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	// Over the cap, streamed (no Content-Length): 413, and the blob stays.
	over := struct{ io.Reader }{strings.NewReader(strings.Repeat("x", 20001))}
	if resp, body := do(t, "PUT", put, over); resp.StatusCode != 413 {
		t.Fatalf("PUT over the cap: %d %s", resp.StatusCode, body)
	}
	get, _ := signer.Presign(context.Background(), "GET", key, time.Hour)
	cases := []struct {
		name, method, rng string
		status            int
		want              string
	}{
		{"whole", "GET", "", 200, content},
		{"range", "GET", "bytes=10-19", 206, content[10:20]},
		{"suffix", "GET", "bytes=-5", 206, content[len(content)-5:]},
		{"head", "HEAD", "", 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hdr []string
			if c.rng != "" {
				hdr = []string{"Range", c.rng}
			}
			resp, body := do(t, c.method, get, nil, hdr...)
			if resp.StatusCode != c.status || body != c.want || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Fatalf("%d %q %s", resp.StatusCode, body, resp.Header.Get("Content-Type"))
			}
		})
	}
}

// TestS3ReaderKeepsToOneVersion: a reader that seeks after the blob was
// replaced fails instead of mixing two versions.
func TestS3ReaderKeepsToOneVersion(t *testing.T) {
	s := newS3(t, s3test.Bucket(t))
	ctx := context.Background()
	if _, err := s.Put(ctx, "t/v", strings.NewReader("version one")); err != nil {
		t.Fatal(err)
	}
	rc, _, _, err := s.Open(ctx, "t/v")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := s.Put(ctx, "t/v", strings.NewReader("version two")); err != nil {
		t.Fatal(err)
	}
	rs := rc.(io.ReadSeeker)
	if _, err := rs.Seek(8, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(rs); err == nil {
		t.Fatalf("read %q of a replaced blob after a seek", b)
	}
}
