package store_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/store"
)

// The generated-media document keeps its shape: outputs are keys beside
// prefix, kind and madeOn (what SQL reads as media->'generated'->>'proxy'),
// one made several times an array; what was written reads back the same.
func TestGeneratedMediaDocument(t *testing.T) {
	const doc = `{"prefix":"media/t/i/generated/1-1/","kind":"video","proxy":"media/t/i/generated/1-1/proxy.mp4",
		"audioTracks":["media/t/i/generated/1-1/audio_1.m4a"],"madeOn":"2026-01-02T03:04:05Z","early":true}`
	var g store.GeneratedMedia
	if err := json.Unmarshal([]byte(doc), &g); err != nil {
		t.Fatal(err)
	}
	want := store.GeneratedMedia{Prefix: "media/t/i/generated/1-1/", Kind: "video", MadeOn: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Files: map[string]string{"proxy": "media/t/i/generated/1-1/proxy.mp4"},
		Lists: map[string][]string{"audioTracks": {"media/t/i/generated/1-1/audio_1.m4a"}}}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("read %+v, want %+v", g, want)
	}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var flat map[string]any
	if err := json.Unmarshal(b, &flat); err != nil {
		t.Fatal(err)
	}
	if flat["proxy"] != want.Files["proxy"] || len(flat["audioTracks"].([]any)) != 1 || flat["prefix"] != want.Prefix {
		t.Errorf("written %s", b)
	}
	var again store.GeneratedMedia
	if err := json.Unmarshal(b, &again); err != nil || !reflect.DeepEqual(again, want) {
		t.Errorf("read back %+v (%v)", again, err)
	}
	var none *store.GeneratedMedia
	if none.File("proxy") != "" || none.List("audioTracks") != nil {
		t.Error("an item without generated media answers outputs")
	}
}
