package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// What outsiders do with shares (docs/shares.md): a link is looked up by
// the hash of its token, opened (a use, a session), and every request of a
// session is answered only inside the share's root, as far as its creator
// may see now.

// ShareGrant is a share as an outsider's link or session meets it: the
// share, the link, and its creator, whose access bounds the share's.
type ShareGrant struct {
	Share
	TokenHash    []byte  `db:"token_hash"`
	Recipient    *string `db:"recipient"`
	PasswordHash *string `db:"password_hash"`
	// SessionExpiresOn is when the session ends (a grant by session).
	SessionExpiresOn *time.Time     `db:"session_expires_on"`
	CreatorEmail     string         `db:"creator_email"`
	CreatorAdmin     bool           `db:"creator_admin"`
	CreatorGone      bool           `db:"creator_gone"`
	CreatorGroups    pq.StringArray `db:"groups"`
	CreatorGroupIDs  pq.StringArray `db:"group_ids"`
}

// Creator is the principal whose sight bounds the share's: its creator's,
// as of now (groups, admin, deactivation).
func (g *ShareGrant) Creator() *loupe.Principal {
	k := &KeyRecord{TenantID: g.TenantID, UserID: g.CreatedBy, Email: g.CreatorEmail, IsAdmin: g.CreatorAdmin,
		Groups: g.CreatorGroups, GroupIDs: g.CreatorGroupIDs}
	p := k.Principal()
	p.KeyID = ""
	return p
}

// Actor is who an outsider's audit record names: the share (an outsider
// has no user), with the link's recipient as its email when it has one.
func (g *ShareGrant) Actor() *loupe.Principal {
	email := "share link"
	if g.Recipient != nil {
		email = *g.Recipient
	}
	return &loupe.Principal{TenantID: g.TenantID, UserID: g.ID, Email: email}
}

const (
	grantColumns = shareColumns + `, t.token_hash, t.recipient, s.password_hash,
       u.email AS creator_email, u.is_admin AS creator_admin, u.deactivated AS creator_gone,` + userGroupsSQL

	grantByTokenSQL = `
SELECT ` + grantColumns + `, NULL::timestamptz AS session_expires_on
FROM share_tokens t
JOIN shares s ON s.tenant_id = t.tenant_id AND s.id = t.share_id
JOIN users u ON u.tenant_id = s.tenant_id AND u.id = s.created_by
WHERE t.token_hash = $1`

	grantBySessionSQL = `
SELECT ` + grantColumns + `, ss.expires_on AS session_expires_on
FROM share_sessions ss
JOIN share_tokens t ON t.token_hash = ss.token_hash
JOIN shares s ON s.tenant_id = ss.tenant_id AND s.id = ss.share_id
JOIN users u ON u.tenant_id = s.tenant_id AND u.id = s.created_by
WHERE ss.session_hash = $1 AND ss.expires_on > $2`

	// useShareSQL counts an open: one row only while the share opens, so
	// that under concurrent opens exactly maxUses succeed (each UPDATE
	// waits for the one before and re-checks the row it then sees).
	useShareSQL = `
UPDATE shares SET uses = uses + 1
WHERE tenant_id = $1 AND id = $2 AND revoked_on IS NULL AND expires_on > $3
  AND (max_uses IS NULL OR uses < max_uses)`

	insertShareSessionSQL = `
INSERT INTO share_sessions (session_hash, tenant_id, share_id, token_hash, created_on, expires_on)
VALUES ($1, $2, $3, $4, $5, $6)`

	// passwordWaitSQL is how long the keys' failures make the next
	// attempt wait: 1 s after the first failure, doubling, at most 15
	// minutes — never a lock.
	passwordWaitSQL = `
SELECT COALESCE(greatest(0, extract(epoch FROM
    max(last_failure + least(interval '1 second' * power(2, least(failures, 20) - 1), interval '15 minutes')) - $2)), 0)
FROM share_password_failures WHERE key = ANY($1::text[])`

	passwordFailureSQL = `
INSERT INTO share_password_failures (key, failures, last_failure) SELECT k, 1, $2 FROM unnest($1::text[]) k
ON CONFLICT (key) DO UPDATE SET failures = share_password_failures.failures + 1, last_failure = $2`

	clearPasswordFailuresSQL = `DELETE FROM share_password_failures WHERE key = ANY($1::text[])`

	insertShareUploadSQL = `
INSERT INTO share_uploads (tenant_id, upload_id, share_id, item_id, created_on) VALUES ($1, $2, $3, $4, $5)`

	shareUploadSQL = `
SELECT item_id::text FROM share_uploads WHERE tenant_id = $1 AND upload_id = $2 AND share_id = $3`

	pruneShareSessionsSQL = `DELETE FROM share_sessions WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM share_sessions WHERE expires_on < $1 LIMIT $2))`
	prunePasswordFailuresSQL = `DELETE FROM share_password_failures WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM share_password_failures WHERE last_failure < $1 LIMIT $2))`
)

// shareInsideSQL is the one test of an outsider's reach (the root $2, the
// item $3, the creator's user $4 and tokens $5): the item is the root or
// lies under it through live folders, and the creator may see both now.
var shareInsideSQL = `
WITH RECURSIVE up (id, depth) AS (
    SELECT i.id, 0 FROM items i WHERE i.tenant_id = $1 AND i.id = $3 AND i.deleted_on IS NULL
    UNION
    SELECT f.id, up.depth + 1 FROM up
    JOIN items c ON c.tenant_id = $1 AND c.id = up.id
    JOIN items f ON f.tenant_id = $1 AND f.id = ANY (c.folder_ids) AND f.deleted_on IS NULL
    WHERE up.depth < 64
)
SELECT EXISTS (SELECT 1 FROM up WHERE up.id = $2)
   AND EXISTS (SELECT 1 FROM items r WHERE r.tenant_id = $1 AND r.id = $2 AND r.deleted_on IS NULL
               AND ` + visibleSQL("r", 4, 5) + `)
   AND EXISTS (SELECT 1 FROM items i WHERE i.tenant_id = $1 AND i.id = $3 AND ` + visibleSQL("i", 4, 5) + `)`

func (s *Store) grant(ctx context.Context, q string, args ...any) (*ShareGrant, error) {
	var g ShareGrant
	err := s.db.GetContext(ctx, &g, q, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, loupe.NotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read share: %w", err)
	}
	return &g, nil
}

// ShareByToken is the share a link's token hash names (ENOTFOUND when
// none does), whatever its state.
func (s *Store) ShareByToken(ctx context.Context, tokenHash []byte) (*ShareGrant, error) {
	return s.grant(ctx, grantByTokenSQL, tokenHash)
}

// ShareBySession is the share of a live session (ENOTFOUND when the
// session is unknown or over), whatever the share's state.
func (s *Store) ShareBySession(ctx context.Context, sessionHash []byte) (*ShareGrant, error) {
	return s.grant(ctx, grantBySessionSQL, sessionHash, now())
}

// OpenShare counts a use of g's link and starts a session (sessionHash,
// ending at until), audited, in one transaction. It answers false when
// the share no longer opens (a concurrent open took its last use, or it
// expired or was revoked meanwhile).
func (s *Store) OpenShare(ctx context.Context, g *ShareGrant, sessionHash []byte, until time.Time, address string) (bool, error) {
	opened := false
	at := now()
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, useShareSQL, g.TenantID, g.ID, at)
		if err != nil {
			return fmt.Errorf("store: unable to count the share's use: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, insertShareSessionSQL, sessionHash, g.TenantID, g.ID, g.TokenHash, at, until); err != nil {
			return fmt.Errorf("store: unable to start the share's session: %w", err)
		}
		if err := auditTx(ctx, tx, g.Actor(), g.TargetID, g.Title, loupe.ActionShareOpened, at,
			shareDiff(g.ID, map[string]any{"address": address})); err != nil {
			return err
		}
		opened = true
		return emitTx(ctx, tx, g.TenantID, at, NewEvent{Type: loupe.EventShareOpening, ItemID: g.TargetID,
			Data: map[string]any{"shareId": g.ID, "creatorId": g.CreatedBy}})
	})
	return opened, err
}

// PasswordWait is how long attempts at keys (a link's, an address's)
// must still wait after their failures (0: none).
func (s *Store) PasswordWait(ctx context.Context, keys []string) (time.Duration, error) {
	var seconds float64
	if err := s.db.GetContext(ctx, &seconds, passwordWaitSQL, stringArray(keys), now()); err != nil {
		return 0, fmt.Errorf("store: unable to read password failures: %w", err)
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// PasswordFailed records a wrong password for keys, audited on the share.
func (s *Store) PasswordFailed(ctx context.Context, g *ShareGrant, keys []string, address string) error {
	at := now()
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, passwordFailureSQL, stringArray(keys), at); err != nil {
			return fmt.Errorf("store: unable to record a password failure: %w", err)
		}
		return auditTx(ctx, tx, g.Actor(), g.TargetID, g.Title, loupe.ActionSharePasswordFailed, at,
			shareDiff(g.ID, map[string]any{"address": address}))
	})
}

// PasswordSucceeded forgets the failures of keys.
func (s *Store) PasswordSucceeded(ctx context.Context, keys []string) error {
	if _, err := s.db.ExecContext(ctx, clearPasswordFailuresSQL, stringArray(keys)); err != nil {
		return fmt.Errorf("store: unable to clear password failures: %w", err)
	}
	return nil
}

// InsideShare is whether itemID is within g's root now, as far as its
// creator may see: the one question every outsider read asks.
func (s *Store) InsideShare(ctx context.Context, g *ShareGrant, itemID string) (bool, error) {
	if !loupe.ValidID(itemID) {
		return false, nil
	}
	c := g.Creator()
	var inside bool
	if err := s.db.GetContext(ctx, &inside, shareInsideSQL, g.TenantID, g.TargetID, itemID, c.UserID, aclTokens(c)); err != nil {
		return false, fmt.Errorf("store: unable to check a share's reach: %w", err)
	}
	return inside, nil
}

// AuditShare records what an outsider did with an item through g.
func (s *Store) AuditShare(ctx context.Context, g *ShareGrant, itemID, itemTitle string, action loupe.AuditAction, more map[string]any) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		return auditTx(ctx, tx, g.Actor(), itemID, itemTitle, action, now(), shareDiff(g.ID, more))
	})
}

// ShareUploadStarted records an upload an outsider started through g
// (made by the share's creator's authority), audited on its item, with
// its event.
func (s *Store) ShareUploadStarted(ctx context.Context, g *ShareGrant, up *Upload, fileName string) error {
	at := now()
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, insertShareUploadSQL, g.TenantID, up.ID, g.ID, up.ItemID, at); err != nil {
			return fmt.Errorf("store: unable to record the share's upload: %w", err)
		}
		if err := auditTx(ctx, tx, g.Actor(), up.ItemID, fileName, loupe.ActionShareUpload, at,
			shareDiff(g.ID, map[string]any{"uploadId": up.ID, "fileName": fileName, "size": up.Size})); err != nil {
			return err
		}
		return emitTx(ctx, tx, g.TenantID, at, NewEvent{Type: loupe.EventShareUpload, ItemID: up.ItemID,
			Data: map[string]any{"shareId": g.ID, "creatorId": g.CreatedBy, "uploadId": up.ID}})
	})
	if err == nil {
		s.countUsage(g.TenantID, MetricSharesUploadsInitiated, 1)
	}
	return err
}

// ShareUploadItem is the item of an upload started through g (ENOTFOUND
// for any other upload).
func (s *Store) ShareUploadItem(ctx context.Context, g *ShareGrant, uploadID string) (string, error) {
	if !loupe.ValidID(uploadID) {
		return "", loupe.NotFound()
	}
	var itemID string
	err := s.db.GetContext(ctx, &itemID, shareUploadSQL, g.TenantID, uploadID, g.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", loupe.NotFound()
	}
	if err != nil {
		return "", fmt.Errorf("store: unable to read the share's upload: %w", err)
	}
	return itemID, nil
}

// PruneShareSessions deletes sessions that ended, and password failures
// older than a day, before a time.
func (s *Store) PruneShareSessions(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.pruneBatches(ctx, pruneShareSessionsSQL, before)
	if err != nil {
		return n, err
	}
	m, err := s.pruneBatches(ctx, prunePasswordFailuresSQL, before.Add(-24*time.Hour))
	return n + m, err
}
