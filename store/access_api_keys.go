package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds the management of API keys (spec 2.19, 4.7): a user
// lists, creates and deletes their own keys; an admin those of the whole
// tenant. What authentication reads is in access_key_lookup.go.

// APIKey is a key as its owner sees it. HeaderValue is set only on the
// answer of its creation: only the secret's hash is kept.
type APIKey struct {
	KeyID         string     `db:"id"`
	UserID        string     `db:"user_id"`
	Label         string     `db:"label"`
	IsActive      bool       `db:"is_active"`
	ExpiresOn     *time.Time `db:"expires_on"`
	MaxUnusedDays *int       `db:"max_unused_days"`
	LastUsedOn    *time.Time `db:"last_used_on"`
	CreatedOn     time.Time  `db:"created_on"`
	ModifiedOn    time.Time  `db:"modified_on"`
	HeaderValue   *string    `db:"-"`
}

// ModifiedOnIsoDateString is the spec's name of the modification time.
func (k *APIKey) ModifiedOnIsoDateString() time.Time { return k.ModifiedOn }

// LastUsedOnIsoDate is the spec's name of the last use (nil: never used).
func (k *APIKey) LastUsedOnIsoDate() *time.Time { return k.LastUsedOn }

// APIKeyHeaderValue is the credential, on creation only.
func (k *APIKey) APIKeyHeaderValue() *string { return k.HeaderValue }

// MaxKeysPerUser bounds a user's keys (and so a key listing).
const MaxKeysPerUser = 100

const apiKeyColumns = `id, user_id::text, label, is_active, expires_on, max_unused_days, last_used_on, created_on, modified_on`

const (
	// Keys listed oldest first: by the tenant (admin, the primary key) or
	// by the user (api_keys_user_idx).
	tenantKeysSQL = `SELECT ` + apiKeyColumns + ` FROM api_keys
WHERE tenant_id = $1 ORDER BY created_on, id LIMIT $2`
	userKeysSQL = `SELECT ` + apiKeyColumns + ` FROM api_keys
WHERE tenant_id = $1 AND user_id = $2 ORDER BY created_on, id LIMIT $3`

	// countUserKeysSQL locks the user's row, so that concurrent creations
	// count one after the other.
	countUserKeysSQL = `
SELECT (SELECT count(*) FROM api_keys k WHERE k.tenant_id = $1 AND k.user_id = $2)
FROM users WHERE tenant_id = $1 AND id = $2 FOR UPDATE`
	insertManagedKeySQL = `
INSERT INTO api_keys (tenant_id, id, user_id, label, secret_hash, expires_on, max_unused_days, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
RETURNING ` + apiKeyColumns

	// deleteKeySQL deletes a key of the tenant; $3 (the user) limits a
	// non-admin to their own keys.
	deleteKeySQL = `
DELETE FROM api_keys WHERE tenant_id = $1 AND id = $2 AND ($3::uuid IS NULL OR user_id = $3::uuid)
RETURNING ` + apiKeyColumns

	// touchKeySQL records a use at most once a minute: a later use within
	// the minute matches no row.
	touchKeySQL = `
UPDATE api_keys SET last_used_on = $3::timestamptz
WHERE tenant_id = $1 AND id = $2 AND (last_used_on IS NULL OR last_used_on < $3::timestamptz - interval '1 minute')`

	// revokeUnusedKeySQL turns off a key that went unused too long, by
	// what the database knows of its last use.
	revokeUnusedKeySQL = `
UPDATE api_keys SET is_active = false, modified_on = $3::timestamptz
WHERE tenant_id = $1 AND id = $2 AND is_active AND max_unused_days IS NOT NULL
  AND COALESCE(last_used_on, created_on) + max_unused_days * interval '1 day' <= $3::timestamptz
RETURNING id`
)

// APIKeys lists the principal's keys; an admin's listing is the tenant's.
func (s *Store) APIKeys(ctx context.Context, p *loupe.Principal) ([]*APIKey, error) {
	out := []*APIKey{}
	var err error
	if p.IsAdmin {
		// Bounded: a tenant's keys are its users' (each capped).
		err = s.selectPrepared(ctx, &out, tenantKeysSQL, p.TenantID, 10000)
	} else {
		err = s.selectPrepared(ctx, &out, userKeysSQL, p.TenantID, p.UserID, MaxKeysPerUser)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to list api keys: %w", err)
	}
	return out, nil
}

// CreateAPIKey stores a new key of the principal. key carries the id and the
// secret's hash (internal/auth made them); the answer carries header, the
// credential, which is not kept. Returns EINVALID for a bad label, a past
// expiry or a bad maxUnusedDays, or when the user has too many keys.
func (s *Store) CreateAPIKey(ctx context.Context, p *loupe.Principal, in loupe.APIKeyInput, key NewKey, header string) (*APIKey, error) {
	now := time.Now().UTC()
	if err := in.Validate(now); err != nil {
		return nil, err
	}
	var k APIKey
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, countUserKeysSQL, p.TenantID, p.UserID); err != nil {
			return err
		}
		if n >= MaxKeysPerUser {
			return loupe.Invalid("a user has at most %d keys: delete one first", MaxKeysPerUser)
		}
		return tx.GetContext(ctx, &k, insertManagedKeySQL, p.TenantID, key.ID, p.UserID, in.Label, key.SecretHash,
			in.ExpiresOn, in.MaxUnusedDays, now)
	})
	if err != nil {
		var se *loupe.Error
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, fmt.Errorf("store: unable to create api key: %w", err)
	}
	k.HeaderValue = &header
	return &k, nil
}

// DeleteAPIKey deletes a key: the principal's own, or any of the tenant's
// for an admin. The key stops working on the very next request (the
// authentication cache is told before this returns). Returns ENOTFOUND for
// a key the principal cannot delete, as for a missing one.
func (s *Store) DeleteAPIKey(ctx context.Context, p *loupe.Principal, keyID string) (*APIKey, error) {
	if keyID == "" || strings.ContainsRune(keyID, 0) || !utf8.ValidString(keyID) {
		// No key has such an id (and Postgres text cannot hold it).
		return nil, loupe.NotFound()
	}
	var owner any = p.UserID
	if p.IsAdmin {
		owner = nil
	}
	var k APIKey
	if err := s.db.GetContext(ctx, &k, deleteKeySQL, p.TenantID, keyID, owner); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, loupe.NotFound()
		}
		return nil, fmt.Errorf("store: unable to delete api key: %w", err)
	}
	s.authChanged(p.TenantID, k.UserID)
	s.cacheChanged(ctx)
	return &k, nil
}

// TouchAPIKey records that a key was used at now, at most once a minute.
func (s *Store) TouchAPIKey(ctx context.Context, tenantID, keyID string, now time.Time) error {
	if _, err := s.db.ExecContext(ctx, touchKeySQL, tenantID, keyID, now); err != nil {
		return fmt.Errorf("store: unable to record api key use: %w", err)
	}
	return nil
}

// RevokeUnusedAPIKey turns a key off when it went unused longer than its
// maxUnusedDays by the database's record of its last use, and reports
// whether it did.
func (s *Store) RevokeUnusedAPIKey(ctx context.Context, k *KeyRecord, now time.Time) (bool, error) {
	var id string
	if err := s.db.GetContext(ctx, &id, revokeUnusedKeySQL, k.TenantID, k.KeyID, now); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return false, fmt.Errorf("store: unable to revoke api key: %w", err)
	}
	s.authChanged(k.TenantID, k.UserID)
	s.cacheChanged(ctx)
	return true, nil
}
