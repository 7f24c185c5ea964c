package store

import (
	"context"
	"fmt"
)

// TranscriptMatch is where a search's terms were said: a segment of one of
// the item's transcripts that holds one of them (a prefix of a loose word,
// or a phrase).
type TranscriptMatch struct {
	ItemID       string `db:"item_id" json:"-"`
	LanguageCode string `db:"language_code" json:"languageCode"`
	// StartMs and EndMs are the segment's bounds, in milliseconds.
	StartMs int64  `db:"start_ms" json:"-"`
	EndMs   int64  `db:"end_ms" json:"-"`
	Text    string `db:"text" json:"text"`
}

// Start is the segment's start in seconds.
func (m *TranscriptMatch) Start() float64 { return float64(m.StartMs) / 1000 }

// End is the segment's end in seconds.
func (m *TranscriptMatch) End() float64 { return float64(m.EndMs) / 1000 }

// MaxTranscriptMatches bounds the matches answered per transcript (the
// first ones, in the order of the media).
const MaxTranscriptMatches = 20

// transcriptMatchesSQL finds, in one statement for a page of items, the
// segments of their transcripts that hold any of the terms ($3 the loose
// words, $4 the phrases). Only the items' own transcripts are read (the
// primary key's prefix), each segment split by the same parser as the
// search vector.
const transcriptMatchesSQL = `
SELECT t.item_id, t.language_code, m.start_ms, m.end_ms, m.text
FROM transcripts t
CROSS JOIN LATERAL (
  SELECT coalesce((e.seg->>'startTime')::bigint, 0) AS start_ms, coalesce((e.seg->>'endTime')::bigint, 0) AS end_ms,
         coalesce(e.seg->>'content', '') AS text
  FROM jsonb_array_elements(t.segments) WITH ORDINALITY AS e(seg, n)
  WHERE to_tsvector('simple', coalesce(e.seg->>'content', '')) @@ loupe_search_any_query($3::text, $4::text[])
  ORDER BY e.n LIMIT ` + maxTranscriptMatchesText + `) m
WHERE t.tenant_id = $1 AND t.item_id = ANY($2::uuid[]) AND loupe_search_any_query($3::text, $4::text[]) IS NOT NULL
ORDER BY t.item_id, t.language_code, m.start_ms`

const maxTranscriptMatchesText = "20"

// TranscriptMatches answers, for each of the items (of the tenant; the
// caller has checked that the principal sees them), the segments of its
// transcripts that hold any term of the search string text, at most
// MaxTranscriptMatches per transcript, ordered by language and time. Items
// without a match answer no entry. One statement whatever the number of
// items.
func (s *Store) TranscriptMatches(ctx context.Context, tenantID, text string, ids []string) (map[string][]*TranscriptMatch, error) {
	out := map[string][]*TranscriptMatch{}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	words, phrases := SearchTerms(text)
	if phrases == nil {
		phrases = []string{}
	}
	var rows []*TranscriptMatch
	if err := s.db.SelectContext(ctx, &rows, transcriptMatchesSQL, tenantID, stringArray(ids), words,
		stringArray(phrases)); err != nil {
		return nil, fmt.Errorf("store: unable to find transcript matches: %w", err)
	}
	for _, m := range rows {
		out[m.ItemID] = append(out[m.ItemID], m)
	}
	return out, nil
}
