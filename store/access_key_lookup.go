package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
	"github.com/loupe-mam/loupe"
)

// KeyRecord is what authentication needs to know about a presented key.
// A system key has System set and no tenant or user.
type KeyRecord struct {
	TenantID      string         `db:"tenant_id"`
	KeyID         string         `db:"id"`
	UserID        string         `db:"user_id"`
	SecretHash    []byte         `db:"secret_hash"`
	IsActive      bool           `db:"is_active"`
	ExpiresOn     *time.Time     `db:"expires_on"`
	MaxUnusedDays *int           `db:"max_unused_days"`
	LastUsedOn    *time.Time     `db:"last_used_on"`
	CreatedOn     time.Time      `db:"created_on"`
	Email         string         `db:"email"`
	IsAdmin       bool           `db:"is_admin"`
	Deactivated   bool           `db:"deactivated"`
	Groups        pq.StringArray `db:"groups"`
	GroupIDs      pq.StringArray `db:"group_ids"`
	System        bool           `db:"system"`
}

// UnusedUntil is when a key last used at last (or created then, never
// used) stops working by its maxUnusedDays; nil when it has none.
func (k *KeyRecord) UnusedUntil(last time.Time) *time.Time {
	if k.MaxUnusedDays == nil {
		return nil
	}
	t := last.Add(time.Duration(*k.MaxUnusedDays) * 24 * time.Hour)
	return &t
}

// Principal is the identity the key proves.
func (k *KeyRecord) Principal() *loupe.Principal {
	if k.System {
		return &loupe.Principal{System: true, KeyID: k.KeyID}
	}
	tokens := make([]string, 0, 2*len(k.Groups))
	for i, name := range k.Groups {
		tokens = append(tokens, k.TenantID+":"+name)
		if i < len(k.GroupIDs) {
			tokens = append(tokens, k.GroupIDs[i])
		}
	}
	return &loupe.Principal{
		TenantID: k.TenantID, UserID: k.UserID, Email: k.Email,
		IsAdmin: k.IsAdmin, Groups: []string(k.Groups), Tokens: tokens, KeyID: k.KeyID,
	}
}

// keyByIDSQL is the query authentication makes for a key it has not cached.
// The key id is globally unique (api_keys_id_key), so it finds the tenant;
// a system key (system_keys) has no tenant.
const keyByIDSQL = `
SELECT k.tenant_id::text, k.id, k.user_id::text, k.secret_hash, k.is_active, k.expires_on,
       k.max_unused_days, k.last_used_on, k.created_on,
       u.email, u.is_admin, u.deactivated, false AS system,
       ARRAY(SELECT g.name FROM user_groups ug
             JOIN groups g ON g.tenant_id = ug.tenant_id AND g.id = ug.group_id
             WHERE ug.tenant_id = k.tenant_id AND ug.user_id = k.user_id
             ORDER BY g.name) AS groups,
       ARRAY(SELECT g.id::text FROM user_groups ug
             JOIN groups g ON g.tenant_id = ug.tenant_id AND g.id = ug.group_id
             WHERE ug.tenant_id = k.tenant_id AND ug.user_id = k.user_id
             ORDER BY g.name) AS group_ids
FROM api_keys k
JOIN users u ON u.tenant_id = k.tenant_id AND u.id = k.user_id
WHERE k.id = $1
UNION ALL
SELECT '', s.id, '', s.secret_hash, true, NULL, NULL, NULL, s.created_on,
       '', false, false, true, '{}', '{}'
FROM system_keys s WHERE s.id = $1`

// KeyByID returns the key and its user. Returns EUNAUTHORIZED when no such key
// exists: to a caller, an unknown key is just a bad credential.
func (s *Store) KeyByID(ctx context.Context, keyID string) (*KeyRecord, error) {
	var k KeyRecord
	if err := s.getPrepared(ctx, &k, keyByIDSQL, keyID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
		}
		return nil, fmt.Errorf("store: unable to fetch api key: %w", err)
	}
	return &k, nil
}
