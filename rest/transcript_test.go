package rest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis/subtitles"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

var transcriptUpdateKeys = []string{"itemId", "languageCode", "transcriptLastUpdated", "timedTranscriptUrl"}

const msgInvalidSyntax = "The server could not understand the request due to invalid syntax."

type segment struct {
	Content   string `json:"content"`
	StartTime int    `json:"startTime"`
	EndTime   int    `json:"endTime"`
}

type transcriptDoc struct {
	LanguageCode    string    `json:"languageCode"`
	TimedTranscript []segment `json:"timedTranscript"`
}

func putTranscript(t *testing.T, c *loupetest.Client, itemID string, doc transcriptDoc) map[string]any {
	t.Helper()
	got := c.Put(t, "/api/v1/items/"+itemID+"/transcript", doc).Status(http.StatusOK).Object()
	sameKeys(t, "transcript update", got, transcriptUpdateKeys)
	return got
}

func TestTranscriptUpdate(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video", "languageCode": "en-US"})
	if it := a.Get(t, "/api/v1/items/"+id).Object(); it["transcriptLastUpdated"] != nil || it["timedTranscriptUrl"] != nil {
		t.Fatalf("before any transcript: transcriptLastUpdated %v, timedTranscriptUrl %v", it["transcriptLastUpdated"], it["timedTranscriptUrl"])
	}
	en := transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{
		{"Hello and welcome.", 0, 1800}, {"Today: transcripts.", 1800, 4200}, {"(silence)", 4200, 4200},
	}}
	got := putTranscript(t, a, id, en)
	if got["itemId"] != id || got["languageCode"] != "en-US" {
		t.Fatalf("update answered %v", got)
	}
	stamp := got["transcriptLastUpdated"].(string)
	if ts, err := time.Parse(time.RFC3339, stamp); err != nil || time.Since(ts) > time.Minute || !strings.HasSuffix(stamp, "Z") {
		t.Fatalf("transcriptLastUpdated = %q", stamp)
	}
	// The file is the bare array of segments, as integrations read it.
	file := download(t, api, got["timedTranscriptUrl"].(string)).Status(200).Body
	var served []segment
	if err := json.Unmarshal(file, &served); err != nil {
		t.Fatalf("timedTranscriptUrl serves %s, not an array of segments: %v", file, err)
	}
	if b1, b2 := mustJSON(t, served), mustJSON(t, en.TimedTranscript); b1 != b2 {
		t.Fatalf("timedTranscriptUrl serves %s, want %s", b1, b2)
	}
	firstKey := blobKeyOf(t, got["timedTranscriptUrl"].(string))
	if want := a.TenantID + "/items/" + id + "/transcripts/en-US-"; !strings.HasPrefix(firstKey, want) || !strings.HasSuffix(firstKey, ".json") {
		t.Fatalf("transcript key %q, want %s<uuid>.json", firstKey, want)
	}

	// The item record follows.
	it := a.Get(t, "/api/v1/items/"+id).Object()
	if it["transcriptLastUpdated"] != stamp || blobKeyOf(t, it["timedTranscriptUrl"].(string)) != firstKey || it["modifiedOn"] != stamp {
		t.Fatalf("item after update: transcriptLastUpdated %v timedTranscriptUrl %v modifiedOn %v", it["transcriptLastUpdated"], it["timedTranscriptUrl"], it["modifiedOn"])
	}

	// Subtitles made from it: WebVTT and SRT that parse back to the
	// segments (a zero-length segment lasting 1 ms).
	want := []subtitles.Cue{{StartMs: 0, EndMs: 1800, Text: "Hello and welcome."}, {StartMs: 1800, EndMs: 4200, Text: "Today: transcripts."},
		{StartMs: 4200, EndMs: 4201, Text: "(silence)"}}
	for field, parse := range map[string]func([]byte) ([]subtitles.Cue, error){"vttUrl": subtitles.ParseWebVTT, "srtUrl": subtitles.ParseSRT} {
		link, _ := it[field].(string)
		if link == "" {
			t.Fatalf("%s is %v after a transcript", field, it[field])
		}
		r := download(t, api, link).Status(200)
		cues, err := parse(r.Body)
		if err != nil || !reflect.DeepEqual(cues, want) {
			t.Fatalf("%s serves %q: %v %v", field, r.Body, cues, err)
		}
	}
	firstVTT := blobKeyOf(t, it["vttUrl"].(string))

	// Another language: stamps the item, but its link stays the item's language.
	de := putTranscript(t, a, id, transcriptDoc{LanguageCode: "de-DE", TimedTranscript: []segment{{"Hallo.", 0, 900}}})
	it = a.Get(t, "/api/v1/items/"+id).Object()
	if it["transcriptLastUpdated"] != de["transcriptLastUpdated"] || blobKeyOf(t, it["timedTranscriptUrl"].(string)) != firstKey {
		t.Fatalf("after a de-DE transcript: %v, %v", it["transcriptLastUpdated"], it["timedTranscriptUrl"])
	}

	// Replacing: new file, old one gone, an empty transcript allowed.
	again := putTranscript(t, a, id, transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{}})
	if blobExists(t, api, firstKey) || blobExists(t, api, firstVTT) {
		t.Fatal("the replaced transcript's files are still stored")
	}
	// An edit makes the subtitles again.
	it = a.Get(t, "/api/v1/items/"+id).Object()
	if vtt := download(t, api, it["vttUrl"].(string)).Status(200).Body; string(vtt) != "WEBVTT\n" {
		t.Fatalf("subtitles of an empty transcript: %q", vtt)
	}
	if file := download(t, api, again["timedTranscriptUrl"].(string)).Status(200).Body; string(file) != "[]" {
		t.Fatalf("replaced transcript serves %s, want []", file)
	}
	if n := api.Count(t, `SELECT count(*) FROM transcripts WHERE item_id = $1`, id); n != 2 {
		t.Fatalf("%d transcript rows, want en-US and de-DE", n)
	}
}

func TestTranscriptUpdateRefusesBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video"})
	foreign := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "video"})
	putTranscript(t, a, id, transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{{"Hi.", 0, 10}}})

	snapshot := func() string {
		var s string
		if err := api.DB.Get(&s, `SELECT coalesce(string_agg(item_id || language_code || segments::text || blob_key, ',' ORDER BY item_id, language_code), '')
			|| (SELECT string_agg(id || modified_on::text || coalesce(transcript_last_updated::text, '-') || media::text, ',' ORDER BY id) FROM items)
			FROM transcripts`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	seg := func(c string, s, e any) map[string]any {
		return map[string]any{"content": c, "startTime": s, "endTime": e}
	}
	body := func(lang any, segs ...any) map[string]any {
		return map[string]any{"languageCode": lang, "timedTranscript": segs}
	}
	many := make([]any, 100_001)
	for i := range many {
		many[i] = seg("x", i, i)
	}
	// Every invalid body answers the spec's message, with what is wrong as
	// developerMessage (Route.Invalid), also those the GraphQL input
	// coercion refuses before the resolver runs.
	const coerced = msgInvalidSyntax
	cases := []struct {
		name, message, developerMessage string
		body                            any
	}{
		{"unparsable", msgInvalidSyntax, "", `{"languageCode": "en-US", `},
		{"language not BCP 47", msgInvalidSyntax, `languageCode must be a BCP 47 language-region tag such as en-US, got "english"`, body("english", seg("a", 0, 1))},
		{"language without region", msgInvalidSyntax, "", body("en", seg("a", 0, 1))},
		{"language lowercase region", msgInvalidSyntax, "", body("en-us", seg("a", 0, 1))},
		{"empty content", msgInvalidSyntax, "timedTranscript[1].content is empty", body("en-US", seg("a", 0, 1), seg("  ", 1, 2))},
		{"negative start", msgInvalidSyntax, "timedTranscript[0].startTime is negative", body("en-US", seg("a", -1, 1))},
		{"end before start", msgInvalidSyntax, "timedTranscript[0].endTime is before its startTime", body("en-US", seg("a", 5, 4))},
		{"too many segments", msgInvalidSyntax, "timedTranscript has 100001 segments, at most 100000 are allowed", body("en-US", many...)},
		{"not an object", coerced, "", `[]`},
		{"no language", coerced, "", map[string]any{"timedTranscript": []any{seg("a", 0, 1)}}},
		{"no segments", coerced, "", map[string]any{"languageCode": "en-US"}},
		{"segments not a list", coerced, "", map[string]any{"languageCode": "en-US", "timedTranscript": "hello"}},
		{"no content", coerced, "", body("en-US", map[string]any{"startTime": 0, "endTime": 1})},
		{"time not a number", coerced, "", body("en-US", seg("a", "soon", 1))},
		// Types are taken as written: a numeric string is not a number.
		{"start a numeric string", coerced, "timedTranscript[0].startTime: must be an integer", body("en-US", seg("a", "5", 6))},
		{"end a numeric string", coerced, "timedTranscript[0].endTime: must be an integer", body("en-US", seg("a", 5, "6"))},
		{"start a boolean", coerced, "timedTranscript[0].startTime: cannot use bool as Int", body("en-US", seg("a", true, 6))},
		{"unknown key", coerced, "", map[string]any{"languageCode": "en-US", "timedTranscript": []any{}, "format": "srt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := a.Put(t, "/api/v1/items/"+id+"/transcript", c.body).Envelope(400, c.message)
			if c.developerMessage != "" && env["developerMessage"] != c.developerMessage {
				t.Fatalf("developerMessage = %v, want %q", env["developerMessage"], c.developerMessage)
			}
		})
	}
	ok := transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{{"x", 0, 1}}}
	a.Put(t, "/api/v1/items/"+foreign+"/transcript", ok).Envelope(404, "The server can not find requested resource.")
	a.Put(t, "/api/v1/items/"+missingID+"/transcript", ok).Envelope(404, "The server can not find requested resource.")
	if after := snapshot(); after != before {
		t.Fatalf("refused updates changed transcripts or items:\nbefore %s\nafter  %s", before, after)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Transcripts are searched (weight D): a word said in any of an item's
// transcripts finds it, below an item whose title holds the word; an
// edit that removes the word stops finding it.
func TestTranscriptIsSearchable(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	said := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video", "languageCode": "en-US"})
	titled := a.CreateItem(t, map[string]any{"title": "Zanzibar harbour", "itemType": "video"})
	putTranscript(t, a, said, transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{{"We sailed to Zanzibar at dawn.", 0, 2000}}})
	putTranscript(t, a, said, transcriptDoc{LanguageCode: "es-ES", TimedTranscript: []segment{{"Navegamos al amanecer.", 0, 2000}}})
	q := func(c *loupetest.Client, words string) []string {
		return search(t, c, url.Values{"searchString": {words}}).ids()
	}
	if got := q(a, "zanzibar"); !reflect.DeepEqual(got, []string{titled, said}) {
		t.Fatalf("zanzibar found %v, want the titled item, then the one it was said in", got)
	}
	if got := q(a, "amanecer"); !reflect.DeepEqual(got, []string{said}) {
		t.Fatalf("a word of the translation found %v", got)
	}
	if got := q(b, "zanzibar"); len(got) != 0 {
		t.Fatalf("another tenant found %v", got)
	}
	putTranscript(t, a, said, transcriptDoc{LanguageCode: "en-US", TimedTranscript: []segment{{"We stayed home.", 0, 2000}}})
	if got := q(a, "zanzibar"); !reflect.DeepEqual(got, []string{titled}) {
		t.Fatalf("after the edit: %v", got)
	}
}
