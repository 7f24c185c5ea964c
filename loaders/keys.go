package loaders

import "github.com/loupe-mam/loupe/store"

// Loaders keyed by one id take the id itself as their key. The loaders
// whose key carries a field's arguments besides take one of these: the
// arguments travel typed, and the key without its item (ItemID "") is
// what the field asks of every item.

// CommentsKey names the first page of an item's comments: First comments
// (the loader answers one more when more follow), newest first or oldest
// first, whole or bare (the selection asks only for fields of a bare row).
type CommentsKey struct {
	ItemID      string
	First       int
	NewestFirst bool
	Whole       bool
}

// ThumbnailsKey names a page of an item's thumbnails: Size thumbnails from
// Index (the loader answers one more when more follow).
type ThumbnailsKey struct {
	ItemID      string
	Index, Size int
}

// TranscriptKey names an item's transcript in a language. Own says the
// field asked for no language: the item's own, so that other items ask for
// theirs, each in its own language.
type TranscriptKey struct {
	ItemID       string
	LanguageCode string
	Own          bool
}

// withoutItem is k with no item: the arguments alone.
func withoutItem[K interface {
	CommentsKey | ThumbnailsKey | TranscriptKey
}](k K) K {
	switch k := any(k).(type) {
	case CommentsKey:
		k.ItemID = ""
		return any(k).(K)
	case ThumbnailsKey:
		k.ItemID = ""
		return any(k).(K)
	case TranscriptKey:
		k.ItemID = ""
		if k.Own {
			k.LanguageCode = "" // each item's own
		}
		return any(k).(K)
	}
	panic("unreachable")
}

// anyItem is an item-keyed loader's key for item id: every item asks.
func anyItem(_ string, id string, _ *store.Item) (string, bool) { return id, true }
