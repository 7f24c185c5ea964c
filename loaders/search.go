package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// TranscriptMatchesKey names where a search's words were said in an
// item's transcripts (Item.transcriptMatches): Text is the search string.
type TranscriptMatchesKey struct {
	ItemID string
	Text   string
}

// withoutItemMatches is k with no item: the search string alone.
func withoutItemMatches(k TranscriptMatchesKey) TranscriptMatchesKey {
	k.ItemID = ""
	return k
}

// transcriptMatchesOf is the key of item id with args, for items that may
// have a transcript: an item known never to have had one answers without
// a load (resolvers/search_matches.go).
func transcriptMatchesOf(args TranscriptMatchesKey, id string, it *store.Item) (TranscriptMatchesKey, bool) {
	if it != nil && it.TranscriptLastUpdated == nil {
		return TranscriptMatchesKey{}, false
	}
	args.ItemID = id
	return args, true
}

// transcriptMatches answers TranscriptMatchesOfItem with one query per
// search string (a page of hits shares one).
func transcriptMatches(st *store.Store) dataloader.BatchFunc[TranscriptMatchesKey, []*store.TranscriptMatch] {
	return func(ctx context.Context, keys []TranscriptMatchesKey) []*dataloader.Result[[]*store.TranscriptMatch] {
		groups := map[string][]string{}
		var order []string
		for _, k := range keys {
			if _, ok := groups[k.Text]; !ok {
				order = append(order, k.Text)
			}
			groups[k.Text] = append(groups[k.Text], k.ItemID)
		}
		p, err := auth.Require(ctx)
		found := map[string]map[string][]*store.TranscriptMatch{}
		for _, text := range order {
			if err != nil {
				break
			}
			found[text], err = st.TranscriptMatches(ctx, p.TenantID, text, groups[text])
		}
		out := make([]*dataloader.Result[[]*store.TranscriptMatch], len(keys))
		for i, k := range keys {
			v := found[k.Text][k.ItemID]
			if v == nil {
				v = []*store.TranscriptMatch{}
			}
			out[i] = &dataloader.Result[[]*store.TranscriptMatch]{Data: v, Error: err}
		}
		return out
	}
}
