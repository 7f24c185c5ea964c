package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// A file the server cannot process ends the wait with an error that names
// it and says why, in the server's words.
func TestWaitReportsFailure(t *testing.T) {
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	c := &Client{URL: api.URL, APIKey: a.Key}
	dir := t.TempDir()
	out := filepath.Join(dir, "whole.mp4")
	if err := makeTestPattern(context.Background(), out, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	// A third of an MP4 whose index comes first (faststart): it probes,
	// and its proxy comes out short.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mp4")
	if err := os.WriteFile(cut, b[:len(b)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	f := File{Sample: Sample{FileName: "cut.mp4", Title: "Cut short", ItemType: "video"}, Path: cut, Size: int64(len(b) / 3)}
	var log bytes.Buffer
	items, err := c.UploadAll(context.Background(), []File{f}, &log)
	if err != nil {
		t.Fatal(err)
	}
	last, err := c.Wait(context.Background(), items, WaitOptions{Timeout: 2 * time.Minute}, &log)
	t.Logf("%s", log.String())
	if err == nil || !strings.Contains(err.Error(), "1 of 1 items failed processing: Cut short: ") {
		t.Fatalf("wait: %v", err)
	}
	if last[0].TranscodingState != "failed" || !strings.Contains(log.String(), items[0].ID+"  failed") {
		t.Fatalf("last read %+v", last[0])
	}
}

// An item that never gets an original is still waited for until the
// timeout, which then names it and its state.
func TestWaitTimeout(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	c := &Client{URL: api.URL, APIKey: a.Key}
	f := File{Sample: Sample{FileName: "never.mp4", Title: "Never uploaded", ItemType: "video"}}
	id, err := c.CreateItem(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Wait(context.Background(), []Uploaded{{ID: id, File: f}}, WaitOptions{Timeout: 1500 * time.Millisecond}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 1.5s") || !strings.Contains(err.Error(), id+" (Never uploaded)") {
		t.Fatalf("wait: %v", err)
	}
}

// The REST envelope's message is shown with the status; the key is not.
func TestRefusedKey(t *testing.T) {
	api := loupetest.New(t)
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{URL: api.URL, APIKey: k.Header}
	_, err = c.CreateItem(context.Background(), File{Sample: Sample{Title: "T", ItemType: "video"}})
	if err == nil || !strings.Contains(err.Error(), `create item "T": POST /api/v1/items: 401 Unauthorized: The client`) ||
		strings.Contains(err.Error(), k.Header) || strings.Contains(err.Error(), "{") {
		t.Fatalf("refused: %v", err)
	}
	t.Log(err)
}
