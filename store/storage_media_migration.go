package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds the migration of an item's original to a storage
// location (POST /api/v1/items/{itemId}/migrateMediaLocation;
// docs/storage-locations.md): asked for here, done by a job
// (internal/storage/transfer), its state in the item's mediaMigration.

// MediaSource is where an item's original is.
type MediaSource struct {
	Location  string `db:"location"`
	StorageID string `db:"storage_id"`
	SHA256    string `db:"sha256"`
}

const (
	mediaSourceSQL = `
SELECT COALESCE(media->>'sourceFileLocation', '') AS location,
       COALESCE(media->>'ingestSourceStorageId', '') AS storage_id,
       COALESCE(media->>'mediaSha256', '') AS sha256
FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	defaultLocationIDSQL = `SELECT id FROM storage_locations WHERE tenant_id = $1 AND is_default`

	locationExistsSQL = `SELECT EXISTS (SELECT 1 FROM storage_locations WHERE tenant_id = $1 AND id = $2)`

	setMigrationSQL = `
UPDATE items SET media = media || jsonb_build_object('mediaMigration', $3::jsonb)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	// switchSourceSQL points the item at its moved original, unless its
	// original changed meanwhile ($3: the one copied).
	switchSourceSQL = `
UPDATE items SET modified_on = $6, media = media - 'ingestSourceStorageId' || jsonb_build_object('sourceFileLocation', $4::text,
    'mediaMigration', $5::jsonb)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->>'sourceFileLocation' = $3`
)

// MediaSourceOf answers where a live item's original is (Location "" when
// it has none). ENOTFOUND when the item is gone.
func (s *Store) MediaSourceOf(ctx context.Context, tenantID, itemID string) (*MediaSource, error) {
	if !loupe.ValidID(itemID) {
		return nil, loupe.NotFound()
	}
	var m MediaSource
	if err := s.db.GetContext(ctx, &m, mediaSourceSQL, tenantID, itemID); err != nil {
		return nil, notFoundOr(err, "store: unable to read item %s: %w", itemID)
	}
	return &m, nil
}

// ErrNothingToMigrate answers a migration of an item without an original:
// nothing moves, which is not an error of the request (the spec's only
// condition is that the item exists).
var ErrNothingToMigrate = errors.New("store: the item has no media to migrate")

// RequestMediaMigration queues the move of the item's original to storage
// location locationID (the tenant's default when empty) and answers the
// location. ErrNothingToMigrate when the item has no original; EINVALID
// when there is no such location; ENOTFOUND when the item is gone.
func (s *Store) RequestMediaMigration(ctx context.Context, tenantID, itemID, locationID string) (string, error) {
	src, err := s.MediaSourceOf(ctx, tenantID, itemID)
	if err != nil {
		return "", err
	}
	if src.Location == "" {
		return "", ErrNothingToMigrate
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if locationID == "" {
			if err := tx.GetContext(ctx, &locationID, defaultLocationIDSQL, tenantID); err != nil {
				if err == sql.ErrNoRows {
					return loupe.Invalid("the tenant has no default storage location: name one (storageLocationId) or make one the default")
				}
				return fmt.Errorf("store: unable to read the default location: %w", err)
			}
		} else {
			var ok bool
			if loupe.ValidID(locationID) {
				if err := tx.GetContext(ctx, &ok, locationExistsSQL, tenantID, locationID); err != nil {
					return fmt.Errorf("store: unable to read storage location: %w", err)
				}
			}
			if !ok {
				return loupe.Invalid("storageLocationId %q does not name a storage location of the tenant", locationID)
			}
		}
		state, _ := json.Marshal(map[string]any{"state": "queued", "storageLocationId": locationID,
			"requestedOn": time.Now().UTC()})
		if _, err := tx.ExecContext(ctx, setMigrationSQL, tenantID, itemID, string(state)); err != nil {
			return fmt.Errorf("store: unable to queue the migration: %w", err)
		}
		_, err := s.enqueue(ctx, tx, jobs.MigrateArgs{TenantID: tenantID, ItemID: itemID, LocationID: locationID},
			uniqueWhilePending(jobs.QueueBulk))
		return err
	})
	return locationID, err
}

// SetMediaMigration writes the migration's state on the item.
func (s *Store) SetMediaMigration(ctx context.Context, tenantID, itemID string, state map[string]any) error {
	b, err := json.Marshal(state)
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, setMigrationSQL, tenantID, itemID, string(b)); err != nil {
		return fmt.Errorf("store: unable to write the migration state: %w", err)
	}
	return nil
}

// SwitchMediaSource points the item at its moved original (from old to
// now) with the migration's final state. ECONFLICT when the item's
// original changed meanwhile, ENOTFOUND when the item is gone.
func (s *Store) SwitchMediaSource(ctx context.Context, tenantID, itemID, old, now string, state map[string]any) error {
	b, err := json.Marshal(state)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := time.Now().UTC()
		res, err := tx.ExecContext(ctx, switchSourceSQL, tenantID, itemID, old, now, string(b), at)
		if err != nil {
			return fmt.Errorf("store: unable to switch the original: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loupe.Errorf(loupe.ECONFLICT, "the item's original changed while it was moved")
		}
		// An original that leaves Loupe's store is no longer held by it.
		if key, ok := loupe.FileKey(old); ok {
			if _, err := tx.ExecContext(ctx, closeStoredFileSQL, tenantID, key, at); err != nil {
				return fmt.Errorf("store: unable to meter the moved original: %w", err)
			}
		}
		return nil
	})
}
