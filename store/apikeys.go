package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// KeyRecord is what authentication needs to know about a presented key.
type KeyRecord struct {
	TenantID    string         `db:"tenant_id"`
	KeyID       string         `db:"id"`
	UserID      string         `db:"user_id"`
	SecretHash  []byte         `db:"secret_hash"`
	IsActive    bool           `db:"is_active"`
	ExpiresOn   *time.Time     `db:"expires_on"`
	Email       string         `db:"email"`
	IsAdmin     bool           `db:"is_admin"`
	Deactivated bool           `db:"deactivated"`
	Groups      pq.StringArray `db:"groups"`
	GroupIDs    pq.StringArray `db:"group_ids"`
}

// Principal is the identity the key proves.
func (k *KeyRecord) Principal() *Principal {
	tokens := make([]string, 0, 2*len(k.Groups))
	for i, name := range k.Groups {
		tokens = append(tokens, k.TenantID+":"+name)
		if i < len(k.GroupIDs) {
			tokens = append(tokens, k.GroupIDs[i])
		}
	}
	return &Principal{
		TenantID: k.TenantID, UserID: k.UserID, Email: k.Email,
		IsAdmin: k.IsAdmin, Groups: []string(k.Groups), Tokens: tokens, KeyID: k.KeyID,
	}
}

// keyByIDSQL is the one query authentication makes per request. The key id is
// globally unique (api_keys_id_key), so it finds the tenant.
const keyByIDSQL = `
SELECT k.tenant_id, k.id, k.user_id, k.secret_hash, k.is_active, k.expires_on,
       u.email, u.is_admin, u.deactivated,
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
WHERE k.id = $1`

// KeyByID returns the key and its user. Returns EUNAUTHORIZED when no such key
// exists: to a caller, an unknown key is just a bad credential.
func (s *Store) KeyByID(ctx context.Context, keyID string) (*KeyRecord, error) {
	var k KeyRecord
	if err := s.getPrepared(ctx, &k, keyByIDSQL, keyID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, &Error{Kind: EUNAUTHORIZED, Message: MsgUnauthenticated}
		}
		return nil, fmt.Errorf("store: unable to fetch api key: %w", err)
	}
	return &k, nil
}
