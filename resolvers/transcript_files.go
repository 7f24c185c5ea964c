package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/loupe-mam/loupe/internal/analysis/subtitles"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// storeTranscript writes a transcript with its files — the JSON of its
// segments (the bare array integrations read, docs/attachments.md), and
// the WebVTT and SRT made from it — under fresh keys, then the transcript
// (store.WriteTranscript, which points the item at them in one
// transaction), then deletes the files it replaced; on failure, its own.
// w's Key and Subtitles are filled here. Whoever writes it, a person or an
// engine, the subtitle files always follow the transcript.
func (r *Resolver) storeTranscript(ctx context.Context, w store.TranscriptWrite) (time.Time, string, error) {
	if w.Segments == nil {
		w.Segments = []*store.TranscriptSegment{}
	}
	doc, err := json.Marshal(w.Segments)
	if err != nil {
		return time.Time{}, "", err
	}
	cues := make([]subtitles.Cue, len(w.Segments))
	for i, s := range w.Segments {
		cues[i] = subtitles.Cue{StartMs: s.StartTime, EndMs: s.EndTime, Text: s.Content}
	}
	base := itemFilesPrefix(w.TenantID, w.ItemID) + "transcripts/" + w.LanguageCode + "-" + uuid.NewString()
	w.Key, w.Subtitles = base+".json", store.SubtitleFiles{VTT: base + ".vtt", SRT: base + ".srt"}
	files := []struct {
		key, contentType string
		body             []byte
	}{
		{w.Key, "application/json", doc},
		{w.Subtitles.VTT, "text/vtt; charset=utf-8", subtitles.WebVTT(cues)},
		{w.Subtitles.SRT, "application/x-subrip; charset=utf-8", subtitles.SRT(cues)},
	}
	drop := func(keys []string) {
		for _, k := range keys {
			r.deleteFile(ctx, k)
		}
	}
	mine := store.TranscriptFiles(w.Key)
	for _, f := range files {
		if _, err := r.Files.Put(ctx, f.key, bytes.NewReader(f.body), blob.WithContentType(f.contentType)); err != nil {
			drop(mine)
			return time.Time{}, "", err
		}
	}
	at, oldKey, err := r.Store.WriteTranscript(ctx, w)
	if err != nil {
		drop(mine)
		return time.Time{}, "", err
	}
	drop(store.TranscriptFiles(oldKey))
	return at, w.Key, nil
}

// transcriptLink is a signed link to a file of the item's transcript in
// lang (which picks it: the JSON, or one of the subtitle files), null when
// there is none. From the item's own row: no query.
func (r *Resolver) transcriptLink(obj *store.Item, lang *string, pick func(json string, subs store.SubtitleFiles) string) *string {
	if lang == nil || *lang == "" {
		return nil
	}
	key := pick(store.TranscriptKeys(obj.MediaDoc)[*lang], store.SubtitleKeys(obj.MediaDoc)[*lang])
	if key == "" {
		return nil
	}
	u := r.Blobs.URL("GET", key, time.Now(), blob.LinkValidity)
	return &u
}

func jsonFile(json string, _ store.SubtitleFiles) string { return json }
func vttFile(_ string, s store.SubtitleFiles) string     { return s.VTT }
func srtFile(_ string, s store.SubtitleFiles) string     { return s.SRT }

// orLink is a link made from the item's files, else the value stored on
// the item (what a client wrote before Loupe made the files).
func orLink(link, stored *string) *string {
	if link != nil {
		return link
	}
	return stored
}

// StoreTranscript is storeTranscript for the analysis worker
// (internal/analysis/worker), which writes an engine's transcripts.
func (r *Resolver) StoreTranscript(ctx context.Context, w store.TranscriptWrite) error {
	_, _, err := r.storeTranscript(ctx, w)
	return err
}
