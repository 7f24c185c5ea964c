package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/loupe-mam/loupe"
)

// This file maps users of a tenant's identity provider (verified bearer
// JWTs, docs/security.md) to Loupe users: found by the token's subject, or
// linked by email to a user made before, or made on first sight.

// Identity is what a verified token says about its bearer.
type Identity struct {
	Subject string
	// Email is empty when the provider gave none (or an unverified one).
	Email string
	// Groups are group names from the token; they count for this request
	// beside the user's stored memberships.
	Groups []string
}

// OrganizationGroup is the group a tenant's new identity-provider users
// join when its security settings say so.
const OrganizationGroup = "organization"

// identityUser is a user found by subject, with stored memberships.
type identityUser struct {
	ID          string         `db:"id"`
	Email       string         `db:"email"`
	IsAdmin     bool           `db:"is_admin"`
	Deactivated bool           `db:"deactivated"`
	Groups      pq.StringArray `db:"groups"`
	GroupIDs    pq.StringArray `db:"group_ids"`
}

const (
	// userGroupsSQL are the memberships of the user aliased u, by name and
	// by id, in one order: what a principal's tokens are made of
	// (KeyRecord.Principal).
	userGroupsSQL = `
       ARRAY(SELECT g.name FROM user_groups ug JOIN groups g ON g.tenant_id = ug.tenant_id AND g.id = ug.group_id
             WHERE ug.tenant_id = u.tenant_id AND ug.user_id = u.id ORDER BY g.name) AS groups,
       ARRAY(SELECT g.id::text FROM user_groups ug JOIN groups g ON g.tenant_id = ug.tenant_id AND g.id = ug.group_id
             WHERE ug.tenant_id = u.tenant_id AND ug.user_id = u.id ORDER BY g.name) AS group_ids`

	userBySubjectSQL = `
SELECT u.id::text, u.email, u.is_admin, u.deactivated,` + userGroupsSQL + `
FROM users u WHERE u.tenant_id = $1 AND u.idp_subject = $2`

	// linkUserByEmailSQL gives a user made before (by email, without a
	// subject yet) the token's subject.
	linkUserByEmailSQL = `
UPDATE users SET idp_subject = $3
WHERE tenant_id = $1 AND lower(email) = lower($2) AND idp_subject IS NULL
RETURNING id`

	insertIdentityUserSQL = `
INSERT INTO users (tenant_id, id, email, idp_subject) VALUES ($1, $2, $3, $4)
ON CONFLICT DO NOTHING`

	// orgGroupSQL finds the organisation group, or makes it. It never
	// updates an existing group: an update of groups tells every server to
	// forget every cached key (migration 00013), which a user signing in
	// must not cause. No row: a concurrent transaction made the group
	// meanwhile (the insert waited for it); orgGroupByNameSQL then sees it.
	orgGroupSQL = `
WITH found AS (SELECT id FROM groups WHERE tenant_id = $1 AND name = $3),
made AS (
    INSERT INTO groups (tenant_id, id, name) SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM found)
    ON CONFLICT (tenant_id, name) DO NOTHING
    RETURNING id)
SELECT id::text FROM found UNION ALL SELECT id::text FROM made`
	orgGroupByNameSQL = `SELECT id::text FROM groups WHERE tenant_id = $1 AND name = $2`
)

// PrincipalForIdentity returns the principal of a verified token's bearer
// in a tenant: the user with the token's subject, else the user with its
// email (who gets the subject), else a new user — who joins the
// organisation group when autoAdd is set. Returns EUNAUTHORIZED for a
// deactivated user.
func (s *Store) PrincipalForIdentity(ctx context.Context, tenantID string, id Identity, autoAdd bool) (*loupe.Principal, error) {
	// Claims are the provider's strings, which Postgres text may not hold:
	// such a subject names nobody, such an email or group is left out.
	if !textOK(id.Subject) {
		return nil, &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
	}
	if !textOK(id.Email) {
		id.Email = ""
	}
	u, err := s.userBySubject(ctx, tenantID, id.Subject)
	if errors.Is(err, sql.ErrNoRows) {
		if err = s.provisionIdentity(ctx, tenantID, id, autoAdd); err == nil {
			u, err = s.userBySubject(ctx, tenantID, id.Subject)
		}
	}
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
		}
		return nil, err
	}
	if u.Deactivated {
		return nil, &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
	}
	k := &KeyRecord{TenantID: tenantID, UserID: u.ID, Email: u.Email, IsAdmin: u.IsAdmin,
		Groups: u.Groups, GroupIDs: u.GroupIDs}
	p := k.Principal()
	p.KeyID = ""
	// The token's groups count as memberships for this request.
	for _, g := range id.Groups {
		if g = strings.TrimSpace(g); g != "" && textOK(g) && !strings.Contains(g, ":") && !containsString(p.Groups, g) {
			p.Groups = append(p.Groups, g)
			p.Tokens = append(p.Tokens, tenantID+":"+g)
		}
	}
	return p, nil
}

// textOK reports whether Postgres text can hold s (valid UTF-8, no NUL).
func textOK(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (s *Store) userBySubject(ctx context.Context, tenantID, subject string) (*identityUser, error) {
	var u identityUser
	if err := s.getPrepared(ctx, &u, userBySubjectSQL, tenantID, subject); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("store: unable to look up identity: %w", err)
	}
	return &u, nil
}

// provisionIdentity links or makes the user of a subject. Concurrent first
// requests of one subject race harmlessly: the unique index on the subject
// keeps one user, the others insert nothing.
func (s *Store) provisionIdentity(ctx context.Context, tenantID string, id Identity, autoAdd bool) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if id.Email != "" {
			var linked string
			err := tx.GetContext(ctx, &linked, linkUserByEmailSQL, tenantID, id.Email, id.Subject)
			if err == nil {
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("store: unable to link identity: %w", err)
			}
		}
		email := id.Email
		if email == "" || loupe.ValidEmail(email) != nil {
			// users.email is required and unique per tenant: a provider
			// that gives none gets a name no mailbox has.
			email = id.Subject + "@identity.invalid"
		}
		userID := loupe.NewID()
		res, err := tx.ExecContext(ctx, insertIdentityUserSQL, tenantID, userID, email, id.Subject)
		if err != nil {
			return fmt.Errorf("store: unable to add identity user: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 || !autoAdd {
			return nil
		}
		var groupID string
		err = tx.GetContext(ctx, &groupID, orgGroupSQL, tenantID, loupe.NewID(), OrganizationGroup)
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.GetContext(ctx, &groupID, orgGroupByNameSQL, tenantID, OrganizationGroup)
		}
		if err != nil {
			return fmt.Errorf("store: unable to make the organisation group: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertUserGroupSQL, tenantID, userID, groupID); err != nil {
			return fmt.Errorf("store: unable to add to the organisation group: %w", err)
		}
		return nil
	})
}
