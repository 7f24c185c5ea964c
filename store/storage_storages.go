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

// This file holds the tenant's storages (spec 2.13, /config/api/v1/storages):
// named places a tenant's storage locations belong to
// (docs/storage-locations.md). Everyone in the tenant reads them; admins
// write (the resolvers check that). The entity and its rules are
// loupe.Storage.

// MsgConditionFailed is the spec's answer to the delete of a storage in use
// (section 7).
const MsgConditionFailed = "The conditional request failed"

// errStorageInUse is the delete of a storage a location belongs to.
func errStorageInUse() error {
	return &loupe.Error{Kind: loupe.EINVALID, Message: MsgConditionFailed,
		DeveloperMessage: "a storage location belongs to this storage: delete or move it first",
		Payload:          map[string]any{"debug": []string{"ConditionalCheckFailedException"}}}
}

// MaxStorages bounds a tenant's storages.
const MaxStorages = 1000

const storageColumns = `tenant_id, id, name, private, description, owner, created_on`

const (
	storagesSQL = `SELECT ` + storageColumns + ` FROM storages WHERE tenant_id = $1 ORDER BY name, id`

	storageSQL = `SELECT ` + storageColumns + ` FROM storages WHERE tenant_id = $1 AND id = $2`

	storageForUpdateSQL = storageSQL + ` FOR UPDATE`

	// insertStorageSQL inserts unless the tenant has $7 storages already
	// (then no row). Two creates at once may both pass at the limit: it is
	// a bound on growth, not an exact count.
	insertStorageSQL = `INSERT INTO storages (tenant_id, id, name, private, description, owner)
SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT count(*) FROM storages WHERE tenant_id = $1) < $7
RETURNING ` + storageColumns

	updateStorageSQL = `UPDATE storages SET name = $3, private = $4, description = $5, owner = $6
WHERE tenant_id = $1 AND id = $2 RETURNING ` + storageColumns

	// deleteStorageSQL deletes a storage no location belongs to; a
	// location added meanwhile fails the foreign key instead.
	deleteStorageSQL = `DELETE FROM storages s WHERE s.tenant_id = $1 AND s.id = $2
AND NOT EXISTS (SELECT 1 FROM storage_locations l WHERE l.tenant_id = $1 AND l.storage_id = $2)`

	storageExistsSQL = `SELECT EXISTS (SELECT 1 FROM storages WHERE tenant_id = $1 AND id = $2)`
)

// Storages returns the tenant's storages by name.
func (s *Store) Storages(ctx context.Context, tenantID string) ([]*loupe.Storage, error) {
	out := []*loupe.Storage{}
	if err := s.selectPrepared(ctx, &out, storagesSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list storages: %w", err)
	}
	return out, nil
}

// loupe.Storage returns one storage. Returns ENOTFOUND when it is missing or of
// another tenant.
func (s *Store) Storage(ctx context.Context, tenantID, id string) (*loupe.Storage, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.Storage
	if err := s.getPrepared(ctx, &out, storageSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch storage: %w")
	}
	return &out, nil
}

// CreateStorage validates st and adds it to the tenant with a new id.
// Returns EINVALID for a bad storage, ECONFLICT at MaxStorages.
func (s *Store) CreateStorage(ctx context.Context, tenantID string, st *loupe.Storage) (*loupe.Storage, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	var out loupe.Storage
	err := s.db.GetContext(ctx, &out, insertStorageSQL, tenantID, loupe.NewID(), st.Name, st.Private,
		st.Description, st.Owner, MaxStorages)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, loupe.Errorf(loupe.ECONFLICT, "the tenant has %d storages, the most it may have", MaxStorages)
		}
		return nil, fmt.Errorf("store: unable to create storage: %w", err)
	}
	return &out, nil
}

// UpdateStorage changes a storage: apply changes a copy of the stored one,
// which is then checked and written. Returns ENOTFOUND for a missing id,
// EINVALID for a bad result.
func (s *Store) UpdateStorage(ctx context.Context, tenantID, id string, apply func(*loupe.Storage) error) (*loupe.Storage, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out loupe.Storage
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var st loupe.Storage
		if err := tx.GetContext(ctx, &st, storageForUpdateSQL, tenantID, id); err != nil {
			return notFoundOr(err, "store: unable to fetch storage: %w")
		}
		if err := apply(&st); err != nil {
			return err
		}
		if err := st.Validate(); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &out, updateStorageSQL, tenantID, id, st.Name, st.Private, st.Description, st.Owner); err != nil {
			return fmt.Errorf("store: unable to update storage: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteStorage removes a storage. Returns ENOTFOUND for a missing id, and
// the spec's 400 "The conditional request failed" when a storage location
// belongs to it.
func (s *Store) DeleteStorage(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteStorageSQL, tenantID, id)
	if err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23503" {
			return errStorageInUse()
		}
		return fmt.Errorf("store: unable to delete storage: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: %w", err)
	} else if n == 1 {
		return nil
	}
	// Nothing deleted: missing, or in use.
	var exists bool
	if err := s.db.GetContext(ctx, &exists, storageExistsSQL, tenantID, id); err != nil {
		return fmt.Errorf("store: unable to check storage: %w", err)
	}
	if exists {
		return errStorageInUse()
	}
	return loupe.NotFound()
}
