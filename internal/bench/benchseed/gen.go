package benchseed

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// This file makes up the content: names, metadata and comment text that
// look like a media team's, drawn deterministically from an item's number so
// that the same spec seeds the same data (apart from ids and timestamps).

// mix is splitmix64: a cheap, well-spread hash of an item's number.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func pick[T any](list []T, h uint64) T { return list[h%uint64(len(list))] }

var (
	subjects = []string{"Interview", "B-roll", "Drone shot", "Press conference", "Studio session", "Rehearsal",
		"Street scene", "Product teaser", "Keynote", "Voice-over", "Panel talk", "Concert", "Timelapse",
		"Behind the scenes", "Trailer", "Match highlights", "Weather report", "Podcast", "Portrait", "Vox pop"}
	places = []string{"Berlin", "Lisbon", "Nairobi", "Osaka", "Toronto", "Lyon", "Oslo", "Valparaíso", "Hanoi",
		"Cape Town", "Reykjavik", "Denver", "Seville", "Kraków", "Melbourne", "Montevideo"}
	people = []string{"Ana", "Bruno", "Chen", "Dara", "Emeka", "Fatima", "Gustav", "Hana", "Ivo", "Jonas",
		"Kemal", "Lea", "Mira", "Noor", "Oskar", "Priya"}
	moods = []string{"wide angle", "handheld", "low light", "golden hour", "close-up", "two-camera setup",
		"rough cut", "colour graded", "raw", "approved"}
	keywords = []string{"news", "sports", "culture", "politics", "archive", "social", "promo", "education",
		"music", "nature", "tech", "travel"}
	commentTexts = []string{"Trim the first seconds", "Audio drops out here", "Great shot, keep it",
		"Can we get a cleaner take?", "Colour looks off in this section", "Approved for the edit",
		"Needs subtitles", "Check the rights for this music", "Logo visible, blur it", "Use this as the thumbnail",
		"Too long, cut to the chase", "Who is the person on the left?", "Duplicate of the earlier upload",
		"Please re-export in 4K", "Love this moment"}
	replyTexts = []string{"Done", "Agreed", "Fixed in the new version", "Will do", "Not sure, asking legal",
		"Good catch", "Already on it"}
	reactionSet = []string{"👍", "🎉", "👀", "❤️", "ok"}
	relTypes    = []string{"related", "derivedFrom", "partOf", "translationOf"}
)

// itemKind is a media item's type and what its file looks like.
type itemKind struct {
	itemType, ext, mediaType string
}

// kinds by share: 40% video, 30% image, 15% audio, 15% document.
var kinds = [20]itemKind{}

func init() {
	for i := range kinds {
		switch {
		case i < 8:
			kinds[i] = itemKind{"video", "mov", "video/quicktime"}
		case i < 14:
			kinds[i] = itemKind{"image", "jpg", "image/jpeg"}
		case i < 17:
			kinds[i] = itemKind{"audio", "wav", "audio/wav"}
		default:
			kinds[i] = itemKind{"document", "pdf", "application/pdf"}
		}
	}
}

func kindOf(i int) itemKind { return kinds[mix(uint64(i)^0x6b696e64)%uint64(len(kinds))] }

// itemTitle is unique per item: the number keeps titles of a big folder
// distinct while the words spread them over the alphabet, as a name sort
// of real content does.
func itemTitle(i int) string {
	h := mix(uint64(i))
	return pick(subjects, h) + " " + pick(places, h>>16) + " " + fmt.Sprintf("%06d", i)
}

func fileName(title string, k itemKind) string {
	return strings.ReplaceAll(strings.ToLower(title), " ", "_") + "." + k.ext
}

// formData is the item's default-form metadata, as the API stores it: the
// title under default_title, a description and a few more fields.
func formData(i int, title string) string {
	h := mix(uint64(i) ^ 0x666f726d)
	kw := []string{pick(keywords, h), pick(keywords, h>>8), pick(keywords, h>>16)}
	m := map[string]any{
		"default_title": title,
		"default_description": fmt.Sprintf("%s, %s. Shot in %s by %s; edited by %s.",
			pick(subjects, h>>24), pick(moods, h>>32), pick(places, h>>36), pick(people, h>>40), pick(people, h>>44)),
		"default_keywords": strings.Join(kw, ", "),
		"default_location": pick(places, h>>48),
		"default_rating":   int(h>>52) % 5,
		"default_producer": pick(people, h>>56),
	}
	b, _ := json.Marshal(m) // a map of strings and ints always encodes
	return string(b)
}

// createDiff is a create audit record's mdfDiff, as the API writes it.
func createDiff(data string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal([]byte(data), &m) // formData's own output
	return string(store.CreateDiff("default", m))
}

// metadataDiff is a metadataUpdated record's mdfDiff: a new description.
func metadataDiff(h uint64) string {
	b, _ := json.Marshal(map[string]any{"oldMdfId": "default", "newMdfId": "default",
		"metadataFields": []map[string]any{{"fieldId": "default_description",
			"oldValue": pick(moods, h), "newValue": pick(moods, h>>8) + ", " + pick(moods, h>>16)}}})
	return string(b)
}

// timelineContext is a comment's context as the API stores it
// (store.CommentContext's JSON).
func timelineContext(start, length float64) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return `{"type":"timeline","startSecond":{"approximate":` + f(start) + `},"endSecond":{"approximate":` + f(start+length) + `}}`
}

// folderName names a folder by its depth, the way a media team's tree
// reads: projects, then productions, days, cameras, selects.
func folderName(depth, n int, h uint64) string {
	levels := [][]string{
		{"Project", "Campaign", "Series", "Archive", "Client"},
		{"Episode", "Production", "Shoot", "Event"},
		{"Day", "Location", "Session"},
		{"Camera", "Audio", "Stills"},
		{"Selects", "Rushes", "Exports"},
		{"Version", "Review", "Final"},
	}
	words := levels[min(depth, len(levels)-1)]
	if depth == 0 {
		return pick(words, h) + " " + pick(places, h>>8) + " " + strconv.Itoa(n)
	}
	return pick(words, h) + " " + strconv.Itoa(n)
}

// spread places n events evenly from 'from' to 'to', the k-th at the returned time.
func spread(from, to time.Time, k, n int) time.Time {
	if n <= 1 {
		return from
	}
	return from.Add(time.Duration(int64(to.Sub(from)) / int64(n) * int64(k))).Truncate(time.Microsecond)
}

// spoken is what transcripts say: everyday words with the subjects' and
// places' words among them, so that some searches find transcript hits.
var spoken = strings.Fields(`we are here today to talk about the new season and what it means for the city
the weather was rough this morning but the crew kept going until sunset at the harbour
our guests explain how the project started and why the archive matters so much to them
the concert opened with a short interview backstage before the band went on
please check the rights for the music before this goes out on air tonight`)

// evenly reports whether item i of n is one of the k spread evenly over
// them (exactly k of the n are).
func evenly(i, k, n int) bool {
	return k > 0 && int64(i)*int64(k)/int64(n) != int64(i+1)*int64(k)/int64(n)
}

// transcript is item i's transcript: a dozen segments of 4–9 spoken words,
// four seconds apart, as JSON (store's segments) and as the text search
// keeps (store's transcript_text: the contents joined by spaces).
func transcript(i int) (segments, text string) {
	h := mix(uint64(i) ^ 0x74657874)
	segs := make([]loupe.TranscriptSegment, 12)
	words := make([]string, 0, 12*9)
	for k := range segs {
		n := 4 + int(h>>uint(k*4)%6)
		from := int(mix(h+uint64(k)) % uint64(len(spoken)-n))
		content := strings.Join(spoken[from:from+n], " ")
		segs[k] = loupe.TranscriptSegment{Content: content, StartTime: int64(k) * 4000, EndTime: int64(k)*4000 + 3500}
		words = append(words, content)
	}
	b, _ := json.Marshal(segs) // plain structs always encode
	return string(b), strings.Join(words, " ")
}

// detectedEntry is one text detection result as timed metadata.
type detectedEntry struct {
	id             string
	startMs, endMs int64
	data           string
}

// detectedText is the text detection entries of item i: on-screen text
// (lower thirds and signs) every ten seconds, as the analysis worker
// writes them (internal/analysis/worker/text.go).
func detectedText(i int) []detectedEntry {
	h := mix(uint64(i) ^ 0x64657465)
	out := make([]detectedEntry, 3)
	for k := range out {
		text := pick(people, h>>uint(k*8)) + " — " + pick(places, h>>uint(k*8+4))
		start := int64(k) * 10_000
		b, _ := json.Marshal(map[string]any{"default_title": text, "default_text": text,
			"default_confidence": 0.8 + float64(h>>uint(k*3)%20)/100})
		out[k] = detectedEntry{id: fmt.Sprintf("detected-text-%d", start), startMs: start, endMs: start + 10_000, data: string(b)}
	}
	return out
}
