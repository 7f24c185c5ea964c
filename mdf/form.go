// Package mdf holds the rules of metadata definition forms (MDFs, spec
// 2.22): what a form is, how a definition a client writes becomes a form
// (definition.go), whether form data fits its form (values.go, write.go)
// and form data as people read it (readable.go). It knows no database: the
// store reads forms, option lists and users and hands them in, so that every
// rule can be tested without one. Decisions where the spec is open are in
// docs/metadata-forms.md.
package mdf

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/loupe-mam/loupe"
)

// Limits on forms.
const (
	// MaxFields bounds the fields of one form.
	MaxFields = 500
	// MaxRetiredFields bounds the removed fields a form remembers; the
	// oldest are forgotten first.
	MaxRetiredFields = 500
	// MaxText bounds labels, display names and icons (and option list
	// names), in characters.
	MaxText = 256
	// MaxRule bounds a form's rule template, in characters.
	MaxRule = 1024
	// MaxUsageRules bounds a form's usage rules.
	MaxUsageRules = 100
	// MaxAlternatives bounds the alternatives of a field or an option list.
	MaxAlternatives = 5000
	// MaxAlternativeText bounds an alternative's value and label, in characters.
	MaxAlternativeText = 1024
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

// Mdf is a metadata definition form (spec 2.22). The db tags are the
// columns the store reads a form from (it scans into this type); the
// documents among them are decoded by Decode.
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

// Decode fills the fields and retired fields from the documents read
// (FieldsDoc, RetiredDoc, OptionAlternatives): a form read from storage is
// decoded once before use.
func (m *Mdf) Decode() error {
	m.fields, m.retired = []*MdfField{}, []*MdfField{}
	if err := decodeDoc(m.FieldsDoc, &m.fields); err != nil {
		return fmt.Errorf("form %s: %w", m.ID, err)
	}
	if !m.RetiredDoc.IsNull() {
		if err := decodeDoc(m.RetiredDoc, &m.retired); err != nil {
			return fmt.Errorf("form %s: %w", m.ID, err)
		}
	}
	lists := map[string][]Alternative{}
	if !m.OptionAlternatives.IsNull() {
		if err := decodeDoc(m.OptionAlternatives, &lists); err != nil {
			return fmt.Errorf("form %s: %w", m.ID, err)
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

// decodeDoc decodes a document the store wrote itself.
func decodeDoc(j loupe.JSON, v any) error {
	if err := json.Unmarshal(j, v); err != nil {
		return fmt.Errorf("unreadable document: %w", err)
	}
	return nil
}

// StoredFields is the form's fields as they are stored: fields that name an
// option list do not keep its alternatives (Decode fills in the list's
// current ones).
func (m *Mdf) StoredFields() loupe.JSON {
	out := make([]MdfField, len(m.fields))
	for i, f := range m.fields {
		out[i] = *f
		if f.OptionListID != nil {
			out[i].Alternatives = nil
		}
	}
	return loupe.JSONOf(out)
}
