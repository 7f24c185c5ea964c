package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// Shares as their creators see them (docs/shares.md): made, listed and
// revoked. What outsiders do with them is in shares_outsider.go.

// Share is a share's record. Its secrets (tokens, password) are never in
// it: only their hashes are stored, and only whether there is a password
// is read.
type Share struct {
	TenantID    string     `db:"tenant_id"`
	ID          string     `db:"id"`
	TargetID    string     `db:"target_id"`
	TargetType  string     `db:"target_type"`
	Access      string     `db:"access"`
	Title       string     `db:"title"`
	Message     string     `db:"message"`
	CreatedBy   string     `db:"created_by"`
	CreatedOn   time.Time  `db:"created_on"`
	ExpiresOn   time.Time  `db:"expires_on"`
	MaxUses     *int       `db:"max_uses"`
	Uses        int        `db:"uses"`
	HasPassword bool       `db:"has_password"`
	Options     loupe.JSON `db:"options"`
	RevokedOn   *time.Time `db:"revoked_on"`
	RevokedBy   *string    `db:"revoked_by"`
	// PublicLink is whether the share has a link without a recipient;
	// Recipients names the others.
	PublicLink bool           `db:"public_link"`
	Recipients pq.StringArray `db:"recipients"`
}

// NodeID implements Node.
func (s *Share) NodeID() string { return s.ID }

// Settings are the share's options as stored; a document that cannot be
// read allows nothing beyond looking.
func (s *Share) Settings() loupe.ShareOptions {
	var o loupe.ShareOptions
	if err := json.Unmarshal(s.Options, &o); err != nil {
		return loupe.ShareOptions{MetadataFields: []string{}}
	}
	if o.MetadataFields == nil {
		o.MetadataFields = []string{}
	}
	return o
}

// State is whether the share's links open at now, and if not, why.
func (s *Share) State(now time.Time) loupe.ShareState {
	switch {
	case s.RevokedOn != nil:
		return loupe.ShareRevoked
	case !now.Before(s.ExpiresOn):
		return loupe.ShareExpired
	case s.MaxUses != nil && s.Uses >= *s.MaxUses:
		return loupe.ShareExhausted
	}
	return loupe.ShareActive
}

// NewShareToken is a link to make: the hash of its token and its recipient
// (nil for the public link).
type NewShareToken struct {
	Hash      []byte
	Recipient *string
}

// MaxSharesPage bounds a page of shares.
const MaxSharesPage = 100

const (
	shareColumns = `s.tenant_id, s.id, s.target_id, s.target_type, s.access, s.title, s.message, s.created_by,
       s.created_on, s.expires_on, s.max_uses, s.uses, s.password_hash IS NOT NULL AS has_password, s.options,
       s.revoked_on, s.revoked_by,
       EXISTS (SELECT 1 FROM share_tokens t WHERE t.tenant_id = s.tenant_id AND t.share_id = s.id
               AND t.recipient IS NULL) AS public_link,
       ARRAY(SELECT t.recipient FROM share_tokens t WHERE t.tenant_id = s.tenant_id AND t.share_id = s.id
             AND t.recipient IS NOT NULL ORDER BY t.recipient) AS recipients`

	insertShareSQL = `
INSERT INTO shares (tenant_id, id, target_id, target_type, access, title, message, created_by, created_on,
                    expires_on, max_uses, password_hash, options)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULLIF($12, ''), $13)`

	insertShareTokenSQL = `
INSERT INTO share_tokens (token_hash, tenant_id, share_id, recipient, created_on) VALUES ($1, $2, $3, $4, $5)`

	shareByIDSQL = `SELECT ` + shareColumns + ` FROM shares s WHERE s.tenant_id = $1 AND s.id = $2`

	// sharesPageSQL: the tenant's shares (an admin's view, $2 NULL) or a
	// creator's, newest first, after a cursor.
	sharesPageSQL = `
SELECT ` + shareColumns + ` FROM shares s
WHERE s.tenant_id = $1 AND ($2::uuid IS NULL OR s.created_by = $2)
  AND ($3::timestamptz IS NULL OR (s.created_on, s.id) < ($3, $4::uuid))
ORDER BY s.created_on DESC, s.id DESC LIMIT $5`

	revokeShareSQL = `
UPDATE shares SET revoked_on = $3, revoked_by = $4
WHERE tenant_id = $1 AND id = $2 AND revoked_on IS NULL`

	endShareSessionsSQL = `DELETE FROM share_sessions WHERE tenant_id = $1 AND share_id = $2`
)

// shareTargetSQL is the target as its creator may see it ($3 user, $4
// tokens): live and visible.
var shareTargetSQL = `
SELECT i.item_type, i.title FROM items i
WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL AND ` + visibleSQL("i", 3, 4)

// CreateShare makes a share of req.TargetID for p with its links, in one
// transaction with its audit record and event. A target p cannot see,
// or of another tenant, or deleted, is EINVALID (the spec's 400).
func (s *Store) CreateShare(ctx context.Context, p *loupe.Principal, req *loupe.ShareRequest, passwordHash string,
	tokens []NewShareToken) (*Share, error) {
	options, err := json.Marshal(req.Options)
	if err != nil {
		return nil, fmt.Errorf("store: unable to encode share options: %w", err)
	}
	id, at := loupe.NewID(), now()
	var targetType string
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var target struct {
			ItemType string `db:"item_type"`
			Title    string `db:"title"`
		}
		err := tx.GetContext(ctx, &target, shareTargetSQL, p.TenantID, req.TargetID, p.UserID, aclTokens(p))
		if errors.Is(err, sql.ErrNoRows) {
			return loupe.Invalid("targetId: no item or folder %s", req.TargetID)
		}
		if err != nil {
			return fmt.Errorf("store: unable to read the share's target: %w", err)
		}
		targetType = "item"
		if target.ItemType == "folder" {
			targetType = "folder"
		}
		title := target.Title
		if req.Title != nil {
			title = *req.Title
		}
		if _, err := tx.ExecContext(ctx, insertShareSQL, p.TenantID, id, req.TargetID, targetType, req.Access, title,
			req.Message, p.UserID, at, req.ExpiresOn, req.MaxUses, passwordHash, string(options)); err != nil {
			return fmt.Errorf("store: unable to make the share: %w", err)
		}
		for _, t := range tokens {
			if _, err := tx.ExecContext(ctx, insertShareTokenSQL, t.Hash, p.TenantID, id, t.Recipient, at); err != nil {
				return fmt.Errorf("store: unable to make the share's link: %w", err)
			}
		}
		if err := auditTx(ctx, tx, p, req.TargetID, target.Title, loupe.ActionShareCreated, at,
			shareDiff(id, map[string]any{"access": req.Access})); err != nil {
			return err
		}
		return emitTx(ctx, tx, p.TenantID, at, NewEvent{Type: loupe.EventShareCreation, ItemID: req.TargetID,
			ActorID: p.UserID, Data: map[string]any{"shareId": id, "access": req.Access, "targetType": targetType}})
	})
	if err != nil {
		return nil, err
	}
	s.countUsage(p.TenantID, "shares_created_"+targetType+"_"+req.Access, 1)
	s.countUsage(p.TenantID, MetricSharesTokens, len(tokens))
	return s.shareByID(ctx, s.db, p.TenantID, id)
}

// shareDiff is the mdfDiff of a share's audit record: which share, and
// what the outsider did (docs/shares.md).
func shareDiff(shareID string, more map[string]any) loupe.JSON {
	d := map[string]any{"shareId": shareID}
	for k, v := range more {
		d[k] = v
	}
	b, _ := json.Marshal(d) // strings and ids: always encodes
	return b
}

func (s *Store) shareByID(ctx context.Context, q sqlx.QueryerContext, tenantID, id string) (*Share, error) {
	var sh Share
	err := sqlx.GetContext(ctx, q, &sh, shareByIDSQL, tenantID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, loupe.NotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read share: %w", err)
	}
	return &sh, nil
}

// Shares reads a page of shares, newest first: all of the tenant's for an
// admin, else the principal's own. Returns whether more follow.
func (s *Store) Shares(ctx context.Context, p *loupe.Principal, after *TimeCursor, first int) ([]*Share, bool, error) {
	if first < 1 || first > MaxSharesPage {
		return nil, false, loupe.Invalid("size must be between 1 and %d", MaxSharesPage)
	}
	var creator, at, id any
	if !p.IsAdmin {
		creator = p.UserID
	}
	if after != nil {
		at, id = after.CreatedOn, after.ID
	}
	var out []*Share
	if err := s.db.SelectContext(ctx, &out, sharesPageSQL, p.TenantID, creator, at, id, first+1); err != nil {
		return nil, false, fmt.Errorf("store: unable to read shares: %w", err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}

// Share reads one share its creator or an admin may see (else ENOTFOUND).
func (s *Store) Share(ctx context.Context, p *loupe.Principal, id string) (*Share, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	sh, err := s.shareByID(ctx, s.db, p.TenantID, id)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin && sh.CreatedBy != p.UserID {
		return nil, loupe.NotFound()
	}
	return sh, nil
}

// RevokeShare ends a share for good (its creator or an admin): its links
// stop opening and its open sessions end at once.
func (s *Store) RevokeShare(ctx context.Context, p *loupe.Principal, id string) (*Share, error) {
	sh, err := s.Share(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if sh.RevokedOn != nil {
		return sh, nil
	}
	at := now()
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, revokeShareSQL, p.TenantID, id, at, p.UserID); err != nil {
			return fmt.Errorf("store: unable to revoke share: %w", err)
		}
		if _, err := tx.ExecContext(ctx, endShareSessionsSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to end the share's sessions: %w", err)
		}
		if err := auditTx(ctx, tx, p, sh.TargetID, sh.Title, loupe.ActionShareRevoked, at, shareDiff(id, nil)); err != nil {
			return err
		}
		return emitTx(ctx, tx, p.TenantID, at, NewEvent{Type: loupe.EventShareRevocation, ItemID: sh.TargetID,
			ActorID: p.UserID, Data: map[string]any{"shareId": id}})
	})
	if err != nil {
		return nil, err
	}
	return s.shareByID(ctx, s.db, p.TenantID, id)
}
