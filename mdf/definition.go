package mdf

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
)

// This file checks a form definition as a client writes it and builds the
// form it describes (the store's create and overwrite).

// MdfInput is a form as a client writes it (create, or overwrite by id).
type MdfInput struct {
	ID           *string          `json:"id"`
	Label        *string          `json:"label"`
	DisplayName  *string          `json:"displayName"`
	Active       *bool            `json:"active"`
	Flavor       *string          `json:"flavor"`
	Color        *string          `json:"color"`
	Icon         *string          `json:"icon"`
	Rule         *string          `json:"rule"`
	Fields       []*MdfFieldInput `json:"fields"`
	Views        loupe.JSON       `json:"views"`
	ViewSections loupe.JSON       `json:"viewSections"`
	Permissions  loupe.JSON       `json:"permissions"`
	UsageRules   loupe.JSON       `json:"usageRules"`

	// Written names the top-level keys the client wrote, when that is
	// known (nil: every key counts as written). An overwrite keeps the
	// stored value of a key left out (KeepStored); a key written as null
	// takes its default, as on create.
	Written map[string]bool `json:"-"`
}

// LeftOut reports whether the client left key out of the input (never,
// when Written is not known).
func (in *MdfInput) LeftOut(key string) bool { return in.Written != nil && !in.Written[key] }

// KeepStored fills the top-level keys the client left out of an overwrite
// with the values of old, the form it overwrites, so that a partial body
// (clients of the original service send just the fields) changes only what
// it names. What is kept is checked again with what is given, as if the
// client had written it (a kept rule must still name a field).
func (in *MdfInput) KeepStored(old *Mdf) {
	if in.LeftOut("label") {
		in.Label = ptr(old.Label)
	}
	if in.LeftOut("displayName") {
		in.DisplayName = ptr(old.DisplayName)
	}
	if in.LeftOut("active") {
		in.Active = ptr(old.Active)
	}
	if in.LeftOut("flavor") {
		in.Flavor = clonePtr(old.Flavor)
	}
	if in.LeftOut("color") {
		in.Color = clonePtr(old.Color)
	}
	if in.LeftOut("icon") {
		in.Icon = clonePtr(old.Icon)
	}
	if in.LeftOut("rule") {
		in.Rule = clonePtr(old.Rule)
	}
	if in.LeftOut("fields") {
		in.Fields = fieldInputs(old.fields)
	}
	if in.LeftOut("views") {
		in.Views = old.Views
	}
	if in.LeftOut("viewSections") {
		in.ViewSections = old.ViewSections
	}
	if in.LeftOut("permissions") {
		in.Permissions = old.Permissions
	}
	if in.LeftOut("usageRules") {
		in.UsageRules = old.UsageRules
	}
}

// fieldInputs are fields as a client would write them back: a field that
// names an option list names it again (and takes its current alternatives).
func fieldInputs(fields []*MdfField) []*MdfFieldInput {
	out := make([]*MdfFieldInput, len(fields))
	for i, f := range fields {
		fi := &MdfFieldInput{
			ID: ptr(f.ID), FieldID: ptr(f.FieldID), Label: ptr(f.Label), Type: ptr(f.Type),
			Required: ptr(f.Required), ReadOnly: ptr(f.ReadOnly), Sortable: ptr(f.Sortable),
			DefaultValue: f.DefaultValue,
		}
		switch {
		case f.OptionListID != nil:
			fi.OptionListID = ptr(*f.OptionListID)
		case f.Alternatives != nil:
			fi.Alternatives = make([]*AlternativeInput, len(f.Alternatives))
			for j, a := range f.Alternatives {
				fi.Alternatives[j] = &AlternativeInput{Value: a.Value, Label: ptr(a.Label)}
			}
		}
		out[i] = fi
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptr(*p)
}

// MdfFieldInput is a field as a client writes it.
type MdfFieldInput struct {
	ID       *string       `json:"id"`
	FieldID  *string       `json:"fieldId"`
	Label    *string       `json:"label"`
	Type     *MdfFieldType `json:"type"`
	Required *bool         `json:"required"`
	ReadOnly *bool         `json:"readOnly"`
	Sortable *bool         `json:"sortable"`
	// SystemDefaultField is the server's to say; accepted so that a form
	// read can be written back.
	SystemDefaultField *bool               `json:"systemDefaultField"`
	DefaultValue       loupe.JSON          `json:"defaultValue"`
	Alternatives       []*AlternativeInput `json:"alternatives"`
	OptionListID       *string             `json:"optionListId"`
}

// AlternativeInput is an alternative as written; the label defaults to the value.
type AlternativeInput struct {
	Value string  `json:"value"`
	Label *string `json:"label"`
}

// OptionListIDs are the option lists the input's fields name, in lower
// case: the store reads them for Build.
func (in *MdfInput) OptionListIDs() []string {
	var ids []string
	for _, f := range in.Fields {
		if f != nil && f.OptionListID != nil && *f.OptionListID != "" {
			ids = append(ids, strings.ToLower(*f.OptionListID))
		}
	}
	return ids
}

// Build checks the input and makes the form it describes, with id. old is
// the form it overwrites (nil on create): fields given without an id keep
// the id of the old field with their fieldId, and fields no longer given are
// retired. lists holds the alternatives of the option lists the fields name
// (those missing from it do not exist). Returns EINVALID naming the field.
// User ids among default values are checked for their form only: whether
// they are users of the tenant is the caller's to check (CheckValue).
func (in *MdfInput) Build(id string, old *Mdf, lists map[string][]Alternative) (*Mdf, error) {
	m := &Mdf{ID: id, Active: true}
	if in.Label == nil {
		return nil, loupe.Invalid("label is required")
	}
	m.Label = strings.TrimSpace(*in.Label)
	if err := loupe.RequiredText("label", m.Label, MaxText); err != nil {
		return nil, err
	}
	m.DisplayName = m.Label
	if in.DisplayName != nil && strings.TrimSpace(*in.DisplayName) != "" {
		m.DisplayName = strings.TrimSpace(*in.DisplayName)
		if err := loupe.RequiredText("displayName", m.DisplayName, MaxText); err != nil {
			return nil, err
		}
	}
	if in.Active != nil {
		m.Active = *in.Active
	}
	var err error
	if m.Flavor, err = optionalText("flavor", in.Flavor, MaxText); err != nil {
		return nil, err
	}
	if m.Flavor != nil && *m.Flavor != FlavorTechnicalData && *m.Flavor != FlavorTimedMetadata {
		return nil, loupe.Invalid("flavor: expected %s or %s, got %q", FlavorTechnicalData, FlavorTimedMetadata, *m.Flavor)
	}
	if m.Color, err = optionalText("color", in.Color, MaxText); err != nil {
		return nil, err
	}
	if m.Color != nil && !colorRE.MatchString(*m.Color) {
		return nil, loupe.Invalid("color: expected #RRGGBBAA (8 hex digits), got %q", *m.Color)
	}
	if m.Icon, err = optionalText("icon", in.Icon, MaxText); err != nil {
		return nil, err
	}
	if m.fields, err = buildFields(in.Fields, old, lists); err != nil {
		return nil, err
	}
	if m.Rule, err = optionalText("rule", in.Rule, MaxRule); err != nil {
		return nil, err
	}
	if m.Rule != nil {
		if err := checkRule(*m.Rule, m.fields); err != nil {
			return nil, err
		}
	}
	if m.Views, err = objectOr("views", in.Views); err != nil {
		return nil, err
	}
	if m.ViewSections, err = objectOr("viewSections", in.ViewSections); err != nil {
		return nil, err
	}
	if m.Permissions, err = permissions(in.Permissions); err != nil {
		return nil, err
	}
	if m.UsageRules, err = usageRules(in.UsageRules); err != nil {
		return nil, err
	}
	m.retired = []*MdfField{}
	if old != nil {
		m.IsDefault, m.CreatedOn = old.IsDefault, old.CreatedOn
		if m.IsDefault && !m.Active {
			return nil, loupe.Invalid("active: default form %q cannot be made inactive", id)
		}
		m.retired = retire(old, m.fields)
	}
	return m, nil
}

// optionalText is a trimmed string value; empty or absent is no value.
func optionalText(field string, v *string, max int) (*string, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil, nil
	}
	s := strings.TrimSpace(*v)
	if utf8.RuneCountInString(s) > max {
		return nil, loupe.Invalid("%s: at most %d characters", field, max)
	}
	return &s, nil
}

// buildFields checks the fields of a form input and adds the system fields
// it lacks (at the front, where default forms have them).
func buildFields(in []*MdfFieldInput, old *Mdf, lists map[string][]Alternative) ([]*MdfField, error) {
	if len(in) > MaxFields {
		return nil, loupe.Invalid("fields: at most %d fields", MaxFields)
	}
	fields := make([]*MdfField, 0, len(in)+len(systemFields))
	ids, fieldIDs := map[string]bool{}, map[string]bool{}
	for i, fi := range in {
		at := fmt.Sprintf("fields[%d]", i)
		f, err := buildField(at, fi, old, lists)
		if err != nil {
			return nil, err
		}
		if ids[f.ID] {
			return nil, loupe.Invalid("%s.id: %q is given twice", at, f.ID)
		}
		if fieldIDs[f.FieldID] {
			return nil, loupe.Invalid("%s.fieldId: %q is given twice", at, f.FieldID)
		}
		ids[f.ID], fieldIDs[f.FieldID] = true, true
		fields = append(fields, f)
	}
	var missing []*MdfField
	for _, sf := range systemFields {
		if ids[sf.ID] {
			continue
		}
		if fieldIDs[sf.FieldID] {
			return nil, loupe.Invalid("fields: fieldId %q belongs to the system field %q", sf.FieldID, sf.ID)
		}
		f := *sf
		missing = append(missing, &f)
	}
	return append(missing, fields...), nil
}

// buildField checks one field of a form input.
func buildField(at string, fi *MdfFieldInput, old *Mdf, lists map[string][]Alternative) (*MdfField, error) {
	if fi == nil {
		return nil, loupe.Invalid("%s must be an object", at)
	}
	f := &MdfField{}
	switch {
	case fi.FieldID != nil && strings.TrimSpace(*fi.FieldID) != "":
		f.FieldID = strings.TrimSpace(*fi.FieldID)
	case fi.ID != nil && strings.TrimSpace(*fi.ID) != "":
		f.FieldID = strings.TrimSpace(*fi.ID)
	default:
		return nil, loupe.Invalid("%s.fieldId is required", at)
	}
	if !fieldIDRE.MatchString(f.FieldID) {
		return nil, loupe.Invalid("%s.fieldId: invalid %q: 1 to 128 letters, digits, _ and -", at, f.FieldID)
	}
	if fi.ID != nil && strings.TrimSpace(*fi.ID) != "" {
		f.ID = strings.TrimSpace(*fi.ID)
	} else {
		f.ID = defaultFieldID(f.FieldID, old)
	}
	if !fieldIDRE.MatchString(f.ID) {
		return nil, loupe.Invalid("%s.id: invalid %q: 1 to 128 letters, digits, _ and -", at, f.ID)
	}
	f.Label = f.FieldID
	if fi.Label != nil && strings.TrimSpace(*fi.Label) != "" {
		f.Label = strings.TrimSpace(*fi.Label)
		if err := loupe.RequiredText(at+".label", f.Label, MaxText); err != nil {
			return nil, err
		}
	}
	if fi.Type == nil {
		return nil, loupe.Invalid("%s.type is required", at)
	}
	if err := f.Type.UnmarshalGQL(string(*fi.Type)); err != nil {
		return nil, loupe.Invalid("%s.type: %q is not one of %s", at, *fi.Type, joinTypes())
	}
	f.Required, f.ReadOnly, f.Sortable = isTrue(fi.Required), isTrue(fi.ReadOnly), isTrue(fi.Sortable)
	f.SystemDefaultField = isSystemField(f.ID)
	if f.SystemDefaultField && f.Type != FieldText {
		return nil, loupe.Invalid("%s.type: %q is a system field and always text", at, f.ID)
	}
	hasList := fi.OptionListID != nil && *fi.OptionListID != ""
	switch {
	case !f.Type.hasAlternatives():
		if hasList || len(fi.Alternatives) > 0 {
			return nil, loupe.Invalid("%s: only choice and multiplechoice fields take alternatives", at)
		}
	case hasList:
		id := strings.ToLower(*fi.OptionListID)
		alts, ok := lists[id]
		if !ok {
			return nil, loupe.Invalid("%s.optionListId: option list %s does not exist", at, *fi.OptionListID)
		}
		f.OptionListID, f.Alternatives = &id, alts
	default:
		if len(fi.Alternatives) == 0 {
			return nil, loupe.Invalid("%s: a %s field needs alternatives or an optionListId", at, f.Type)
		}
		alts, err := BuildAlternatives(at+".alternatives", fi.Alternatives)
		if err != nil {
			return nil, err
		}
		f.Alternatives = alts
	}
	if !fi.DefaultValue.IsNull() {
		// User ids are checked against the tenant's users by the caller.
		if exp := f.CheckValue(json.RawMessage(fi.DefaultValue), nil); exp != "" {
			return nil, loupe.Invalid("%s.defaultValue: %s", at, exp)
		}
		f.DefaultValue = compactJSON(fi.DefaultValue)
	}
	return f, nil
}

// defaultFieldID is the id of a field given without one: the id of the
// field of the form it overwrites with the same fieldId, the system field's
// id for title and description, else the fieldId.
func defaultFieldID(fieldID string, old *Mdf) string {
	if old != nil {
		for _, f := range old.fields {
			if f.FieldID == fieldID {
				return f.ID
			}
		}
	}
	for _, sf := range systemFields {
		if sf.FieldID == fieldID {
			return sf.ID
		}
	}
	return fieldID
}

func joinTypes() string {
	names := make([]string, len(MdfFieldTypes))
	for i, t := range MdfFieldTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// BuildAlternatives checks a list of alternatives, of a field or of an
// option list: values are unique, labels default to the value. at names the
// list in messages.
func BuildAlternatives(at string, in []*AlternativeInput) ([]Alternative, error) {
	if len(in) > MaxAlternatives {
		return nil, loupe.Invalid("%s: at most %d alternatives", at, MaxAlternatives)
	}
	out := make([]Alternative, 0, len(in))
	seen := make(map[string]bool, len(in))
	for i, a := range in {
		if a == nil {
			return nil, loupe.Invalid("%s[%d] must be an object", at, i)
		}
		if a.Value == "" || utf8.RuneCountInString(a.Value) > MaxAlternativeText {
			return nil, loupe.Invalid("%s[%d].value: 1 to %d characters", at, i, MaxAlternativeText)
		}
		if seen[a.Value] {
			return nil, loupe.Invalid("%s[%d].value: %q is given twice", at, i, a.Value)
		}
		seen[a.Value] = true
		alt := Alternative{Value: a.Value, Label: a.Value}
		if a.Label != nil && strings.TrimSpace(*a.Label) != "" {
			alt.Label = strings.TrimSpace(*a.Label)
			if utf8.RuneCountInString(alt.Label) > MaxAlternativeText {
				return nil, loupe.Invalid("%s[%d].label: at most %d characters", at, i, MaxAlternativeText)
			}
		}
		out = append(out, alt)
	}
	return out, nil
}

// checkRule checks that every {placeholder} of a rule names a fieldId of
// the form and that braces pair up.
func checkRule(rule string, fields []*MdfField) error {
	known := make(map[string]bool, len(fields))
	for _, f := range fields {
		known[f.FieldID] = true
	}
	for _, m := range rulePlaceholderRE.FindAllStringSubmatch(rule, -1) {
		if !known[m[1]] {
			return loupe.Invalid("rule: {%s} names no fieldId of the form", m[1])
		}
	}
	if strings.ContainsAny(rulePlaceholderRE.ReplaceAllString(rule, ""), "{}") {
		return loupe.Invalid("rule: unbalanced braces: placeholders are {fieldId}")
	}
	return nil
}

// objectOr checks an optional JSON object; absent is {}.
func objectOr(field string, v loupe.JSON) (loupe.JSON, error) {
	if v.IsNull() {
		return loupe.JSON("{}"), nil
	}
	obj, err := v.Object()
	if err != nil {
		return nil, loupe.Invalid("%s must be an object", field)
	}
	return loupe.JSONOf(obj), nil
}

// permissions checks {read: object, write: object}; absent parts are {}.
func permissions(v loupe.JSON) (loupe.JSON, error) {
	out := map[string]json.RawMessage{"read": json.RawMessage("{}"), "write": json.RawMessage("{}")}
	if v.IsNull() {
		return loupe.JSONOf(out), nil
	}
	obj, err := v.Object()
	if err != nil {
		return nil, loupe.Invalid("permissions must be an object {read: object, write: object}")
	}
	for k, part := range obj {
		if k != "read" && k != "write" {
			return nil, loupe.Invalid("permissions.%s: unknown field (expected read and write)", k)
		}
		if _, err := loupe.JSON(part).Object(); err != nil || loupe.JSON(part).IsNull() {
			return nil, loupe.Invalid("permissions.%s must be an object", k)
		}
		out[k] = part
	}
	return loupe.JSONOf(out), nil
}

// usageRules checks the documented parts of usage rules (spec 2.22); more
// keys are kept as written.
func usageRules(v loupe.JSON) (loupe.JSON, error) {
	if v.IsNull() {
		return nil, nil
	}
	type offset struct {
		OffsetFrom *string `json:"offsetFrom"`
	}
	var rules []struct {
		Identifier *struct {
			Key   *string `json:"key"`
			Label *string `json:"label"`
		} `json:"identifier"`
		Contexts *[]*struct {
			Name         *string `json:"name"`
			WarningLevel *string `json:"warningLevel"`
			Validity     *struct {
				From *offset `json:"from"`
				To   *offset `json:"to"`
			} `json:"validity"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(v, &rules); err != nil || rules == nil {
		return nil, loupe.Invalid("usageRules must be an array of {identifier: {key, label}, contexts: [{name, warningLevel, validity: {from: {offsetFrom}, to: {offsetFrom}}}]}")
	}
	if len(rules) > MaxUsageRules {
		return nil, loupe.Invalid("usageRules: at most %d rules", MaxUsageRules)
	}
	for i, r := range rules {
		at := fmt.Sprintf("usageRules[%d]", i)
		if r.Identifier == nil || r.Identifier.Key == nil || *r.Identifier.Key == "" || r.Identifier.Label == nil {
			return nil, loupe.Invalid("%s.identifier needs key and label", at)
		}
		if r.Contexts == nil {
			return nil, loupe.Invalid("%s.contexts is required (an array)", at)
		}
		for j, c := range *r.Contexts {
			cat := fmt.Sprintf("%s.contexts[%d]", at, j)
			if c == nil || c.Name == nil || *c.Name == "" || c.WarningLevel == nil || *c.WarningLevel == "" {
				return nil, loupe.Invalid("%s needs name and warningLevel", cat)
			}
			if c.Validity == nil || c.Validity.From == nil || c.Validity.From.OffsetFrom == nil ||
				c.Validity.To == nil || c.Validity.To.OffsetFrom == nil {
				return nil, loupe.Invalid("%s.validity needs from.offsetFrom and to.offsetFrom", cat)
			}
		}
	}
	return compactJSON(v), nil
}

// retire returns the retired fields of a form overwritten with fields: those
// retired before and not given again, then the old fields no longer given,
// as last defined (alternatives of option lists kept with them, since the
// list may change or go).
func retire(old *Mdf, fields []*MdfField) []*MdfField {
	given := make(map[string]bool, len(fields))
	for _, f := range fields {
		given[f.ID] = true
	}
	out := []*MdfField{}
	for _, f := range old.retired {
		if !given[f.ID] {
			out = append(out, f)
		}
	}
	for _, f := range old.fields {
		if given[f.ID] {
			continue
		}
		r := *f
		r.OptionListID = nil
		out = append(out, &r)
	}
	if len(out) > MaxRetiredFields {
		out = out[len(out)-MaxRetiredFields:]
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }

// compactJSON re-encodes a value the client wrote, without its spacing.
func compactJSON(v loupe.JSON) loupe.JSON {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return v
	}
	return loupe.JSONOf(x)
}
