package rest_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/analysis/engine/sphinx"
	"github.com/loupe-mam/loupe/internal/analysis/subtitles"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/speechtest"
	"github.com/loupe-mam/loupe/internal/testkit/stttest"
	"github.com/loupe-mam/loupe/server"
)

// speechClip is a video whose sound says speechtest.Sentences.
func speechClip(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	wav, _ := speechtest.Say(t, dir, speechtest.Sentences...)
	clip := filepath.Join(dir, "speech.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
		"-i", wav, "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", clip).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	data, err := os.ReadFile(clip)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// waitAnalysis polls the item until the analysis of kind has ended.
func waitAnalysis(t *testing.T, a *loupetest.Client, itemID, kind string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var out struct {
			Item struct{ Analysis map[string]map[string]any }
		}
		a.GraphQL(t, `query($id: ID!) { item(id: $id) { analysis } }`, map[string]any{"id": itemID}).OK(&out)
		st := out.Item.Analysis[kind]
		switch st["state"] {
		case "complete", "failed", "kept", "notConfigured":
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s of %s still %v", kind, itemID, out.Item.Analysis)
		}
	}
}

// An item whose transcription is switched on is transcribed after its
// processing, and translated into the tenant's translation language: the
// transcript and its subtitles say what was spoken, at the times it was
// spoken; the state fields move; metering counts the minutes per engine;
// search finds a spoken word; a person's edit survives a re-run unless
// forced.
func TestUploadIsTranscribedAndTranslated(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t, sphinx.Binary, "apertium")
	data := speechClip(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	a.Post(t, configPath, map[string]any{"translationLanguage": "es-ES", "autoTranslationEnabled": true}).Status(http.StatusOK)
	item := a.CreateItem(t, map[string]any{"title": "Said", "itemType": "video", "languageCode": "en-US",
		"transcriptionEnabled": true})
	withOriginal(t, api, a, item, "speech.mp4", data)
	waitState(t, api, a, item, nil, "complete", "failed")
	if st := waitAnalysis(t, a, item, "transcription"); st["state"] != "complete" || st["service"] != "pocketsphinx" {
		t.Fatalf("transcription: %v", st)
	}
	if st := waitAnalysis(t, a, item, "translation"); st["state"] != "complete" || st["service"] != "apertium" {
		t.Fatalf("translation: %v", st)
	}
	it := a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK).Object()
	if it["transcriptionState"] != "complete" || it["transcriptionService"] != "pocketsphinx" || it["transcriptionBy"] == nil ||
		it["transcriptionProgress"] != float64(100) || it["translationBy"] != "apertium" || it["transcriptLastUpdated"] == nil {
		t.Fatalf("item: %v %v %v %v %v", it["transcriptionState"], it["transcriptionService"], it["transcriptionBy"],
			it["transcriptionProgress"], it["translationBy"])
	}
	// The subtitles: what was said, in order, within the clip.
	cues := func(field string, parse func([]byte) ([]subtitles.Cue, error)) []subtitles.Cue {
		link, _ := it[field].(string)
		r := download(t, api, link).Status(200)
		cs, err := parse(r.Body)
		if err != nil || len(cs) == 0 {
			t.Fatalf("%s serves %q: %v", field, r.Body, err)
		}
		return cs
	}
	var heard []string
	var last int64
	for _, c := range cues("vttUrl", subtitles.ParseWebVTT) {
		if c.StartMs < last || c.EndMs > 20_000 {
			t.Fatalf("cue out of order or past the clip: %+v", c)
		}
		last = c.StartMs
		heard = append(heard, c.Text)
	}
	wer := analysis.WordErrorRate(strings.Join(speechtest.Sentences, " "), strings.Join(heard, " "))
	t.Logf("heard %q (word error rate %.2f)", heard, wer)
	if wer > 0.35 {
		t.Fatalf("word error rate %.2f", wer)
	}
	if srt := cues("srtUrl", subtitles.ParseSRT); len(srt) != len(heard) {
		t.Fatalf("SRT has %d cues, WebVTT %d", len(srt), len(heard))
	}
	spanish := cues("translationVttUrl", subtitles.ParseWebVTT)
	if all := strings.ToLower(subtitlesText(spanish)); !strings.Contains(all, "puerto") && !strings.Contains(all, "informe") {
		t.Fatalf("the translation %q has none of the Spanish words", all)
	}
	// Metering, per engine.
	m := readMetering(t, a, "")
	tr, tl := m.MeteringInfo.OperationData["transcription"], m.MeteringInfo.OperationData["translation"]
	if tr.Count != 1 || tr.Unit < 0.1 || tr.ByProvider["pocketsphinx"] == nil || tl.Count != 1 || tl.ByProvider["apertium"] == nil {
		t.Fatalf("metering: transcription %+v, translation %+v", tr, tl)
	}
	// Search finds what was said.
	if ids := search(t, a, map[string][]string{"searchString": {"harbor"}}).ids(); len(ids) != 1 || ids[0] != item {
		t.Fatalf("search for a spoken word: %v", ids)
	}

	// A person's edit is kept by a re-run, replaced when forced.
	putTranscript(t, a, item, transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{{"Edited by hand.", 0, 1000}}})
	a.Post(t, "/api/v1/process", map[string]any{"itemId": item, "steps": []string{"transcription"}}).Status(http.StatusOK)
	waitFor(t, api, func() bool { return analysisState(t, a, item, "transcription") == "kept" })
	a.Post(t, "/api/v1/process", map[string]any{"itemId": item, "steps": []string{"transcription"}, "force": true}).Status(http.StatusOK)
	waitFor(t, api, func() bool { return analysisState(t, a, item, "transcription") == "complete" })
	it = a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK).Object()
	if text := subtitlesText(cues("vttUrl", subtitles.ParseWebVTT)); strings.Contains(text, "Edited by hand") {
		t.Fatalf("forced re-run kept the edit: %q", text)
	}
}

// A language no engine here has fails saying so, and the item stays
// processed.
func TestTranscriptionOfAnUnsupportedLanguageFails(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t, sphinx.Binary)
	data := speechClip(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Dit", "itemType": "video", "languageCode": "fr-FR", "transcriptionEnabled": true})
	withOriginal(t, api, a, item, "speech.mp4", data)
	st := waitAnalysis(t, a, item, "transcription")
	if st["state"] != "failed" || !strings.Contains(st["error"].(string), "fr-FR") {
		t.Fatalf("fr-FR transcription: %v", st)
	}
	it := a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK).Object()
	if it["transcriptionState"] != "failed" || it["transcodingState"] != "complete" || it["vttUrl"] != nil {
		t.Fatalf("item: %v %v %v", it["transcriptionState"], it["transcodingState"], it["vttUrl"])
	}
	// Analysis alone of an item never processed: 400.
	other := a.CreateItem(t, map[string]any{"title": "Empty", "itemType": "video"})
	a.Post(t, "/api/v1/process", map[string]any{"itemId": other, "steps": []string{"transcription"}}).Status(http.StatusBadRequest)
}

func analysisState(t *testing.T, a *loupetest.Client, itemID, kind string) any {
	var out struct {
		Item struct{ Analysis map[string]map[string]any }
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { analysis } }`, map[string]any{"id": itemID}).OK(&out)
	return out.Item.Analysis[kind]["state"]
}

// waitFor waits for cond; speech recognition runs at nice 19, so a loaded
// machine (the whole suite at once) slows it much.
func waitFor(t *testing.T, api *loupetest.API, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			var jobs []string
			api.DB.Select(&jobs, `SELECT kind || ' ' || state || ' ' || args::text || coalesce(errors::text, '') FROM river_job WHERE kind = 'analyze_item'`) //nolint:errcheck
			var analyses []string
			api.DB.Select(&analyses, `SELECT COALESCE(media->'analysis', 'null')::text FROM items WHERE media ? 'analysis'`) //nolint:errcheck
			t.Fatalf("condition not met in 5 minutes; jobs: %v; analyses: %v", jobs, analyses)
		}
	}
}

func subtitlesText(cs []subtitles.Cue) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Text + " ")
	}
	return b.String()
}

// With a speech-to-text service configured (LOUPE_STT_URL) and the
// tenant's transcriptionApiKey, transcription goes through it
// (externalSpeechToText) over the OpenAI-compatible protocol, to a local
// service that transcribes for real; a key it refuses, or a language it
// lacks, ends the kind saying so — the key never in what is said.
func TestExternalSpeechToText(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t, sphinx.Binary)
	data := speechClip(t)
	stt := stttest.Start(t, "sk-test-0123456789")
	api := loupetest.New(t, func(c *server.Config) { c.SpeechToTextURL = stt.URL })
	a := api.Tenant(t, "a")
	a.Post(t, configPath, map[string]any{"transcriptionApiKey": "sk-test-0123456789"}).Status(http.StatusOK)
	item := a.CreateItem(t, map[string]any{"title": "Said", "itemType": "video", "languageCode": "en-US", "transcriptionEnabled": true})
	withOriginal(t, api, a, item, "speech.mp4", data)
	if st := waitAnalysis(t, a, item, "transcription"); st["state"] != "complete" || st["service"] != "externalSpeechToText" {
		t.Fatalf("transcription: %v", st)
	}
	it := a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK).Object()
	r := download(t, api, it["vttUrl"].(string)).Status(200)
	cues, err := subtitles.ParseWebVTT(r.Body)
	if err != nil || it["transcriptionService"] != "externalSpeechToText" {
		t.Fatalf("%v %v", err, it["transcriptionService"])
	}
	if wer := analysis.WordErrorRate(strings.Join(speechtest.Sentences, " "), subtitlesText(cues)); wer > 0.35 {
		t.Fatalf("word error rate %.2f: %q", wer, subtitlesText(cues))
	}
	reqs := stt.Requests()
	if len(reqs) != 1 || reqs[0].Model != "whisper-1" || reqs[0].Language != "en" || reqs[0].ResponseFormat != "verbose_json" ||
		reqs[0].Bytes < 100_000 || len(reqs[0].Granularities) != 2 {
		t.Fatalf("requests: %+v", reqs)
	}

	// A key the service refuses: notConfigured, saying so without the key.
	b := api.Tenant(t, "b")
	b.Post(t, configPath, map[string]any{"transcriptionApiKey": "sk-wrong-key-42"}).Status(http.StatusOK)
	other := b.CreateItem(t, map[string]any{"title": "Said", "itemType": "video", "languageCode": "en-US", "transcriptionEnabled": true})
	withOriginal(t, api, b, other, "speech.mp4", data)
	st := waitAnalysis(t, b, other, "transcription")
	if msg, _ := st["error"].(string); st["state"] != "notConfigured" || !strings.Contains(msg, "refused") || strings.Contains(msg, "sk-wrong") {
		t.Fatalf("refused key: %v", st)
	}
	// A language the service lacks fails at once, with its reason.
	fr := a.CreateItem(t, map[string]any{"title": "Dit", "itemType": "video", "languageCode": "fr-FR", "transcriptionEnabled": true})
	withOriginal(t, api, a, fr, "speech.mp4", data)
	st = waitAnalysis(t, a, fr, "transcription")
	if msg, _ := st["error"].(string); st["state"] != "failed" || !strings.Contains(msg, "unsupported language: fr") {
		t.Fatalf("unsupported language: %v", st)
	}
}
