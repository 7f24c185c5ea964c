package store

import (
	"github.com/loupe-mam/loupe"

	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// This file holds metadata definition forms (MDFs, spec 2.22): what fields
// an item's form data may carry and what values they take. Everyone reads
// forms; admins write them, each write audited (definition_changes.go).
// Definitions as clients write them are checked in mdf_definition.go, form
// data against its form in mdf_validate.go, readable form data is made in
// mdf_readable.go. Decisions where the spec is open are in
// docs/metadata-forms.md.

// Limits on forms.
const (
	// MaxMdfs bounds a tenant's forms, so that the list needs no paging.
	MaxMdfs = 500
	// MaxMdfFields bounds the fields of one form.
	MaxMdfFields = 500
	// MaxRetiredFields bounds the removed fields a form remembers; the
	// oldest are forgotten first.
	MaxRetiredFields = 500
	// MaxMdfText bounds labels, display names and icons, in characters.
	MaxMdfText = 256
	// MaxMdfRule bounds a form's rule template, in characters.
	MaxMdfRule = 1024
	// MaxUsageRules bounds a form's usage rules.
	MaxUsageRules = 100
)

// Messages of the spec (section 7) and ours for form writes.
const (
	MsgDeleteDefaultForm = "Cannot delete default form"
	msgDefinitionsAdmin  = "Only administrators may change metadata forms and option lists."
)

// systemFields are the fields every form has: the item's title and
// description. They are always text; a form written without them gets them.
var systemFields = []*MdfField{
	{ID: "default_title", FieldID: "title", Label: "Title", Type: FieldText, Sortable: true, SystemDefaultField: true},
	{ID: "default_description", FieldID: "description", Label: "Description", Type: FieldText, SystemDefaultField: true},
}

func isSystemField(id string) bool { return id == "default_title" || id == "default_description" }

var (
	// fieldIDRE is what a field's id and fieldId may be: they are keys of
	// form data and placeholders of rules.
	fieldIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	colorRE   = regexp.MustCompile(`^#[0-9A-Fa-f]{8}$`)
	// rulePlaceholderRE finds the {fieldId} placeholders of a rule.
	rulePlaceholderRE = regexp.MustCompile(`\{([^{}]*)\}`)
)

// Flavors of a form (spec 2.22); a form without one describes items.
const (
	FlavorTechnicalData = "technical_data"
	FlavorTimedMetadata = "timed-metadata"
)

// MdfFieldType is the kind of value a form field takes.
type MdfFieldType string

const (
	FieldText           MdfFieldType = "text"
	FieldDate           MdfFieldType = "date"
	FieldChoice         MdfFieldType = "choice"
	FieldCheckbox       MdfFieldType = "checkbox"
	FieldNumber         MdfFieldType = "number"
	FieldMultipleChoice MdfFieldType = "multiplechoice"
	FieldLink           MdfFieldType = "link"
	FieldUser           MdfFieldType = "user"
)

// MdfFieldTypes are the field types Loupe knows.
var MdfFieldTypes = []MdfFieldType{FieldText, FieldDate, FieldChoice, FieldCheckbox, FieldNumber,
	FieldMultipleChoice, FieldLink, FieldUser}

func (e MdfFieldType) MarshalGQL(w io.Writer) { loupe.MarshalEnum(w, string(e)) }
func (e *MdfFieldType) UnmarshalGQL(v any) (err error) {
	*e, err = loupe.UnmarshalEnum(v, "field type", MdfFieldTypes...)
	return err
}

// hasAlternatives reports whether fields of the type choose among alternatives.
func (e MdfFieldType) hasAlternatives() bool { return e == FieldChoice || e == FieldMultipleChoice }

// Alternative is a value a choice field offers, with the label people see.
type Alternative struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// MdfField is a field of a form. Form data carries its value under ID.
type MdfField struct {
	ID                 string        `json:"id"`
	FieldID            string        `json:"fieldId"`
	Label              string        `json:"label"`
	Type               MdfFieldType  `json:"type"`
	Required           bool          `json:"required"`
	ReadOnly           bool          `json:"readOnly"`
	Sortable           bool          `json:"sortable"`
	SystemDefaultField bool          `json:"systemDefaultField"`
	DefaultValue       loupe.JSON    `json:"defaultValue,omitempty"`
	Alternatives       []Alternative `json:"alternatives,omitempty"`
	// OptionListID names the option list the alternatives come from; the
	// stored field then carries none of its own.
	OptionListID *string `json:"optionListId,omitempty"`
}

// Mdf is a metadata definition form (spec 2.22).
type Mdf struct {
	TenantID     string     `db:"tenant_id"`
	ID           string     `db:"id"`
	Label        string     `db:"label"`
	DisplayName  string     `db:"display_name"`
	Active       bool       `db:"active"`
	Flavor       *string    `db:"flavor"`
	Color        *string    `db:"color"`
	Icon         *string    `db:"icon"`
	Rule         *string    `db:"rule"`
	FieldsDoc    loupe.JSON `db:"fields"`
	RetiredDoc   loupe.JSON `db:"retired_fields"`
	Views        loupe.JSON `db:"views"`
	ViewSections loupe.JSON `db:"view_sections"`
	Permissions  loupe.JSON `db:"permissions"`
	UsageRules   loupe.JSON `db:"usage_rules"`
	IsDefault    bool       `db:"is_default"`
	CreatedOn    time.Time  `db:"created_on"`
	ModifiedOn   time.Time  `db:"modified_on"`
	// OptionAlternatives holds the alternatives of the option lists the
	// fields name, keyed by list id, as read with the form.
	OptionAlternatives loupe.JSON `db:"option_alternatives"`

	fields  []*MdfField
	retired []*MdfField
}

// Fields are the form's fields, alternatives from option lists filled in.
func (m *Mdf) Fields() []*MdfField { return m.fields }

// RetiredFields are fields an update removed, as last defined: item values
// of them are kept and read under these labels.
func (m *Mdf) RetiredFields() []*MdfField { return m.retired }

// field returns the field whose values data keys by id, or nil.
func (m *Mdf) field(id string) *MdfField {
	for _, f := range m.fields {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// labelOf returns the field or retired field of id, or nil.
func (m *Mdf) labelOf(id string) *MdfField {
	if f := m.field(id); f != nil {
		return f
	}
	for _, f := range m.retired {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// decode fills fields and retired fields from the columns read.
func (m *Mdf) decode() error {
	m.fields, m.retired = []*MdfField{}, []*MdfField{}
	if err := jsonUnmarshal(m.FieldsDoc, &m.fields); err != nil {
		return fmt.Errorf("store: form %s: %w", m.ID, err)
	}
	if !m.RetiredDoc.IsNull() {
		if err := jsonUnmarshal(m.RetiredDoc, &m.retired); err != nil {
			return fmt.Errorf("store: form %s: %w", m.ID, err)
		}
	}
	lists := map[string][]Alternative{}
	if !m.OptionAlternatives.IsNull() {
		if err := jsonUnmarshal(m.OptionAlternatives, &lists); err != nil {
			return fmt.Errorf("store: form %s: %w", m.ID, err)
		}
	}
	for _, f := range m.fields {
		if f.OptionListID != nil {
			f.Alternatives = lists[*f.OptionListID]
			if f.Alternatives == nil {
				f.Alternatives = []Alternative{}
			}
		}
	}
	return nil
}

func decodeMdfs(ms ...*Mdf) error {
	for _, m := range ms {
		if err := m.decode(); err != nil {
			return err
		}
	}
	return nil
}

// storedFields is the fields column of a form: fields that name an option
// list do not keep its alternatives.
func storedFields(fields []*MdfField) loupe.JSON {
	out := make([]MdfField, len(fields))
	for i, f := range fields {
		out[i] = *f
		if f.OptionListID != nil {
			out[i].Alternatives = nil
		}
	}
	return loupe.JSONOf(out)
}

// record is the form as its audit records keep it.
func (m *Mdf) record() map[string]any {
	return map[string]any{
		"id": m.ID, "label": m.Label, "displayName": m.DisplayName, "active": m.Active, "flavor": m.Flavor,
		"color": m.Color, "icon": m.Icon, "rule": m.Rule, "fields": json.RawMessage(storedFields(m.fields)),
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
func (s *Store) Mdfs(ctx context.Context, tenantID string) ([]*Mdf, error) {
	out := []*Mdf{}
	if err := s.selectPrepared(ctx, &out, mdfsSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list forms: %w", err)
	}
	return out, decodeMdfs(out...)
}

// Mdf returns one form of the tenant. Returns ENOTFOUND when the tenant has
// none of that id.
func (s *Store) Mdf(ctx context.Context, tenantID, id string) (*Mdf, error) {
	if !formIDRE.MatchString(id) {
		return nil, loupe.NotFound()
	}
	var m Mdf
	if err := s.getPrepared(ctx, &m, mdfByIDSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch form %s: %w", id)
	}
	return &m, m.decode()
}

// MdfsByIDs returns the forms among ids of the principal's tenant, keyed by
// id, in one statement (the form loader's fetch).
func (s *Store) MdfsByIDs(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*Mdf, error) {
	return mdfsByIDs(ctx, s.prepQueryer(), mdfsByIDsSQL, p.TenantID, ids)
}

// formsTx reads the forms a metadata write uses, locked against deletion.
func formsTx(ctx context.Context, tx *sqlx.Tx, tenantID string, ids ...string) (map[string]*Mdf, error) {
	return mdfsByIDs(ctx, tx, formsForWriteSQL, tenantID, ids)
}

func mdfsByIDs(ctx context.Context, q selecter, query, tenantID string, ids []string) (map[string]*Mdf, error) {
	out := make(map[string]*Mdf, len(ids))
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if formIDRE.MatchString(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return out, nil
	}
	var ms []*Mdf
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

// prepQueryer runs selects as prepared statements.
func (s *Store) prepQueryer() selecter { return preparedSelecter{s} }

type preparedSelecter struct{ s *Store }

func (p preparedSelecter) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	return p.s.selectPrepared(ctx, dest, query, args...)
}

// definitionsAdmin refuses form and option list writes of non-admins.
func definitionsAdmin(p *loupe.Principal) error {
	if !p.IsAdmin {
		return loupe.Forbidden(msgDefinitionsAdmin)
	}
	return nil
}

// CreateMdf stores a new form and its audit record. Without an id the form
// gets a UUIDv7. Returns EFORBIDDEN for non-admins, EINVALID for a bad
// definition or when the tenant has MaxMdfs forms, ECONFLICT for an id in use.
func (s *Store) CreateMdf(ctx context.Context, p *loupe.Principal, in *MdfInput) (*Mdf, error) {
	if err := definitionsAdmin(p); err != nil {
		return nil, err
	}
	id := loupe.NewID()
	if in.ID != nil && strings.TrimSpace(*in.ID) != "" {
		id = strings.TrimSpace(*in.ID)
		if !formIDRE.MatchString(id) {
			return nil, loupe.Invalid("id: invalid %q: 1 to 128 letters, digits, _ and -", id)
		}
	}
	var m *Mdf
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
			m.Flavor, m.Color, m.Icon, m.Rule, storedFields(m.fields), loupe.JSONOf(m.retired), m.Views,
			m.ViewSections, m.Permissions, m.UsageRules, at)
		if err != nil {
			return fmt.Errorf("store: unable to create form: %w", err)
		}
		if oneRow(res) != nil {
			return loupe.Errorf(loupe.ECONFLICT, "A form with id %q already exists", m.ID)
		}
		return definitionChangeTx(ctx, tx, p, SubjectMdf, m.ID, ActionDefinitionCreate, at, nil, m.record())
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// UpdateMdf overwrites a form with a full definition and records the
// change. Items are not touched: values of removed fields stay in their
// form data (the form keeps the fields as retired), values that no longer
// fit a changed field are kept until written again.
// Returns EFORBIDDEN for non-admins, ENOTFOUND for an unknown form,
// EINVALID for a bad definition or no id.
func (s *Store) UpdateMdf(ctx context.Context, p *loupe.Principal, in *MdfInput) (*Mdf, error) {
	if err := definitionsAdmin(p); err != nil {
		return nil, err
	}
	if in.ID == nil {
		return nil, loupe.Invalid("id is required: the form to overwrite")
	}
	if !formIDRE.MatchString(*in.ID) {
		return nil, loupe.NotFound()
	}
	if in.Fields == nil {
		// An overwrite without fields would retire every field: far more
		// likely a client's mistake than the intent.
		return nil, loupe.Invalid("fields is required (the full list of the form's fields)")
	}
	var m *Mdf
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var old Mdf
		if err := tx.GetContext(ctx, &old, lockMdfSQL, p.TenantID, *in.ID); err != nil {
			return notFoundOr(err, "store: unable to lock form %s: %w", *in.ID)
		}
		if err := old.decode(); err != nil {
			return err
		}
		var err error
		if m, err = buildMdfTx(ctx, tx, p.TenantID, old.ID, in, &old); err != nil {
			return err
		}
		at := now()
		m.ModifiedOn = at
		if _, err := tx.ExecContext(ctx, updateMdfSQL, p.TenantID, m.ID, m.Label, m.DisplayName, m.Active,
			m.Flavor, m.Color, m.Icon, m.Rule, storedFields(m.fields), loupe.JSONOf(m.retired), m.Views,
			m.ViewSections, m.Permissions, m.UsageRules, at); err != nil {
			return fmt.Errorf("store: unable to update form %s: %w", m.ID, err)
		}
		return definitionChangeTx(ctx, tx, p, SubjectMdf, m.ID, ActionDefinitionUpdate, at, old.record(), m.record())
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// buildMdfTx builds the form an input describes, with the option lists it
// names read (and locked against deletion) and the users its defaults name
// checked.
func buildMdfTx(ctx context.Context, tx *sqlx.Tx, tenantID, id string, in *MdfInput, old *Mdf) (*Mdf, error) {
	lists, err := optionListsTx(ctx, tx, tenantID, in.optionListIDs())
	if err != nil {
		return nil, err
	}
	m, err := in.build(id, old, lists)
	if err != nil {
		return nil, err
	}
	var users []string
	for _, f := range m.fields {
		if f.Type == FieldUser && !f.DefaultValue.IsNull() {
			var u string
			_ = json.Unmarshal(f.DefaultValue, &u) // checkValue saw a string
			users = append(users, u)
		}
	}
	known, err := knownUsersTx(ctx, tx, tenantID, users)
	if err != nil {
		return nil, err
	}
	// The input's fields are the last of the form's (system fields it
	// lacked come first), so messages can name them as the client did.
	given := m.fields[len(m.fields)-len(in.Fields):]
	for i, f := range given {
		if f.Type == FieldUser && !f.DefaultValue.IsNull() {
			if exp := f.checkValue(json.RawMessage(f.DefaultValue), known); exp != "" {
				return nil, loupe.Invalid("fields[%d].defaultValue: %s", i, exp)
			}
		}
	}
	return m, nil
}

// DeleteMdf deletes a form no item, folder or timed metadata entry uses,
// and records it. Returns EFORBIDDEN for non-admins, ENOTFOUND for an
// unknown form, EINVALID for a default form (the spec's message), ECONFLICT
// while the form is in use.
func (s *Store) DeleteMdf(ctx context.Context, p *loupe.Principal, id string) error {
	if err := definitionsAdmin(p); err != nil {
		return err
	}
	if !formIDRE.MatchString(id) {
		return loupe.NotFound()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		// The row lock waits for metadata writes that read the form (FOR
		// KEY SHARE), so the check below sees their items.
		var isDefault bool
		if err := tx.GetContext(ctx, &isDefault, lockDeleteSQL, p.TenantID, id); err != nil {
			return notFoundOr(err, "store: unable to lock form %s: %w", id)
		}
		if isDefault {
			return loupe.Invalid(MsgDeleteDefaultForm)
		}
		var old Mdf
		if err := tx.GetContext(ctx, &old, mdfByIDSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to read form %s: %w", id, err)
		}
		if err := old.decode(); err != nil {
			return err
		}
		var inUse bool
		if err := tx.GetContext(ctx, &inUse, mdfInUseSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to check use of form %s: %w", id, err)
		}
		if inUse {
			return loupe.Errorf(loupe.ECONFLICT, "Form %q is used by items or timed metadata and cannot be deleted: move them to another form first", id)
		}
		if _, err := tx.ExecContext(ctx, deleteMdfSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to delete form %s: %w", id, err)
		}
		return definitionChangeTx(ctx, tx, p, SubjectMdf, id, ActionDefinitionDelete, now(), old.record(), nil)
	})
}

// createDefaultMdfsTx gives a new tenant the default forms.
func createDefaultMdfsTx(ctx context.Context, tx *sqlx.Tx, tenantID string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, defaultMdfsSQL, tenantID, at); err != nil {
		return fmt.Errorf("store: unable to create default forms: %w", err)
	}
	return nil
}
