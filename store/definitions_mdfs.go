package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/mdf"
)

// This file holds the SQL of metadata definition forms (MDFs, spec 2.22):
// what fields an item's form data may carry and what values they take.
// Everyone reads forms; admins write them (the resolvers check that), each
// write audited (definitions_changes.go). The rules of forms (definitions,
// values, readable form data) are package mdf's; form data is checked on
// metadata writes in definitions_form_data.go. Decisions where the spec is open are in
// docs/metadata-forms.md.

// MaxMdfs bounds a tenant's forms, so that the list needs no paging.
const MaxMdfs = 500

// MsgDeleteDefaultForm is the spec's answer to the delete of a default
// form (section 7).
const MsgDeleteDefaultForm = "Cannot delete default form"

// decodeMdfs decodes the documents of forms read.
func decodeMdfs(ms ...*mdf.Mdf) error {
	for _, m := range ms {
		if err := m.Decode(); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	return nil
}

// mdfRecord is the form as its audit records keep it.
func mdfRecord(m *mdf.Mdf) map[string]any {
	return map[string]any{
		"id": m.ID, "label": m.Label, "displayName": m.DisplayName, "active": m.Active, "flavor": m.Flavor,
		"color": m.Color, "icon": m.Icon, "rule": m.Rule, "fields": json.RawMessage(m.StoredFields()),
		"views": m.Views, "viewSections": m.ViewSections, "permissions": m.Permissions, "usageRules": m.UsageRules,
		"modifiedOn": m.ModifiedOn,
	}
}

// SQL of forms. option_alternatives is read with every form, so that one
// statement answers a form with the alternatives of its option lists.
const (
	mdfColumns = `
m.tenant_id, m.id, m.label, m.display_name, m.active, m.flavor, m.color, m.icon, m.rule, m.fields,
m.retired_fields, m.views, m.view_sections, m.permissions, m.usage_rules, m.is_default, m.created_on,
m.modified_on,
(SELECT coalesce(jsonb_object_agg(o.id, o.alternatives), '{}') FROM option_lists o
 WHERE o.tenant_id = m.tenant_id
   AND o.id IN (SELECT (f->>'optionListId')::uuid FROM jsonb_array_elements(m.fields) f
                WHERE f ? 'optionListId')) AS option_alternatives`

	mdfsSQL       = `SELECT ` + mdfColumns + ` FROM mdfs m WHERE m.tenant_id = $1 ORDER BY m.id`
	mdfByIDSQL    = `SELECT ` + mdfColumns + ` FROM mdfs m WHERE m.tenant_id = $1 AND m.id = $2`
	mdfsByIDsSQL  = `SELECT ` + mdfColumns + ` FROM mdfs m WHERE m.tenant_id = $1 AND m.id = ANY($2::text[])`
	countMdfsSQL  = `SELECT count(*) FROM mdfs WHERE tenant_id = $1`
	lockMdfSQL    = mdfByIDSQL + ` FOR NO KEY UPDATE OF m`
	lockDeleteSQL = `SELECT is_default FROM mdfs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`

	// formsForWriteSQL reads the forms a metadata write uses. FOR KEY SHARE
	// (what a foreign key takes) lets form updates run alongside, but makes
	// a form's delete wait for the write and then see its item.
	formsForWriteSQL = mdfsByIDsSQL + ` FOR KEY SHARE OF m`

	insertMdfSQL = `
INSERT INTO mdfs (tenant_id, id, label, display_name, active, flavor, color, icon, rule, fields,
                  retired_fields, views, view_sections, permissions, usage_rules, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
ON CONFLICT (tenant_id, id) DO NOTHING`

	updateMdfSQL = `
UPDATE mdfs SET label = $3, display_name = $4, active = $5, flavor = $6, color = $7, icon = $8, rule = $9,
                fields = $10, retired_fields = $11, views = $12, view_sections = $13, permissions = $14,
                usage_rules = $15, modified_on = $16
WHERE tenant_id = $1 AND id = $2`

	deleteMdfSQL = `DELETE FROM mdfs WHERE tenant_id = $1 AND id = $2`

	// mdfInUseSQL answers whether an item (live or in the recycle bin) or a
	// timed metadata entry uses a form.
	mdfInUseSQL = `
SELECT EXISTS (SELECT 1 FROM items WHERE tenant_id = $1 AND metadata_form_id = $2)
    OR EXISTS (SELECT 1 FROM timed_metadata WHERE tenant_id = $1 AND form_id = $2)`

	// defaultMdfsSQL gives a new tenant the default forms (the procedure is
	// the migration's, so that existing and new tenants get the same).
	defaultMdfsSQL = `CALL loupe_default_mdfs($1, $2)`
)

// Mdfs returns the tenant's forms, by id.
func (s *Store) Mdfs(ctx context.Context, tenantID string) ([]*mdf.Mdf, error) {
	out := []*mdf.Mdf{}
	if err := s.selectPrepared(ctx, &out, mdfsSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list forms: %w", err)
	}
	return out, decodeMdfs(out...)
}

// Mdf returns one form of the tenant. Returns ENOTFOUND when the tenant has
// none of that id.
func (s *Store) Mdf(ctx context.Context, tenantID, id string) (*mdf.Mdf, error) {
	if !loupe.ValidFormID(id) {
		return nil, loupe.NotFound()
	}
	var m mdf.Mdf
	if err := s.getPrepared(ctx, &m, mdfByIDSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch form %s: %w", id)
	}
	return &m, decodeMdfs(&m)
}

// MdfsByIDs returns the forms among ids of the principal's tenant, keyed by
// id, in one statement (the form loader's fetch).
func (s *Store) MdfsByIDs(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*mdf.Mdf, error) {
	return mdfsByIDs(ctx, s.prepQueryer(), mdfsByIDsSQL, p.TenantID, ids)
}

// formsTx reads the forms a metadata write uses, locked against deletion.
func formsTx(ctx context.Context, tx selecter, tenantID string, ids ...string) (map[string]*mdf.Mdf, error) {
	return mdfsByIDs(ctx, tx, formsForWriteSQL, tenantID, ids)
}

func mdfsByIDs(ctx context.Context, q selecter, query, tenantID string, ids []string) (map[string]*mdf.Mdf, error) {
	out := make(map[string]*mdf.Mdf, len(ids))
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if loupe.ValidFormID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return out, nil
	}
	var ms []*mdf.Mdf
	if err := q.SelectContext(ctx, &ms, query, tenantID, stringArray(valid)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch forms: %w", err)
	}
	if err := decodeMdfs(ms...); err != nil {
		return nil, err
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// selecter is what SelectContext offers: a transaction, or prepared reads.
type selecter interface {
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// prepQueryer runs reads, and writes that answer rows, as prepared
// statements on the pool; other writes go as they are.
func (s *Store) prepQueryer() queryer { return preparedQueryer{s} }

type preparedQueryer struct{ s *Store }

func (p preparedQueryer) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return p.s.selectPrepared(ctx, dest, query, args...)
}

func (p preparedQueryer) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	return p.s.getPrepared(ctx, dest, query, args...)
}

func (p preparedQueryer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.s.db.ExecContext(ctx, query, args...)
}

// CreateMdf stores a new form and its audit record. Without an id the form
// gets a UUIDv7. Returns EINVALID for a bad
// definition or when the tenant has MaxMdfs forms, ECONFLICT for an id in use.
func (s *Store) CreateMdf(ctx context.Context, p *loupe.Principal, in *mdf.MdfInput) (*mdf.Mdf, error) {
	id := loupe.NewID()
	if in.ID != nil && strings.TrimSpace(*in.ID) != "" {
		id = strings.TrimSpace(*in.ID)
		if !loupe.ValidFormID(id) {
			return nil, loupe.Invalid("id: invalid %q: 1 to 128 letters, digits, _ and -", id)
		}
	}
	var m *mdf.Mdf
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, countMdfsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count forms: %w", err)
		}
		if n >= MaxMdfs {
			return loupe.Invalid("a tenant has at most %d forms", MaxMdfs)
		}
		var err error
		if m, err = buildMdfTx(ctx, tx, p.TenantID, id, in, nil); err != nil {
			return err
		}
		at := now()
		m.CreatedOn, m.ModifiedOn = at, at
		res, err := tx.ExecContext(ctx, insertMdfSQL, p.TenantID, m.ID, m.Label, m.DisplayName, m.Active,
			m.Flavor, m.Color, m.Icon, m.Rule, m.StoredFields(), loupe.JSONOf(m.RetiredFields()), m.Views,
			m.ViewSections, m.Permissions, m.UsageRules, at)
		if err != nil {
			return fmt.Errorf("store: unable to create form: %w", err)
		}
		if oneRow(res) != nil {
			return loupe.Errorf(loupe.ECONFLICT, "A form with id %q already exists", m.ID)
		}
		return definitionChangeTx(ctx, tx, p, SubjectMdf, m.ID, ActionDefinitionCreate, at, nil, mdfRecord(m))
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// UpdateMdf overwrites a form with a definition and records the change.
// Top-level keys the input left out (in.Written) keep their stored values. Items are not touched: values of removed fields stay in their
// form data (the form keeps the fields as retired), values that no longer
// fit a changed field are kept until written again.
// Returns ENOTFOUND for an unknown form, EINVALID for a bad definition or
// no id.
func (s *Store) UpdateMdf(ctx context.Context, p *loupe.Principal, in *mdf.MdfInput) (*mdf.Mdf, error) {
	if in.ID == nil {
		return nil, loupe.Invalid("id is required: the form to overwrite")
	}
	if !loupe.ValidFormID(*in.ID) {
		return nil, loupe.NotFound()
	}
	if in.Fields == nil && !in.LeftOut("fields") {
		// An overwrite with no fields would retire every field: far more
		// likely a client's mistake than the intent. (Left out, the stored
		// fields are kept.)
		return nil, loupe.Invalid("fields is required (the full list of the form's fields)")
	}
	var m *mdf.Mdf
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var old mdf.Mdf
		if err := tx.GetContext(ctx, &old, lockMdfSQL, p.TenantID, *in.ID); err != nil {
			return notFoundOr(err, "store: unable to lock form %s: %w", *in.ID)
		}
		if err := decodeMdfs(&old); err != nil {
			return err
		}
		in.KeepStored(&old)
		var err error
		if m, err = buildMdfTx(ctx, tx, p.TenantID, old.ID, in, &old); err != nil {
			return err
		}
		at := now()
		m.ModifiedOn = at
		if _, err := tx.ExecContext(ctx, updateMdfSQL, p.TenantID, m.ID, m.Label, m.DisplayName, m.Active,
			m.Flavor, m.Color, m.Icon, m.Rule, m.StoredFields(), loupe.JSONOf(m.RetiredFields()), m.Views,
			m.ViewSections, m.Permissions, m.UsageRules, at); err != nil {
			return fmt.Errorf("store: unable to update form %s: %w", m.ID, err)
		}
		return definitionChangeTx(ctx, tx, p, SubjectMdf, m.ID, ActionDefinitionUpdate, at, mdfRecord(&old), mdfRecord(m))
	})
	if err != nil {
		return nil, err
	}
	// Every node's creates check against the new form from now on.
	s.cacheChanged(ctx)
	return m, nil
}

// buildMdfTx builds the form an input describes, with the option lists it
// names read (and locked against deletion) and the users its defaults name
// checked.
func buildMdfTx(ctx context.Context, tx *sqlx.Tx, tenantID, id string, in *mdf.MdfInput, old *mdf.Mdf) (*mdf.Mdf, error) {
	lists, err := optionListsTx(ctx, tx, tenantID, in.OptionListIDs())
	if err != nil {
		return nil, err
	}
	m, err := in.Build(id, old, lists)
	if err != nil {
		return nil, err
	}
	var users []string
	for _, f := range m.Fields() {
		if f.Type == mdf.FieldUser && !f.DefaultValue.IsNull() {
			var u string
			_ = json.Unmarshal(f.DefaultValue, &u) // CheckValue saw a string
			users = append(users, u)
		}
	}
	known, err := knownUsersTx(ctx, tx, tenantID, users)
	if err != nil {
		return nil, err
	}
	// The input's fields are the last of the form's (system fields it
	// lacked come first), so messages can name them as the client did.
	fields := m.Fields()
	given := fields[len(fields)-len(in.Fields):]
	for i, f := range given {
		if f.Type == mdf.FieldUser && !f.DefaultValue.IsNull() {
			if exp := f.CheckValue(json.RawMessage(f.DefaultValue), known); exp != "" {
				return nil, loupe.Invalid("fields[%d].defaultValue: %s", i, exp)
			}
		}
	}
	return m, nil
}

// DeleteMdf deletes a form no item, folder or timed metadata entry uses,
// and records it. Returns ENOTFOUND for an unknown form, EINVALID for a
// default form (the spec's message), ECONFLICT while the form is in use.
func (s *Store) DeleteMdf(ctx context.Context, p *loupe.Principal, id string) error {
	if !loupe.ValidFormID(id) {
		return loupe.NotFound()
	}
	// No node's create uses the form once this returns (cacheChanged).
	return s.deleteUnusedDefinition(ctx, p, unusedDefinition{
		subject: SubjectMdf, changesCaches: true, deleteSQL: deleteMdfSQL,
		lock: func(tx *sqlx.Tx) (string, map[string]any, error) {
			var isDefault bool
			if err := tx.GetContext(ctx, &isDefault, lockDeleteSQL, p.TenantID, id); err != nil {
				return "", nil, notFoundOr(err, "store: unable to lock form %s: %w", id)
			}
			if isDefault {
				return "", nil, loupe.Invalid(MsgDeleteDefaultForm)
			}
			var old mdf.Mdf
			if err := tx.GetContext(ctx, &old, mdfByIDSQL, p.TenantID, id); err != nil {
				return "", nil, fmt.Errorf("store: unable to read form %s: %w", id, err)
			}
			if err := decodeMdfs(&old); err != nil {
				return "", nil, err
			}
			return id, mdfRecord(&old), nil
		},
		inUse: func(tx *sqlx.Tx, id string) error {
			var inUse bool
			if err := tx.GetContext(ctx, &inUse, mdfInUseSQL, p.TenantID, id); err != nil {
				return fmt.Errorf("store: unable to check use of form %s: %w", id, err)
			}
			if inUse {
				return loupe.Errorf(loupe.ECONFLICT, "Form %q is used by items or timed metadata and cannot be deleted: move them to another form first", id)
			}
			return nil
		},
	})
}

// createDefaultMdfsTx gives a new tenant the default forms.
func createDefaultMdfsTx(ctx context.Context, tx *sqlx.Tx, tenantID string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, defaultMdfsSQL, tenantID, at); err != nil {
		return fmt.Errorf("store: unable to create default forms: %w", err)
	}
	return nil
}
