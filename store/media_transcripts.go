package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// maxTranscriptSearchText bounds the transcript words an item's search
// vector holds (characters; Postgres' tsvector stops at 1 MB).
const maxTranscriptSearchText = 200_000

// itemSpokenAndShownSQL is what the item's search vector holds at its
// lowest weight (D, the transcript tier: docs/search.md), in the column
// transcript_text: the text detected in its pictures (the entries of the
// default_detected_text form, by time) and the words of its transcripts
// in every language, at most maxTranscriptSearchText characters (the
// detected text first: it is short, and a long transcript would cut it).
// $1 is the tenant, $2 the item. Written by every transcript write and
// every timed metadata write (stampItemSearchTextSQL).
var itemSpokenAndShownSQL = `left(concat_ws(' ',
        (SELECT string_agg(m.form_data->>'default_text', ' ' ORDER BY m.start_ms, m.id)
         FROM timed_metadata m
         WHERE m.tenant_id = $1 AND m.item_id = $2 AND m.form_id = 'default_detected_text'),
        (SELECT string_agg(seg->>'content', ' ' ORDER BY t.language_code)
         FROM transcripts t CROSS JOIN LATERAL jsonb_array_elements(t.segments) AS seg
         WHERE t.tenant_id = $1 AND t.item_id = $2)), ` + strconv.Itoa(maxTranscriptSearchText) + `)`

// stampItemSearchTextSQL writes it after a timed metadata write, only when
// it changed (the row and its search indexes are not rewritten for nothing).
var stampItemSearchTextSQL = `UPDATE items i SET transcript_text = n.text
FROM (SELECT ` + itemSpokenAndShownSQL + ` AS text) n
WHERE i.tenant_id = $1 AND i.id = $2 AND i.transcript_text IS DISTINCT FROM n.text`

// The item keeps the blob key of each language's transcript in its media
// document (with the other subtitle and transcript links), so that
// Item.timedTranscriptUrl needs no query per item.
var stampItemTranscriptSQL = `
UPDATE items SET transcript_last_updated = $3, modified_on = $3,
    transcript_text = ` + itemSpokenAndShownSQL + `,
    media = jsonb_set(jsonb_set(media, '{timedTranscriptKeys}',
                      coalesce(media->'timedTranscriptKeys', '{}'::jsonb) || jsonb_build_object($4::text, $5::text)),
                      '{subtitleKeys}',
                      coalesce(media->'subtitleKeys', '{}'::jsonb) || jsonb_build_object($4::text, $6::jsonb))
WHERE tenant_id = $1 AND id = $2`

const (
	transcriptColumns = `item_id, language_code, segments, blob_key, updated_on`

	transcriptKeyForUpdateSQL = `
SELECT blob_key, engine IS NULL AS by_person FROM transcripts
WHERE tenant_id = $1 AND item_id = $2 AND language_code = $3 FOR UPDATE`

	upsertTranscriptSQL = `
INSERT INTO transcripts (tenant_id, item_id, language_code, segments, blob_key, updated_by, engine, updated_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (tenant_id, item_id, language_code) DO UPDATE SET
    segments = EXCLUDED.segments, blob_key = EXCLUDED.blob_key,
    updated_by = EXCLUDED.updated_by, engine = EXCLUDED.engine, updated_on = EXCLUDED.updated_on`
)

// TranscriptKeys reads, from an item's media document, the blob key of its
// transcript in each language (written by UpdateTranscript).
func TranscriptKeys(media loupe.JSON) map[string]string {
	var doc struct {
		Keys map[string]string `json:"timedTranscriptKeys"`
	}
	if media.IsNull() || json.Unmarshal(media, &doc) != nil {
		return nil
	}
	return doc.Keys
}

// SubtitleKeys reads, from an item's media document, the blob keys of the
// subtitle files made from its transcript in each language.
func SubtitleKeys(media loupe.JSON) map[string]SubtitleFiles {
	var doc struct {
		Keys map[string]SubtitleFiles `json:"subtitleKeys"`
	}
	if media.IsNull() || json.Unmarshal(media, &doc) != nil {
		return nil
	}
	return doc.Keys
}

// SubtitleFiles are the keys of a transcript's subtitle files.
type SubtitleFiles struct {
	VTT string `json:"vtt"`
	SRT string `json:"srt"`
}

// TranscriptWrite is a transcript written, with its files: by a person
// (UserID) or by an analysis engine (Engine).
type TranscriptWrite struct {
	TenantID, ItemID, LanguageCode string
	Segments                       []*loupe.TranscriptSegment
	// Key is the transcript's JSON file; Subtitles the WebVTT and SRT
	// files made from it. The caller has stored them.
	Key       string
	Subtitles SubtitleFiles
	UserID    string
	Engine    string
	// Force lets an engine replace a person's edit.
	Force bool
}

// ErrEditedByPerson is the answer to an engine's write over a transcript a
// person wrote (unless forced): the person's edit wins.
var ErrEditedByPerson = errors.New("store: the transcript was edited by a person")

// WriteTranscript replaces a live item's transcript in one language and
// stamps the item's transcriptLastUpdated and its files' keys. It returns
// the time of the write and the JSON key of the transcript replaced (""
// when new): the caller deletes its files (TranscriptFiles) once this has
// committed. Returns EINVALID (see loupe.ValidateTranscript), ENOTFOUND for an
// unknown item, ErrEditedByPerson.
func (s *Store) WriteTranscript(ctx context.Context, w TranscriptWrite) (time.Time, string, error) {
	if err := loupe.ValidateTranscript(w.LanguageCode, w.Segments); err != nil {
		return time.Time{}, "", err
	}
	segments := w.Segments
	if segments == nil {
		segments = []*loupe.TranscriptSegment{}
	}
	var (
		at  = now()
		old struct {
			Key      string `db:"blob_key"`
			ByPerson bool   `db:"by_person"`
		}
	)
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveItem(ctx, tx, w.TenantID, w.ItemID, loupe.NotFound()); err != nil {
			return err
		}
		err := tx.GetContext(ctx, &old, transcriptKeyForUpdateSQL, w.TenantID, w.ItemID, w.LanguageCode)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("store: unable to fetch transcript: %w", err)
		case w.Engine != "" && old.ByPerson && !w.Force:
			return ErrEditedByPerson
		}
		if _, err := tx.ExecContext(ctx, upsertTranscriptSQL, w.TenantID, w.ItemID, w.LanguageCode,
			loupe.JSONOf(segments), w.Key, nullIfEmpty(w.UserID), nullIfEmpty(w.Engine), at); err != nil {
			return fmt.Errorf("store: unable to write transcript: %w", err)
		}
		if _, err := tx.ExecContext(ctx, stampItemTranscriptSQL, w.TenantID, w.ItemID, at, w.LanguageCode, w.Key,
			loupe.JSONOf(w.Subtitles)); err != nil {
			return fmt.Errorf("store: unable to stamp item transcript: %w", err)
		}
		return nil
	})
	if err != nil {
		return time.Time{}, "", err
	}
	return at, old.Key, nil
}

// TranscriptFiles are the keys of the files of the transcript whose JSON
// file is key: itself and the subtitle files beside it (transcripts written
// before subtitles were made have none: deleting them is a no-op).
func TranscriptFiles(key string) []string {
	if key == "" {
		return nil
	}
	base := strings.TrimSuffix(key, ".json")
	return []string{key, base + ".vtt", base + ".srt"}
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TranscriptKey names an item's transcript in one language.
type TranscriptKey struct {
	ItemID       string
	LanguageCode string
}

const transcriptsByKeysSQL = `
SELECT t.item_id, t.language_code, t.segments, t.blob_key, t.updated_on
FROM unnest($2::uuid[], $3::text[]) AS k(item_id, language_code)
JOIN transcripts t ON t.tenant_id = $1 AND t.item_id = k.item_id AND t.language_code = k.language_code`

// TranscriptsByKeys returns the transcripts among keys, in one query.
func (s *Store) TranscriptsByKeys(ctx context.Context, tenantID string, keys []TranscriptKey) (map[TranscriptKey]*Transcript, error) {
	out := make(map[TranscriptKey]*Transcript, len(keys))
	var ids, langs []string
	for _, k := range keys {
		if loupe.ValidID(k.ItemID) {
			ids, langs = append(ids, k.ItemID), append(langs, k.LanguageCode)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []*Transcript
	if err := s.selectPrepared(ctx, &rows, transcriptsByKeysSQL, tenantID, stringArray(ids), stringArray(langs)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch transcripts: %w", err)
	}
	for _, t := range rows {
		out[TranscriptKey{t.ItemID, t.LanguageCode}] = t
	}
	return out, nil
}
