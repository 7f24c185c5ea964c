package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// NewKey is an API key to store: the caller (internal/auth) generates it and
// keeps the secret; only the secret's hash reaches the database.
type NewKey struct {
	ID         string
	SecretHash []byte
	Label      string
}

// TenantCreated identifies what CreateTenant made.
type TenantCreated struct {
	TenantID      string `json:"tenantId"`
	UserID        string `json:"userId"`
	ArchiveFolder string `json:"-"`
}

// ArchiveFolderName is the name of the folder every tenant gets for archived items.
const ArchiveFolderName = "Archive"

const (
	insertTenantSQL = `INSERT INTO tenants (id, name) VALUES ($1, $2)`
	insertUserSQL   = `
INSERT INTO users (tenant_id, id, email, is_admin) VALUES ($1, $2, $3, $4)`
	insertKeySQL = `
INSERT INTO api_keys (tenant_id, id, user_id, label, secret_hash) VALUES ($1, $2, $3, $4, $5)`
	setArchiveFolderSQL = `UPDATE tenants SET archive_folder_id = $2 WHERE id = $1`
	countTenantsSQL     = `SELECT count(*) FROM tenants`
	ensureGroupSQL      = `
INSERT INTO groups (tenant_id, id, name) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id, name) DO UPDATE SET name = EXCLUDED.name
RETURNING id`
	insertUserGroupSQL = `INSERT INTO user_groups (tenant_id, user_id, group_id) VALUES ($1, $2, $3)`
	tenantExistsSQL    = `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1)`
	// tenantIDsSQL lists tenants by id (the primary key), bounded.
	tenantIDsSQL       = `SELECT id::text FROM tenants ORDER BY id LIMIT $1`
	insertSystemKeySQL = `INSERT INTO system_keys (id, label, secret_hash) VALUES ($1, $2, $3)`
)

// MaxTenantIDs bounds the tenant id list.
const MaxTenantIDs = 100000

// TenantIDs lists every tenant's id (the system scope's tenant id list).
func (s *Store) TenantIDs(ctx context.Context) ([]string, error) {
	ids := []string{}
	if err := s.selectPrepared(ctx, &ids, tenantIDsSQL, MaxTenantIDs); err != nil {
		return nil, fmt.Errorf("store: unable to list tenants: %w", err)
	}
	return ids, nil
}

// CreateSystemKey stores a key of the system scope (`loupe system-key
// create`).
func (s *Store) CreateSystemKey(ctx context.Context, key NewKey) error {
	if _, err := s.db.ExecContext(ctx, insertSystemKeySQL, key.ID, key.Label, key.SecretHash); err != nil {
		return fmt.Errorf("store: unable to create system key: %w", err)
	}
	return nil
}

// CreateTenant makes a tenant with an admin user, that user's first API key,
// the tenant's archive folder and its default forms, in one transaction.
// Returns EINVALID for a blank name or email, ECONFLICT for a name in use.
func (s *Store) CreateTenant(ctx context.Context, name, adminEmail string, key NewKey) (*TenantCreated, error) {
	name, adminEmail = strings.TrimSpace(name), strings.TrimSpace(adminEmail)
	if name == "" {
		return nil, loupe.Invalid("tenant name is required")
	}
	if err := loupe.ValidEmail(adminEmail); err != nil {
		return nil, err
	}
	out := &TenantCreated{TenantID: loupe.NewID(), UserID: loupe.NewID(), ArchiveFolder: loupe.NewID()}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, insertTenantSQL, out.TenantID, name); err != nil {
			if isUniqueViolation(err) {
				return loupe.Errorf(loupe.ECONFLICT, "tenant name %q is already in use", name)
			}
			return fmt.Errorf("store: unable to create tenant: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertUserSQL, out.TenantID, out.UserID, adminEmail, true); err != nil {
			return fmt.Errorf("store: unable to create admin user: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertKeySQL, out.TenantID, key.ID, out.UserID, key.Label, key.SecretHash); err != nil {
			return fmt.Errorf("store: unable to create api key: %w", err)
		}
		archive, err := archiveFolder(out)
		if err != nil {
			return err
		}
		if err := insertItemsTx(ctx, tx, out.TenantID, out.UserID, now(), []*newItemRow{archive}); err != nil {
			return fmt.Errorf("store: unable to create archive folder: %w", err)
		}
		if _, err := tx.ExecContext(ctx, setArchiveFolderSQL, out.TenantID, out.ArchiveFolder); err != nil {
			return fmt.Errorf("store: unable to set archive folder: %w", err)
		}
		return createDefaultMdfsTx(ctx, tx, out.TenantID, now())
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// archiveFolder is the row of a new tenant's archive folder: a folder of its
// admin that everyone in the tenant sees and changes.
func archiveFolder(t *TenantCreated) (*newItemRow, error) {
	name := ArchiveFolderName
	in := &loupe.CreateItemInput{Title: &name, ItemType: "folder"}
	n, err := in.NewItem()
	if err != nil {
		return nil, fmt.Errorf("store: the archive folder's input: %w", err)
	}
	access := loupe.TenantAccess()
	return &newItemRow{ID: t.ArchiveFolder, In: in, NewItem: n, Owner: &t.UserID, Visible: &access, Updatable: &access}, nil
}

// CountTenants answers how many tenants exist (zero on a fresh database).
func (s *Store) CountTenants(ctx context.Context) (int, error) {
	var n int
	if err := s.getPrepared(ctx, &n, countTenantsSQL); err != nil {
		return 0, fmt.Errorf("store: unable to count tenants: %w", err)
	}
	return n, nil
}

// CreateUser adds a user to a tenant, in the named groups (created on first
// use), with a first API key. Returns ENOTFOUND for an unknown tenant,
// ECONFLICT for an email in use, EINVALID for a bad email or group name.
func (s *Store) CreateUser(ctx context.Context, tenantID, email string, groups []string, admin bool, key NewKey) (string, error) {
	email = strings.TrimSpace(email)
	if err := loupe.ValidEmail(email); err != nil {
		return "", err
	}
	for _, g := range groups {
		if err := loupe.ValidGroupName(g); err != nil {
			return "", err
		}
	}
	if !loupe.ValidID(tenantID) {
		return "", loupe.Errorf(loupe.ENOTFOUND, "tenant %s does not exist", tenantID)
	}
	userID := loupe.NewID()
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var exists bool
		if err := tx.GetContext(ctx, &exists, tenantExistsSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to look up tenant: %w", err)
		}
		if !exists {
			return loupe.Errorf(loupe.ENOTFOUND, "tenant %s does not exist", tenantID)
		}
		if _, err := tx.ExecContext(ctx, insertUserSQL, tenantID, userID, email, admin); err != nil {
			if isUniqueViolation(err) {
				return loupe.Errorf(loupe.ECONFLICT, "a user with email %s already exists", email)
			}
			return fmt.Errorf("store: unable to create user: %w", err)
		}
		for _, g := range groups {
			var groupID string
			if err := tx.GetContext(ctx, &groupID, ensureGroupSQL, tenantID, loupe.NewID(), strings.TrimSpace(g)); err != nil {
				return fmt.Errorf("store: unable to create group: %w", err)
			}
			if _, err := tx.ExecContext(ctx, insertUserGroupSQL, tenantID, userID, groupID); err != nil && !isUniqueViolation(err) {
				return fmt.Errorf("store: unable to add user to group: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, insertKeySQL, tenantID, key.ID, userID, key.Label, key.SecretHash); err != nil {
			return fmt.Errorf("store: unable to create api key: %w", err)
		}
		return nil
	})
	return userID, err
}

func isUniqueViolation(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23505"
}
