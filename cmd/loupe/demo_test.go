package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/demo"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// `loupe demo` end to end: samples made, items created, originals uploaded
// by tus, and every item processed by the server's own workers into what
// its kind gets (docs/processing.md), the phone clip turned upright.
func TestDemoUploadsAndProcesses(t *testing.T) {
	mediatest.Need(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	dir := t.TempDir()
	var out bytes.Buffer
	c := demoConfig{URL: api.URL, APIKey: a.Key, Timeout: 3 * time.Minute, Dir: dir,
		Samples: demo.Options{MaxDuration: 2 * time.Second}}
	if err := runDemo(context.Background(), c, &out); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	t.Logf("demo printed:\n%s", out.String())
	if strings.Contains(out.String(), a.Key) {
		t.Fatal("the demo printed the API key")
	}
	if !strings.Contains(out.String(), "complete") {
		t.Error("no progress line says complete")
	}
	for _, s := range demo.Samples() {
		if _, err := os.Stat(filepath.Join(dir, s.FileName)); err != nil {
			t.Errorf("--dir keeps the samples: %v", err)
		}
		id := printedID(t, out.String(), s.Title)
		it := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()
		if it["transcodingState"] != "complete" || it["itemState"] != "ready" || it["title"] != s.Title {
			t.Fatalf("%s: %v %v %q: %v", s.FileName, it["transcodingState"], it["itemState"], it["title"], it["progressInfo"])
		}
		switch s.ItemType {
		case "video":
			for _, k := range []string{"proxy", "thumbnail", "thumbnailStrip"} {
				if it[k] == nil {
					t.Errorf("%s: no %s", s.FileName, k)
				}
			}
			// The proxy is shown as the file is meant to be seen: the
			// phone clip portrait, its rotation applied.
			p := probeLink(t, it["proxy"].(string))
			w, h := p.Video().DisplaySize()
			if want := s.FileName == "demo-phone-portrait.mp4"; (h > w) != want || p.Video().Rotation() != 0 {
				t.Errorf("%s: proxy %dx%d rotation %d", s.FileName, w, h, p.Video().Rotation())
			}
		case "audio":
			if it["proxy"] == nil || it["thumbnail"] != nil {
				t.Errorf("%s: audio proxy %v, thumbnail %v", s.FileName, it["proxy"], it["thumbnail"])
			}
			var g struct {
				Item struct{ WaveformURL *string } `json:"item"`
			}
			a.GraphQL(t, `query($id: ID!) { item(id: $id) { waveformUrl } }`, map[string]any{"id": id}).OK(&g)
			if g.Item.WaveformURL == nil {
				t.Errorf("%s: no waveform", s.FileName)
			}
		case "image":
			if it["thumbnail"] == nil {
				t.Errorf("%s: no thumbnail", s.FileName)
			}
		}
	}
}

// A key the server refuses is said with its status and message, before any
// sample is made, and the key itself is not repeated; a server that is not
// there is said to be unreachable.
func TestDemoErrors(t *testing.T) {
	api := loupetest.New(t)
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "samples")
	err = runDemo(context.Background(), demoConfig{URL: api.URL, APIKey: k.Header, Dir: dir}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), k.Header) {
		t.Fatalf("refused key: %v", err)
	}
	t.Logf("refused key: %v", err)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("samples were made for a refused key: %v", err)
	}
	err = runDemo(context.Background(), demoConfig{URL: "http://127.0.0.1:1", APIKey: k.Header}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cannot reach Loupe at http://127.0.0.1:1") || strings.Contains(err.Error(), k.Header) {
		t.Fatalf("no server: %v", err)
	}
}

// The flags fall back to LOUPE_URL and LOUPE_API_KEY, and the URL then to
// where `loupe serve` listens in the same environment.
func TestDemoFlags(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		args    []string
		env     map[string]string
		url     string
		key     string
		wantErr string
	}{
		{args: []string{"--api-key", "K"}, url: "http://localhost:8080", key: "K"},
		{env: map[string]string{"LOUPE_API_KEY": "E", "LOUPE_ADDR": ":9090"}, url: "http://localhost:9090", key: "E"},
		{env: map[string]string{"LOUPE_API_KEY": "E", "LOUPE_PUBLIC_URL": "https://mam.example"}, url: "https://mam.example", key: "E"},
		{args: []string{"--url", "http://h:1", "--api-key", "K"}, env: map[string]string{"LOUPE_URL": "http://x", "LOUPE_API_KEY": "E"}, url: "http://h:1", key: "K"},
		{env: map[string]string{"LOUPE_URL": "http://x", "LOUPE_API_KEY": "E"}, url: "http://x", key: "E"},
		{args: []string{}, wantErr: "demo needs an API key"},
		{args: []string{"--api-key", "K", "extra"}, wantErr: "no arguments"},
	} {
		got, err := parseDemoFlags(c.args, env(c.env))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v %v: error %v, want %q", c.args, c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.URL != c.url || got.APIKey != c.key || got.Timeout != 10*time.Minute {
			t.Errorf("%v %v: %+v %v", c.args, c.env, got, err)
		}
	}
}

// printedID is the id on the line the demo printed for title.
func printedID(t *testing.T, out, title string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if id, rest, ok := strings.Cut(line, "  "); ok && strings.HasPrefix(rest, title+"  ") {
			return id
		}
	}
	t.Fatalf("no line for %q in:\n%s", title, out)
	return ""
}

// probeLink downloads a signed link and probes it.
func probeLink(t *testing.T, link string) *media.Probe {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	f := filepath.Join(t.TempDir(), "download")
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := media.ProbeFile(context.Background(), f)
	if err != nil || p.Video() == nil {
		t.Fatalf("probe: %v %+v", err, p)
	}
	return p
}
