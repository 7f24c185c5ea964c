package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
)

// Limits of thumbnails.
const (
	MaxThumbnailPage     = 200
	DefaultThumbnailPage = 50
	MaxThumbnailSide     = 16384
)

const (
	thumbnailColumns = `item_id, position_ms, blob_key, width, height`

	thumbnailForUpdateSQL = `
SELECT blob_key FROM thumbnails WHERE tenant_id = $1 AND item_id = $2 AND position_ms = $3 FOR UPDATE`

	upsertThumbnailSQL = `
INSERT INTO thumbnails (tenant_id, item_id, position_ms, blob_key, width, height, created_on)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant_id, item_id, position_ms) DO UPDATE SET
    blob_key = EXCLUDED.blob_key, width = EXCLUDED.width, height = EXCLUDED.height, created_on = EXCLUDED.created_on
RETURNING ` + thumbnailColumns

	// nearestThumbnailsSQL probes the primary key twice, for the nearest
	// thumbnail at or before the position and the nearest after it
	// (ORDER BY abs(position_ms - $3) could not use the index).
	nearestThumbnailsSQL = `
(SELECT ` + thumbnailColumns + ` FROM thumbnails
 WHERE tenant_id = $1 AND item_id = $2 AND position_ms <= $3 ORDER BY position_ms DESC LIMIT 1)
UNION ALL
(SELECT ` + thumbnailColumns + ` FROM thumbnails
 WHERE tenant_id = $1 AND item_id = $2 AND position_ms > $3 ORDER BY position_ms ASC LIMIT 1)`
)

// CreateThumbnail registers the thumbnail of a live item at a position, its
// image to be uploaded under blobKey, replacing one at the same position.
// It returns the thumbnail and the blob key of the one replaced ("" when
// new), whose file the caller deletes once this has committed.
// Returns ENOTFOUND for an unknown item and EINVALID for a negative
// position or a side outside 1 to MaxThumbnailSide.
func (s *Store) CreateThumbnail(ctx context.Context, tenantID, itemID string, positionMs int64, width, height *int, blobKey string) (*Thumbnail, string, error) {
	if positionMs < 0 {
		return nil, "", loupe.Invalid("positionMs must not be negative")
	}
	for name, v := range map[string]*int{"width": width, "height": height} {
		if v != nil && (*v < 1 || *v > MaxThumbnailSide) {
			return nil, "", loupe.Invalid("%s must be between 1 and %d", name, MaxThumbnailSide)
		}
	}
	var (
		out    Thumbnail
		oldKey string
	)
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveItem(ctx, tx, tenantID, itemID, loupe.NotFound()); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &oldKey, thumbnailForUpdateSQL, tenantID, itemID, positionMs); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: unable to fetch thumbnail: %w", err)
		}
		at := now()
		if err := tx.GetContext(ctx, &out, upsertThumbnailSQL, tenantID, itemID, positionMs, blobKey, width, height, at); err != nil {
			return fmt.Errorf("store: unable to write thumbnail: %w", err)
		}
		if err := touchItem(ctx, tx, tenantID, itemID, at); err != nil {
			return err
		}
		return emitTx(ctx, tx, tenantID, at, itemChange(itemID, "", []loupe.ItemPart{loupe.PartThumbnail}, "positionMs", positionMs))
	})
	if err != nil {
		return nil, "", err
	}
	return &out, oldKey, nil
}

// NearestThumbnail returns the item's thumbnail nearest positionMs (the
// earlier one on a tie). The caller has checked that the item is live.
// Returns ENOTFOUND when the item has no thumbnails.
func (s *Store) NearestThumbnail(ctx context.Context, tenantID, itemID string, positionMs int64) (*Thumbnail, error) {
	if !loupe.ValidID(itemID) {
		return nil, loupe.NotFound()
	}
	var rows []*Thumbnail
	if err := s.selectPrepared(ctx, &rows, nearestThumbnailsSQL, tenantID, itemID, positionMs); err != nil {
		return nil, fmt.Errorf("store: unable to fetch thumbnails: %w", err)
	}
	var best *Thumbnail
	for _, t := range rows {
		if best == nil || distance(t.PositionMs, positionMs) < distance(best.PositionMs, positionMs) {
			best = t
		}
	}
	if best == nil {
		return nil, loupe.NotFound()
	}
	return best, nil
}

func distance(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// thumbnailPagesSQL answers the same page of many items in one query.
const thumbnailPagesSQL = `
SELECT t.item_id, t.position_ms, t.blob_key, t.width, t.height
FROM unnest($2::uuid[]) AS i(id)
CROSS JOIN LATERAL (
    SELECT ` + thumbnailColumns + ` FROM thumbnails
    WHERE tenant_id = $1 AND item_id = i.id ORDER BY position_ms LIMIT $3 OFFSET $4) t`

// ThumbnailPagesOfItems returns, per item, the page ThumbnailPage would
// (plus one thumbnail when more follow), for many items in one query.
// Returns EINVALID for a negative index or a size outside 1 to
// MaxThumbnailPage.
func (s *Store) ThumbnailPagesOfItems(ctx context.Context, tenantID string, itemIDs []string, index, size int) (map[string][]*Thumbnail, error) {
	if index < 0 {
		return nil, loupe.Invalid("index must not be negative")
	}
	if size < 1 || size > MaxThumbnailPage {
		return nil, loupe.Invalid("size must be between 1 and %d", MaxThumbnailPage)
	}
	out := make(map[string][]*Thumbnail, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []*Thumbnail
	if err := s.selectPrepared(ctx, &rows, thumbnailPagesSQL, tenantID, stringArray(itemIDs), size+1, index); err != nil {
		return nil, fmt.Errorf("store: unable to fetch thumbnails: %w", err)
	}
	for _, t := range rows {
		out[t.ItemID] = append(out[t.ItemID], t)
	}
	return out, nil
}
