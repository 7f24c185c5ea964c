// Package transcripts writes an item's transcripts with their files: the
// JSON of the segments (the bare array integrations read,
// docs/attachments.md) and the WebVTT and SRT made from it. Whoever writes a
// transcript, a person (the resolvers) or an engine (the analysis worker),
// the subtitle files always follow it.
package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/analysis/subtitles"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// Writer writes transcripts.
type Writer struct {
	Store *store.Store
	// Files holds the transcripts' files.
	Files blob.Store
}

// Write writes w's files under fresh keys, then the transcript
// (store.WriteTranscript, which points the item at them in one
// transaction), then deletes the files it replaced; on failure, its own.
// w's Key and Subtitles are filled here. It answers when the transcript
// was written and its JSON file's key.
func (t *Writer) Write(ctx context.Context, w store.TranscriptWrite) (time.Time, string, error) {
	if t.Files == nil {
		return time.Time{}, "", errors.New("transcripts: this server has no file store")
	}
	if w.Segments == nil {
		w.Segments = []*loupe.TranscriptSegment{}
	}
	doc, err := json.Marshal(w.Segments)
	if err != nil {
		return time.Time{}, "", err
	}
	cues := make([]subtitles.Cue, len(w.Segments))
	for i, s := range w.Segments {
		cues[i] = subtitles.Cue{StartMs: s.StartTime, EndMs: s.EndTime, Text: s.Content}
	}
	base := loupe.ItemFilesPrefix(w.TenantID, w.ItemID) + "transcripts/" + w.LanguageCode + "-" + uuid.NewString()
	w.Key, w.Subtitles = base+".json", store.SubtitleFiles{VTT: base + ".vtt", SRT: base + ".srt"}
	files := []struct {
		key, contentType string
		body             []byte
	}{
		{w.Key, "application/json", doc},
		{w.Subtitles.VTT, "text/vtt; charset=utf-8", subtitles.WebVTT(cues)},
		{w.Subtitles.SRT, "application/x-subrip; charset=utf-8", subtitles.SRT(cues)},
	}
	mine := store.TranscriptFiles(w.Key)
	for _, f := range files {
		if _, err := t.Files.Put(ctx, f.key, bytes.NewReader(f.body), blob.WithContentType(f.contentType)); err != nil {
			t.drop(ctx, mine)
			return time.Time{}, "", err
		}
	}
	at, oldKey, err := t.Store.WriteTranscript(ctx, w)
	if err != nil {
		t.drop(ctx, mine)
		return time.Time{}, "", err
	}
	t.drop(ctx, store.TranscriptFiles(oldKey))
	return at, w.Key, nil
}

// drop deletes files the database does not point at. A failure leaves an
// orphan, which costs space but no correctness: it is logged rather than
// failing a write that has committed.
func (t *Writer) drop(ctx context.Context, keys []string) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if err := t.Files.Delete(context.WithoutCancel(ctx), k); err != nil {
			reqlog.From(ctx).WarnContext(ctx, "could not delete replaced file", "key", k, "err", err)
		}
	}
}
