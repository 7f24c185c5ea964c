package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds bulk metadata edits (docs/bulk-metadata.md): up to
// MaxMetadataEdits items in one request, each edit through the checks and
// the write of UpdateItemMetadata (checkMetadataTx, writeMetadataTx), all in
// one transaction of a few statements whatever their number.

// MaxMetadataEdits bounds the edits of one UpdateItemsMetadata.
const MaxMetadataEdits = 1000

// ErrNotWritten is the result of an edit that was valid but not written,
// because another edit of its atomic request failed.
var ErrNotWritten = errors.New("not written: another item failed")

// MetadataEditResult is what became of one edit of UpdateItemsMetadata.
type MetadataEditResult struct {
	// Item is the item after the write; nil when the edit was not written.
	Item *Item
	// Err is why the edit was not written: ENOTFOUND, EFORBIDDEN (the
	// caller's refusal), EINVALID, ECONFLICT, or ErrNotWritten.
	Err error
}

// CheckMetadataEdits refuses a bulk edit as a whole: more than
// MaxMetadataEdits edits, or two edits of one item (they would write one
// item twice in one statement; a client merges them). Returns EINVALID.
func CheckMetadataEdits(updates []MetadataUpdate) error {
	if len(updates) > MaxMetadataEdits {
		return loupe.Invalid("at most %d items per request, got %d: send the others in another request", MaxMetadataEdits, len(updates))
	}
	seen := make(map[string]int, len(updates))
	for i, u := range updates {
		id := strings.ToLower(u.ItemID)
		if j, twice := seen[id]; twice {
			return loupe.Invalid("item %s is edited twice (at %d and %d, counting from 0): one edit per item", u.ItemID, j, i)
		}
		seen[id] = i
	}
	return nil
}

// UpdateItemsMetadata writes updates in one transaction and answers one
// result per update, in order. refused, when not nil, holds per update an
// error the caller already found (the principal may not change the item):
// that update fails with it. Each other update is checked and written as
// UpdateItemMetadata does it (ENOTFOUND, ECONFLICT, EINVALID in its
// result). Not atomic, each update is written or fails on its own; atomic,
// nothing is written when one fails, and the others answer ErrNotWritten.
// Returns EINVALID from CheckMetadataEdits, and the database's errors
// (nothing is written).
func (s *Store) UpdateItemsMetadata(ctx context.Context, p *loupe.Principal, updates []MetadataUpdate, refused []error, atomic bool) ([]MetadataEditResult, error) {
	if err := CheckMetadataEdits(updates); err != nil {
		return nil, err
	}
	if refused != nil && len(refused) != len(updates) {
		return nil, fmt.Errorf("store: %d refusals for %d metadata updates", len(refused), len(updates))
	}
	if len(updates) == 0 {
		return []MetadataEditResult{}, nil
	}
	edits := make([]*metadataEdit, len(updates))
	for i, u := range updates {
		edits[i] = parseMetadataUpdate(u)
		if refused != nil && refused[i] != nil {
			edits[i].err = refused[i] // first, as the single write checks access first
		}
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		// Atomic or not, every edit is checked: an atomic request that
		// fails says what is wrong with each edit, not only the first.
		if err := checkMetadataTx(ctx, tx, p.TenantID, edits); err != nil {
			return err
		}
		if atomic && len(withoutError(edits)) < len(edits) {
			return nil // nothing written: only locks were taken
		}
		if err := writeMetadataTx(ctx, tx, p, edits); err != nil {
			return err
		}
		if atomic && len(withoutError(edits)) < len(edits) {
			return errPartlyWritten // roll back (an item's version moved: never, under the locks)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPartlyWritten) {
		return nil, err
	}
	failed := len(withoutError(edits)) < len(edits)
	out := make([]MetadataEditResult, len(edits))
	for i, e := range edits {
		switch {
		case e.err != nil:
			out[i].Err = e.err
		case atomic && failed:
			out[i].Err = ErrNotWritten
		default:
			out[i].Item = e.item
		}
	}
	return out, nil
}

// errPartlyWritten rolls back an atomic request of which an edit failed
// at the write.
var errPartlyWritten = errors.New("store: an atomic metadata write failed in part")
