package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
	"github.com/loupe-mam/loupe/internal/testkit/openapicheck"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// rest calls the REST API with key and answers the status and body.
func rest(t *testing.T, method, url, key string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := openapicheck.Response(req, resp.StatusCode, resp.Header, b); err != nil {
		t.Error(err)
	}
	return resp.StatusCode, b
}

// A transfer whose node is killed with kill -9 in the middle of its copy
// is taken over once its lease runs out and completes after a restart,
// resuming after the parts that had reached the bucket (not from the first
// byte), with the file's SHA-256 verified at the destination.
func TestTransferResumesAfterKill(t *testing.T) {
	cfg := s3test.Bucket(t)
	dbURL := pgtest.DB(t)
	t.Setenv("DATABASE_URL", dbURL)
	env := nodeEnv(t, "LOUPE_STORAGE_ALLOW_PRIVATE=true")
	key := tenantKey(t, "r")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	n := startNode(t, env, addr)

	st, body := rest(t, "POST", n.base+"/prime/api/v1/storages", key, map[string]any{
		"name": "Bucket", "bucketName": cfg.Bucket, "endpoint": cfg.Endpoint, "region": cfg.Region, "pathStyle": true,
		"accessType": "key-user", "accessKey": cfg.AccessKeyID, "secretKey": cfg.SecretAccessKey})
	if st != http.StatusOK {
		t.Fatalf("storage location: %d %s", st, body)
	}
	var loc struct{ ID string }
	json.Unmarshal(body, &loc) //nolint:errcheck // checked by use
	item := gql(t, n.base, key, `mutation { createItem(input: {title: "Big", itemType: "video"}) { item { id } } }`, nil)
	itemID := item["createItem"].(map[string]any)["item"].(map[string]any)["id"].(string)

	// 24 MiB: three parts of 8 MiB, copied at 4 MiB/s (about 6 s).
	data := make([]byte, 24<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(data)
	tus := &tusclient.Client{Endpoint: n.base + "/api/v1/uploads/", APIKey: key}
	up, err := tus.Create(context.Background(), int64(len(data)), map[string]string{"filename": "big.bin", "itemId": itemID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tus.Patch(context.Background(), up, 0, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	st, body = rest(t, "PUT", n.base+"/prime/api/v1/replication", key, map[string]any{"sources": []any{map[string]any{
		"name": "Slow copy", "scope": map[string]any{"type": "tenant"}, "toLocationId": loc.ID, "media": []any{"original"},
		"maxBytesPerSecond": 4 << 20}}})
	if st != http.StatusOK {
		t.Fatalf("put replication: %d %s", st, body)
	}
	var put struct{ Sources []struct{ ID string } }
	json.Unmarshal(body, &put) //nolint:errcheck // checked by use
	if st, body = rest(t, "PUT", n.base+"/prime/api/v1/replication", key, map[string]any{"run": []any{put.Sources[0].ID}}); st != http.StatusOK {
		t.Fatalf("run: %d %s", st, body)
	}

	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type state struct {
		ID, State       string
		Done, Resumed   int64
		Attempts, Parts int
		SHA256          string
	}
	read := func() state {
		var s state
		err := db.QueryRow(`SELECT id, state, bytes_done, resumed_from_bytes, attempts, sha256,
			(SELECT count(*) FROM transfer_parts p WHERE p.tenant_id = t.tenant_id AND p.transfer_id = t.id)
			FROM transfers t`).Scan(&s.ID, &s.State, &s.Done, &s.Resumed, &s.Attempts, &s.SHA256, &s.Parts)
		if err != nil && err != sql.ErrNoRows {
			t.Fatal(err)
		}
		return s
	}
	// Kill the node once a part has arrived, before the last one.
	var cut state
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if cut = read(); cut.Parts >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the copy did not start: %+v", cut)
		}
	}
	n.kill()
	cut = read()
	if cut.State != "copying" || cut.Parts < 1 || cut.Parts >= 3 || cut.Done >= int64(len(data)) {
		t.Fatalf("the kill did not land mid-copy: %+v", cut)
	}
	t.Logf("killed mid-copy: %+v", cut)

	// Back: the lease runs out, the scheduler hands the transfer to a new
	// job, which resumes it.
	start := time.Now()
	n = startNode(t, env, addr)
	var end state
	for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if end = read(); end.State == "complete" || end.State == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the transfer did not end after the restart: %+v", end)
		}
	}
	t.Logf("after restart (%v): %+v", time.Since(start).Round(time.Second), end)
	if end.State != "complete" || end.SHA256 != hex.EncodeToString(want[:]) {
		t.Fatalf("transfer: %+v, want complete with SHA-256 %x", end, want)
	}
	if end.Resumed < int64(cut.Parts)*(8<<20) || end.Attempts < 2 {
		t.Errorf("the copy restarted rather than resumed: resumed from %d bytes after %d parts had arrived", end.Resumed, cut.Parts)
	}
	// The bucket holds the file, whole.
	var tr struct {
		Transfers []struct {
			To struct{ Key string }
		}
	}
	_, body = rest(t, "GET", n.base+"/auxiliary/api/v1/transfers", key, nil)
	json.Unmarshal(body, &tr) //nolint:errcheck // checked by use
	if len(tr.Transfers) != 1 {
		t.Fatalf("transfers: %s", body)
	}
	obj, err := s3test.Start(t).Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(cfg.Bucket),
		Key: aws.String(tr.Transfers[0].To.Key)})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	io.Copy(h, obj.Body) //nolint:errcheck // compared below
	obj.Body.Close()
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Errorf("the bucket's copy has SHA-256 %x, want %x", got, want)
	}
}
