package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// This file holds the tenant's storage locations (/prime/api/v1/storages):
// a bucket, a prefix and the credentials that reach them
// (docs/storage-locations.md). Only admins read or write them (the
// resolvers check that). The secret access key is kept sealed
// (SecretSealed, internal/platform/secretbox) and never leaves the server.
// The entity and its rules are loupe.StorageLocation.

// MaxStorageLocations bounds a tenant's storage locations.
const MaxStorageLocations = 1000

const locationColumns = `tenant_id, id, storage_id, name, type, bucket_name, path_prefix, endpoint, region,
path_style, access_type, access_key, role_identifier, external_id, secret_sealed, is_default, created_on, modified_on`

// locationColumnsL are locationColumns of the table aliased l.
const locationColumnsL = `l.tenant_id, l.id, l.storage_id, l.name, l.type, l.bucket_name, l.path_prefix, l.endpoint,
l.region, l.path_style, l.access_type, l.access_key, l.role_identifier, l.external_id, l.secret_sealed, l.is_default,
l.created_on, l.modified_on`

const (
	storageLocationsSQL = `SELECT ` + locationColumns + ` FROM storage_locations WHERE tenant_id = $1 ORDER BY name, id`

	storageLocationSQL = `SELECT ` + locationColumns + ` FROM storage_locations WHERE tenant_id = $1 AND id = $2`

	// allStorageLocationsSQL is every tenant's, for the system scope's
	// storage manager status (storage_locations_name_idx per tenant).
	allStorageLocationsSQL = `SELECT ` + locationColumns + ` FROM storage_locations ORDER BY tenant_id, name, id LIMIT $1`

	countStorageLocationsSQL = `SELECT count(*) FROM storage_locations WHERE tenant_id = $1`

	// lockStorageLocationsSQL serialises the location writes of one tenant
	// (the count and the one default stay true until commit).
	lockStorageLocationsSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.storage_locations:' || $1::text, 0))`

	// clearDefaultLocationSQL takes the default from the previous one; its
	// modified_on moves, so an update of it read before fails rather than
	// making it the default again unseen.
	clearDefaultLocationSQL = `UPDATE storage_locations SET is_default = false, modified_on = clock_timestamp()
WHERE tenant_id = $1 AND is_default AND id <> $2`

	insertStorageLocationSQL = `INSERT INTO storage_locations (tenant_id, id, storage_id, name, type, bucket_name,
path_prefix, endpoint, region, path_style, access_type, access_key, role_identifier, external_id, secret_sealed, is_default)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
RETURNING ` + locationColumns

	// updateStorageLocationSQL writes the location unless it changed
	// since it was read ($17: the modified_on read).
	updateStorageLocationSQL = `UPDATE storage_locations SET storage_id = $3, name = $4, type = $5, bucket_name = $6,
path_prefix = $7, endpoint = $8, region = $9, path_style = $10, access_type = $11, access_key = $12,
role_identifier = $13, external_id = $14, secret_sealed = $15, is_default = $16, modified_on = clock_timestamp()
WHERE tenant_id = $1 AND id = $2 AND modified_on = $17
RETURNING ` + locationColumns

	deleteStorageLocationSQL = `DELETE FROM storage_locations WHERE tenant_id = $1 AND id = $2`
)

// StorageLocations returns the tenant's storage locations by name.
func (s *Store) StorageLocations(ctx context.Context, tenantID string) ([]*loupe.StorageLocation, error) {
	out := []*loupe.StorageLocation{}
	if err := s.selectPrepared(ctx, &out, storageLocationsSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list storage locations: %w", err)
	}
	return out, nil
}

// AllStorageLocations returns up to limit storage locations of every tenant,
// by tenant and name: for the system scope only.
func (s *Store) AllStorageLocations(ctx context.Context, limit int) ([]*loupe.StorageLocation, error) {
	out := []*loupe.StorageLocation{}
	if err := s.db.SelectContext(ctx, &out, allStorageLocationsSQL, limit); err != nil {
		return nil, fmt.Errorf("store: unable to list storage locations: %w", err)
	}
	return out, nil
}

// loupe.StorageLocation returns one location. Returns ENOTFOUND when it is
// missing or of another tenant.
func (s *Store) StorageLocation(ctx context.Context, tenantID, id string) (*loupe.StorageLocation, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.StorageLocation
	if err := s.getPrepared(ctx, &out, storageLocationSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch storage location: %w")
	}
	return &out, nil
}

// CreateStorageLocation adds l (its ID chosen by the caller, who sealed the
// secret for it) to the tenant; when l is the default, the previous default
// stops being one. Returns EINVALID for a bad location or a storageId that
// is not the tenant's, ECONFLICT at MaxStorageLocations.
func (s *Store) CreateStorageLocation(ctx context.Context, tenantID string, l *loupe.StorageLocation) (*loupe.StorageLocation, error) {
	if !loupe.ValidID(l.ID) {
		return nil, fmt.Errorf("store: storage location without an id")
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	var out *loupe.StorageLocation
	err := s.locationTx(ctx, tenantID, func(tx *sqlx.Tx) (err error) {
		out, err = insertLocation(ctx, tx, tenantID, l)
		return err
	})
	if err != nil {
		return nil, locationWriteError(err, "create")
	}
	return out, nil
}

// insertLocation inserts a validated l in a transaction holding the
// tenant's location lock (locationTx).
func insertLocation(ctx context.Context, tx *sqlx.Tx, tenantID string, l *loupe.StorageLocation) (*loupe.StorageLocation, error) {
	var n int
	if err := tx.GetContext(ctx, &n, countStorageLocationsSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to count storage locations: %w", err)
	}
	if n >= MaxStorageLocations {
		return nil, loupe.Errorf(loupe.ECONFLICT, "the tenant has %d storage locations, the most it may have", MaxStorageLocations)
	}
	if l.IsDefault {
		if _, err := tx.ExecContext(ctx, clearDefaultLocationSQL, tenantID, l.ID); err != nil {
			return nil, fmt.Errorf("store: unable to clear the default location: %w", err)
		}
	}
	var out loupe.StorageLocation
	err := tx.GetContext(ctx, &out, insertStorageLocationSQL, tenantID, l.ID, l.StorageID, l.Name, l.Type,
		l.BucketName, l.PathPrefix, l.Endpoint, l.Region, l.PathStyle, l.AccessType, l.AccessKey,
		l.RoleIdentifier, l.ExternalID, l.SecretSealed, l.IsDefault)
	return &out, err
}

// UpdateStorageLocation writes l over the location it was read as (l's
// ModifiedOn is the one read). Returns ENOTFOUND when it is gone, ECONFLICT
// when it changed since, EINVALID as CreateStorageLocation.
func (s *Store) UpdateStorageLocation(ctx context.Context, tenantID string, l *loupe.StorageLocation) (*loupe.StorageLocation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	var out loupe.StorageLocation
	err := s.locationTx(ctx, tenantID, func(tx *sqlx.Tx) error {
		if l.IsDefault {
			if _, err := tx.ExecContext(ctx, clearDefaultLocationSQL, tenantID, l.ID); err != nil {
				return fmt.Errorf("store: unable to clear the default location: %w", err)
			}
		}
		err := tx.GetContext(ctx, &out, updateStorageLocationSQL, tenantID, l.ID, l.StorageID, l.Name, l.Type,
			l.BucketName, l.PathPrefix, l.Endpoint, l.Region, l.PathStyle, l.AccessType, l.AccessKey,
			l.RoleIdentifier, l.ExternalID, l.SecretSealed, l.IsDefault, l.ModifiedOn)
		if errors.Is(err, sql.ErrNoRows) {
			var exists bool
			if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (`+storageLocationSQL+`)`, tenantID, l.ID); err != nil {
				return fmt.Errorf("store: unable to check storage location: %w", err)
			}
			if exists {
				return loupe.Errorf(loupe.ECONFLICT, "the storage location changed while this update was checked: read it again")
			}
			return loupe.NotFound()
		}
		return err
	})
	if err != nil {
		return nil, locationWriteError(err, "update")
	}
	return &out, nil
}

// DeleteStorageLocation removes a location. Returns ENOTFOUND for a missing
// id.
func (s *Store) DeleteStorageLocation(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteStorageLocationSQL, tenantID, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete storage location: %w", err)
	}
	return oneRow(res)
}

// locationTx runs fn in a transaction holding the tenant's location lock.
func (s *Store) locationTx(ctx context.Context, tenantID string, fn func(tx *sqlx.Tx) error) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockStorageLocationsSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to lock storage locations: %w", err)
		}
		return fn(tx)
	})
}

// locationWriteError passes client errors on, answers a storageId that is
// not the tenant's (the foreign key) as EINVALID, and wraps the rest.
func locationWriteError(err error, what string) error {
	var se *loupe.Error
	if errors.As(err, &se) {
		return se
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23503" {
		return loupe.Invalid("storageId does not name a storage of the tenant")
	}
	return fmt.Errorf("store: unable to %s storage location: %w", what, err)
}
