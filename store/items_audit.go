package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
)

// AuditRecord is one operation on an item (spec 2.9).
type AuditRecord struct {
	TenantID   string            `db:"tenant_id"`
	ID         string            `db:"id"`
	ItemID     string            `db:"item_id"`
	ActionType loupe.AuditAction `db:"action_type"`
	ExecutedBy string            `db:"executed_by"`
	ExecutedOn time.Time         `db:"executed_on"`
	Email      string            `db:"email"`
	ItemTitle  string            `db:"item_title"`
	MdfDiff    loupe.JSON        `db:"mdf_diff"`
}

// NodeID implements Node.
func (a *AuditRecord) NodeID() string { return a.ID }

const insertAuditSQL = `
INSERT INTO audit_records (tenant_id, id, item_id, action_type, executed_by, email, item_title, executed_on, mdf_diff)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// auditTx records an action inside the transaction of the change it records.
func auditTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, itemID, itemTitle string, action loupe.AuditAction, at time.Time, mdfDiff loupe.JSON) error {
	_, err := tx.ExecContext(ctx, insertAuditSQL, p.TenantID, loupe.NewID(), itemID, string(action),
		p.UserID, p.Email, itemTitle, at, mdfDiff)
	if err != nil {
		return fmt.Errorf("store: unable to write audit record: %w", err)
	}
	return nil
}

// insertAuditEventSQL records an action and writes its event ($10 type,
// $11 data) in one statement: one round trip for the writes whose rate
// the outbox must not cost (docs/events.md).
const insertAuditEventSQL = `
WITH audited AS (` + insertAuditSQL + `)
INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data) VALUES ($1, $10, $3, $5, $8, $11)`

// auditEmitTx is auditTx and emitTx of ev (about the same item, by the
// principal) in one statement.
func auditEmitTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, itemID, itemTitle string, action loupe.AuditAction,
	at time.Time, mdfDiff loupe.JSON, ev NewEvent) error {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, insertAuditEventSQL, p.TenantID, loupe.NewID(), itemID, string(action),
		p.UserID, p.Email, itemTitle, at, mdfDiff, string(ev.Type), string(data)); err != nil {
		return fmt.Errorf("store: unable to write audit record and event: %w", err)
	}
	return nil
}

const insertAuditManySQL = `
INSERT INTO audit_records (tenant_id, id, item_id, action_type, executed_by, email, item_title, executed_on)
SELECT $1, r.id, r.item_id, $4, $5, $6, r.title, $7
FROM unnest($2::uuid[], $3::uuid[], $8::text[]) AS r(id, item_id, title)`

// auditManyTx records one action on several items in one statement.
func auditManyTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, items []changedItem, action loupe.AuditAction, at time.Time) error {
	ids, itemIDs, titles := make([]string, len(items)), make([]string, len(items)), make([]string, len(items))
	for i, it := range items {
		ids[i], itemIDs[i], titles[i] = loupe.NewID(), it.ID, it.Title
	}
	_, err := tx.ExecContext(ctx, insertAuditManySQL, p.TenantID, stringArray(ids), stringArray(itemIDs),
		string(action), p.UserID, p.Email, at, stringArray(titles))
	if err != nil {
		return fmt.Errorf("store: unable to write audit records: %w", err)
	}
	return nil
}

// AuditQuery filters an audit search. Zero values do not filter.
type AuditQuery struct {
	ItemID     string
	ActionType loupe.AuditAction
	ExecutedBy string
	Since      *time.Time
	Until      *time.Time
	From       int
	Size       int
}

// MaxAuditPage bounds one page of audit hits.
const MaxAuditPage = 1000

// Validate checks paging and ids.
func (q *AuditQuery) Validate() error {
	if q.From < 0 {
		return loupe.Invalid("from must not be negative")
	}
	if q.Size < 1 || q.Size > MaxAuditPage {
		return loupe.Invalid("size must be between 1 and %d", MaxAuditPage)
	}
	if q.Since != nil && q.Until != nil && !q.Since.Before(*q.Until) {
		return loupe.Invalid("since must be before until")
	}
	return nil
}

var (
	auditColumns = `a.tenant_id, a.id, a.item_id, a.action_type, a.executed_by, a.executed_on, a.email, a.item_title, a.mdf_diff`
	// auditWhere treats a NULL parameter as "no filter"; each filter has an
	// index led by (tenant_id, <column>, executed_on DESC).
	auditWhere = `
WHERE a.tenant_id = $1
  AND ($2::uuid IS NULL OR a.item_id = $2)
  AND ($3::text IS NULL OR a.action_type = $3)
  AND ($4::uuid IS NULL OR a.executed_by = $4)
  AND ($5::timestamptz IS NULL OR a.executed_on >= $5)
  AND ($6::timestamptz IS NULL OR a.executed_on < $6)
  AND ` + auditVisible78
	searchAuditSQL = `SELECT ` + auditColumns + ` FROM audit_records a` + auditWhere + `
ORDER BY a.executed_on DESC, a.id DESC OFFSET $9 LIMIT $10`
	countAuditSQL = `SELECT count(*) FROM audit_records a` + auditWhere
	auditByIDsSQL = `SELECT ` + auditColumns + ` FROM audit_records a
WHERE a.tenant_id = $1 AND a.id = ANY($2::uuid[]) AND ` + auditVisible34

	// A non-admin sees the records of the items it may see (records of
	// items purged since are admins' only).
	auditVisible78 = `($8::text[] IS NULL OR EXISTS (SELECT 1 FROM items i WHERE i.tenant_id = a.tenant_id AND i.id = a.item_id
    AND ` + visibleSQL("i", 7, 8) + `))`
	auditVisible34 = `($4::text[] IS NULL OR EXISTS (SELECT 1 FROM items i WHERE i.tenant_id = a.tenant_id AND i.id = a.item_id
    AND ` + visibleSQL("i", 3, 4) + `))`
)

// SearchAudit returns one page of the tenant's audit records the principal
// may see, newest first, and how many match in all. Returns EINVALID for bad
// paging.
func (s *Store) SearchAudit(ctx context.Context, p *loupe.Principal, q AuditQuery) ([]*AuditRecord, int, error) {
	if err := q.Validate(); err != nil {
		return nil, 0, err
	}
	// An id that cannot exist matches nothing.
	if (q.ItemID != "" && !loupe.ValidID(q.ItemID)) || (q.ExecutedBy != "" && !loupe.ValidID(q.ExecutedBy)) {
		return []*AuditRecord{}, 0, nil
	}
	args := []any{p.TenantID, nullString(q.ItemID), nullString(string(q.ActionType)), nullString(q.ExecutedBy),
		q.Since, q.Until, p.UserID, aclTokens(p)}
	var total int
	if err := s.getPrepared(ctx, &total, countAuditSQL, args...); err != nil {
		return nil, 0, fmt.Errorf("store: unable to count audit records: %w", err)
	}
	hits := []*AuditRecord{}
	if total > q.From {
		if err := s.selectPrepared(ctx, &hits, searchAuditSQL, append(args, q.From, q.Size)...); err != nil {
			return nil, 0, fmt.Errorf("store: unable to search audit records: %w", err)
		}
	}
	return hits, total, nil
}

// AuditRecordsByIDs returns the records among ids the principal may see,
// keyed by id.
func (s *Store) AuditRecordsByIDs(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*AuditRecord, error) {
	out := map[string]*AuditRecord{}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var recs []*AuditRecord
	if err := s.selectPrepared(ctx, &recs, auditByIDsSQL, p.TenantID, stringArray(ids), p.UserID, aclTokens(p)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch audit records: %w", err)
	}
	for _, r := range recs {
		out[r.ID] = r
	}
	return out, nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
