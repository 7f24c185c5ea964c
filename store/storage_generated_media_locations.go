package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds generated-media locations (spec 2.16): storage locations
// that processing writes generated media to, with the settings below
// (docs/generated-media-locations.md). The entity and its rules are
// loupe.GeneratedMediaLocation.

const (
	generatedMediaColumns = `g.storage_provider, g.backup, g.delete_enabled, g.auto_create_items,
g.upload_generated_media, g.platform_folder_id, g.events_target`

	// generatedMediaLocationsSQL lists them in the storage locations'
	// order (storage_locations_name_idx, then the primary key here).
	generatedMediaLocationsSQL = `SELECT ` + locationColumnsL + `, ` + generatedMediaColumns + `
FROM storage_locations l JOIN generated_media_locations g ON g.tenant_id = l.tenant_id AND g.id = l.id
WHERE l.tenant_id = $1 ORDER BY l.name, l.id`

	insertGeneratedMediaSQL = `INSERT INTO generated_media_locations (tenant_id, id, storage_provider, backup,
delete_enabled, auto_create_items, upload_generated_media, platform_folder_id, events_target)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
)

// GeneratedMediaLocations lists the tenant's generated-media locations.
func (s *Store) GeneratedMediaLocations(ctx context.Context, tenantID string) ([]*loupe.GeneratedMediaLocation, error) {
	out := []*loupe.GeneratedMediaLocation{}
	if err := s.db.SelectContext(ctx, &out, generatedMediaLocationsSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list generated-media locations: %w", err)
	}
	return out, nil
}

// CreateGeneratedMediaLocation saves g: its storage location and its
// settings, in one transaction. Errors as CreateStorageLocation; a
// platformFolderId that is not one of the tenant's folders is EINVALID.
func (s *Store) CreateGeneratedMediaLocation(ctx context.Context, tenantID string, g *loupe.GeneratedMediaLocation) (*loupe.GeneratedMediaLocation, error) {
	if !loupe.ValidID(g.ID) {
		return nil, fmt.Errorf("store: generated-media location without an id")
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	out := *g
	err := s.locationTx(ctx, tenantID, func(tx *sqlx.Tx) error {
		if g.PlatformFolderID != nil {
			var ok bool
			if loupe.ValidID(*g.PlatformFolderID) {
				if err := tx.GetContext(ctx, &ok, liveFolderSQL, tenantID, *g.PlatformFolderID); err != nil {
					return fmt.Errorf("store: unable to check folder: %w", err)
				}
			}
			if !ok {
				return loupe.Invalid("platformFolderId %q does not name a folder", *g.PlatformFolderID)
			}
		}
		l, err := insertLocation(ctx, tx, tenantID, &g.StorageLocation)
		if err != nil {
			return err
		}
		out.StorageLocation = *l
		_, err = tx.ExecContext(ctx, insertGeneratedMediaSQL, tenantID, g.ID, g.StorageProvider, g.Backup,
			g.DeleteEnabled, g.AutoCreateItems, g.UploadGeneratedMedia, g.PlatformFolderID, g.EventsTarget)
		return err
	})
	if err != nil {
		return nil, locationWriteError(err, "create generated-media")
	}
	return &out, nil
}
