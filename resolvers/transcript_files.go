package resolvers

import (
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

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
