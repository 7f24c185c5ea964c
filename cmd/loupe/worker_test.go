package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// `loupe worker` processes what an API-only `loupe serve`
// (LOUPE_WORKERS=-1) takes in: the two share the database and the files.
func TestWorkerProcessesForAnAPIOnlyServer(t *testing.T) {
	mediatest.Need(t)
	t.Setenv("DATABASE_URL", pgtest.DB(t))
	t.Setenv("LOUPE_BLOB_DIR", t.TempDir())
	t.Setenv("LOUPE_BLOB_KEY", strings.Repeat("5a", 32))
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	t.Setenv("LOUPE_ADDR", addr)
	t.Setenv("LOUPE_PUBLIC_URL", "http://"+addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code, out := runCaptured(t, ctx, "tenant", "create", "--name", "w", "--admin-email", "boss@w.test")
	if code != 0 {
		t.Fatalf("tenant create exited %d: %s", code, out)
	}
	var tenant struct{ APIKey string }
	if err := json.Unmarshal([]byte(lastLine(out)), &tenant); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOUPE_WORKERS", "-1")
	served := make(chan int)
	go func() { code, _ := runCaptured(t, ctx, "serve"); served <- code }()
	base := "http://" + addr
	waitReady(t, base)

	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if b, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-preset", "ultrafast", clip).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	data, _ := os.ReadFile(clip)
	tus := &tusclient.Client{Endpoint: base + "/api/v1/uploads/", APIKey: tenant.APIKey}
	up, err := tus.Create(ctx, int64(len(data)), map[string]string{"filename": "clip.mp4", "itemType": "video"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tus.Patch(ctx, up, 0, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	itemID := up[strings.LastIndex(up, "/")+1:]
	state := func() string {
		req, _ := http.NewRequest("POST", base+"/graphql", strings.NewReader(
			`{"query":"query($id: ID!) { upload(id: $id) { itemId } }","variables":{"id":"`+itemID+`"}}`))
		req.Header.Set("Authorization", "Bearer "+tenant.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var u struct {
			Data struct{ Upload struct{ ItemID string } }
		}
		json.NewDecoder(resp.Body).Decode(&u) //nolint:errcheck
		resp.Body.Close()
		req, _ = http.NewRequest("GET", base+"/api/v1/items/"+u.Data.Upload.ItemID, nil)
		req.Header.Set("Authorization", "Bearer "+tenant.APIKey)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var it struct{ TranscodingState string }
		json.Unmarshal(b, &it) //nolint:errcheck
		return it.TranscodingState
	}
	time.Sleep(time.Second)
	if s := state(); s != "queued" {
		t.Fatalf("an API-only node processed (or lost) the upload: %q", s)
	}

	t.Setenv("LOUPE_WORKERS", "0")
	wctx, wcancel := context.WithCancel(context.Background())
	defer wcancel()
	worked := make(chan int)
	go func() { code, _ := runCaptured(t, wctx, "worker"); worked <- code }()
	for deadline := time.Now().Add(60 * time.Second); state() != "complete"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not process the upload: %q", state())
		}
	}
	wcancel()
	if code := <-worked; code != 0 {
		t.Fatalf("worker exited %d", code)
	}
	cancel()
	if code := <-served; code != 0 {
		t.Fatalf("serve exited %d", code)
	}
}
