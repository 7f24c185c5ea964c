package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// earlyPosterSQL shows a poster made by a run's first phase on an item
// that has no generated media yet (a new upload): the full set, switched
// in by FinishProcessing, replaces it and deletes its prefix as the
// previous set's. An item with a set keeps it until the new one is whole.
const earlyPosterSQL = `
UPDATE items SET media = media || jsonb_build_object(
        'generated', jsonb_build_object('prefix', $3::text, 'kind', 'video', 'poster', $4::text, 'madeOn', $5::text, 'early', true),
        'thumbnailInfo', jsonb_build_object('width', $6::int, 'height', $7::int, 'chosenBy', 'processing', 'early', true))
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND COALESCE(media->'generated'->>'prefix', '') = ''`

// ShowEarlyPoster puts the poster key (under prefix, a directory of its
// own below GeneratedPrefix) on an item without generated media. It
// answers false when the item has a set already (or is gone): the caller
// deletes the file.
func (s *Store) ShowEarlyPoster(ctx context.Context, tenantID, itemID, prefix, key string, width, height int) (bool, error) {
	res, err := s.db.ExecContext(ctx, earlyPosterSQL, tenantID, itemID, prefix, key,
		time.Now().UTC().Format(time.RFC3339Nano), width, height)
	if err != nil {
		return false, fmt.Errorf("store: unable to show the early poster: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

const hasGeneratedSQL = `
SELECT COALESCE(media->'generated'->>'prefix', '') <> '' FROM items
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

// HasGeneratedMedia reports whether the item shows a set of generated
// media (true when it is gone: there is nothing to show a poster on).
func (s *Store) HasGeneratedMedia(ctx context.Context, tenantID, itemID string) (bool, error) {
	var has bool
	err := s.db.GetContext(ctx, &has, hasGeneratedSQL, tenantID, itemID)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: unable to read item %s: %w", itemID, err)
	}
	return has, nil
}
