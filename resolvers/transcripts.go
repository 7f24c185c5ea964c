package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/blob"
	"github.com/loupe-mam/loupe/loaders"
	"github.com/loupe-mam/loupe/store"
)

// updateTranscript stores the transcript's file first, under a fresh key,
// then points the database at it; a failed write deletes the new file, a
// successful one the file it replaced. Readers see the old transcript or the
// new one, never a link to a missing file.
func (r *Resolver) updateTranscript(ctx context.Context, input model.UpdateTranscriptInput) (*model.UpdateTranscriptPayload, error) {
	p, err := r.onItem(ctx, input.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	if err := store.ValidateTranscript(input.LanguageCode, input.TimedTranscript); err != nil {
		return nil, err
	}
	// Unknown items answer before any file is written.
	if _, err := r.loaders(ctx).Item.Load(ctx, input.ItemID); err != nil {
		return nil, err
	}
	segments := input.TimedTranscript
	if segments == nil {
		segments = []*store.TranscriptSegment{}
	}
	doc, err := json.Marshal(store.TranscriptDocument{LanguageCode: input.LanguageCode, TimedTranscript: segments})
	if err != nil {
		return nil, err
	}
	key := itemFilesPrefix(p.TenantID, input.ItemID) + "transcripts/" + input.LanguageCode + "-" + uuid.NewString() + ".json"
	if _, err := r.Files.Put(ctx, key, bytes.NewReader(doc)); err != nil {
		return nil, err
	}
	at, oldKey, err := r.Store.UpdateTranscript(ctx, p, input.ItemID, input.LanguageCode, segments, key)
	if err != nil {
		r.deleteFile(ctx, key)
		return nil, err
	}
	r.deleteFile(ctx, oldKey)
	return &model.UpdateTranscriptPayload{
		ItemID:                input.ItemID,
		LanguageCode:          input.LanguageCode,
		TranscriptLastUpdated: at,
		TimedTranscriptURL:    r.Blobs.URL("GET", key, time.Now(), blob.LinkValidity),
	}, nil
}

// itemTranscript answers Item.transcript: the transcript in languageCode
// (default: the item's), null when there is none.
func (r *Resolver) itemTranscript(ctx context.Context, obj *store.Item, languageCode *string) (*store.Transcript, error) {
	key := loaders.TranscriptKey{ItemID: obj.ID, LanguageCode: obj.LanguageCode, Own: languageCode == nil}
	if languageCode != nil {
		key.LanguageCode = *languageCode
	}
	lang := key.LanguageCode
	if !store.ValidTranscriptLanguage(lang) {
		return nil, loupe.Invalid("languageCode must be a BCP 47 language-region tag such as en-US, got %q", lang)
	}
	// Items that never had a transcript (most) cost no query.
	if obj.TranscriptLastUpdated == nil {
		return nil, nil
	}
	return r.loaders(ctx).TranscriptOfItem.Load(ctx, key)
}

// timedTranscriptURL answers Item.timedTranscriptUrl: a signed link to the
// transcript in the item's language, null when there is none. The key comes
// from the item's own row, so a page of items costs no query for it.
func (r *Resolver) timedTranscriptURL(_ context.Context, obj *store.Item) (*string, error) {
	key, ok := store.TranscriptKeys(obj.MediaDoc)[obj.LanguageCode]
	if !ok || key == "" {
		return nil, nil
	}
	u := r.Blobs.URL("GET", key, time.Now(), blob.LinkValidity)
	return &u, nil
}
