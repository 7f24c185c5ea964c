package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/mdf"
)

// This file holds option lists (spec 2.23): named sets of alternatives that
// choice fields of any form share. Everyone reads them; admins write them,
// each write audited. A field that names a list offers the list's current
// alternatives.

// MaxOptionLists bounds a tenant's option lists, so that the list needs no
// paging. The limits on their alternatives are mdf's, as for a field's.
const MaxOptionLists = 1000

// OptionListTypeChoice is the one option list type (spec 2.23).
const OptionListTypeChoice = "choice"

// MsgOptionListNameInUse is the spec's answer to a name in use (section 7).
const MsgOptionListNameInUse = "Name %s is already used by another option list"

// OptionList is a named set of alternatives (spec 2.23).
type OptionList struct {
	TenantID        string     `db:"tenant_id"`
	ID              string     `db:"id"`
	Name            string     `db:"name"`
	OptionListType  string     `db:"option_list_type"`
	AlternativesDoc loupe.JSON `db:"alternatives"`
	CreatedOn       time.Time  `db:"created_on"`
	ModifiedOn      time.Time  `db:"modified_on"`
}

// Alternatives are the list's values and labels, in the order written.
func (o *OptionList) Alternatives() []mdf.Alternative {
	out := []mdf.Alternative{}
	_ = jsonUnmarshal(o.AlternativesDoc, &out) // written from []mdf.Alternative
	return out
}

// record is the list as its audit records keep it.
func (o *OptionList) record() map[string]any {
	return map[string]any{"id": o.ID, "name": o.Name, "optionListType": o.OptionListType,
		"alternatives": o.AlternativesDoc, "modifiedOn": o.ModifiedOn}
}

// OptionListInput is an option list as a client writes it.
type OptionListInput struct {
	ID             *string                 `json:"id"`
	Name           *string                 `json:"name"`
	OptionListType *string                 `json:"optionListType"`
	Alternatives   []*mdf.AlternativeInput `json:"alternatives"`
}

// build checks the input. Returns EINVALID naming the field.
func (in *OptionListInput) build() (*OptionList, error) {
	o := &OptionList{OptionListType: OptionListTypeChoice}
	if in.Name == nil {
		return nil, loupe.Invalid("name is required")
	}
	o.Name = strings.TrimSpace(*in.Name)
	if err := loupe.RequiredText("name", o.Name, mdf.MaxText); err != nil {
		return nil, err
	}
	if in.OptionListType != nil && *in.OptionListType != OptionListTypeChoice {
		return nil, loupe.Invalid("optionListType: expected %s, got %q", OptionListTypeChoice, *in.OptionListType)
	}
	if in.Alternatives == nil {
		return nil, loupe.Invalid("alternatives is required (an array of {value, label})")
	}
	alts, err := mdf.BuildAlternatives("alternatives", in.Alternatives)
	if err != nil {
		return nil, err
	}
	o.AlternativesDoc = loupe.JSONOf(alts)
	return o, nil
}

const (
	optionListColumns = `tenant_id, id, name, option_list_type, alternatives, created_on, modified_on`
	optionListsSQL    = `SELECT ` + optionListColumns + ` FROM option_lists WHERE tenant_id = $1 ORDER BY lower(name), id`
	optionListByIDSQL = `SELECT ` + optionListColumns + ` FROM option_lists WHERE tenant_id = $1 AND id = $2`
	// An update takes the weaker lock, which form writes reading the list
	// (FOR KEY SHARE) do not wait for; a delete waits for them.
	lockOptionListSQL   = optionListByIDSQL + ` FOR NO KEY UPDATE`
	lockDeleteListSQL   = optionListByIDSQL + ` FOR UPDATE`
	countOptionListsSQL = `SELECT count(*) FROM option_lists WHERE tenant_id = $1`

	// optionListsForFormSQL reads the lists a form write names, locked so
	// that a list cannot be deleted while a form starts to use it.
	optionListsForFormSQL = `
SELECT id, alternatives FROM option_lists WHERE tenant_id = $1 AND id = ANY($2::uuid[]) FOR KEY SHARE`

	insertOptionListSQL = `
INSERT INTO option_lists (tenant_id, id, name, option_list_type, alternatives, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $6)`
	updateOptionListSQL = `
UPDATE option_lists SET name = $3, option_list_type = $4, alternatives = $5, modified_on = $6
WHERE tenant_id = $1 AND id = $2`
	deleteOptionListSQL = `DELETE FROM option_lists WHERE tenant_id = $1 AND id = $2`

	// optionListUseSQL names a form field that uses a list.
	optionListUseSQL = `
SELECT m.id AS form_id, f->>'fieldId' AS field_id FROM mdfs m, jsonb_array_elements(m.fields) f
WHERE m.tenant_id = $1 AND f->>'optionListId' = $2 ORDER BY m.id LIMIT 1`
)

// OptionLists returns the tenant's option lists, by name.
func (s *Store) OptionLists(ctx context.Context, tenantID string) ([]*OptionList, error) {
	out := []*OptionList{}
	if err := s.selectPrepared(ctx, &out, optionListsSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list option lists: %w", err)
	}
	return out, nil
}

// OptionList returns one option list of the tenant. Returns ENOTFOUND when
// the tenant has none of that id.
func (s *Store) OptionList(ctx context.Context, tenantID, id string) (*OptionList, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var o OptionList
	if err := s.getPrepared(ctx, &o, optionListByIDSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch option list %s: %w", id)
	}
	return &o, nil
}

// optionListsTx returns the alternatives of the lists among ids that exist,
// keyed by id in lower case, as the database prints it.
func optionListsTx(ctx context.Context, tx *sqlx.Tx, tenantID string, ids []string) (map[string][]mdf.Alternative, error) {
	out := map[string][]mdf.Alternative{}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   string     `db:"id"`
		Alts loupe.JSON `db:"alternatives"`
	}
	if err := tx.SelectContext(ctx, &rows, optionListsForFormSQL, tenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to read option lists: %w", err)
	}
	for _, r := range rows {
		var alts []mdf.Alternative
		if err := jsonUnmarshal(r.Alts, &alts); err != nil {
			return nil, err
		}
		out[r.ID] = alts
	}
	return out, nil
}

// CreateOptionList stores a new option list and its audit record (an id in
// the input is not used). Returns EFORBIDDEN for a name in use (the spec's answer), EINVALID for a bad list or when the tenant has
// MaxOptionLists lists.
func (s *Store) CreateOptionList(ctx context.Context, p *loupe.Principal, in *OptionListInput) (*OptionList, error) {
	o, err := in.build()
	if err != nil {
		return nil, err
	}
	o.TenantID, o.ID = p.TenantID, loupe.NewID()
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, countOptionListsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count option lists: %w", err)
		}
		if n >= MaxOptionLists {
			return loupe.Invalid("a tenant has at most %d option lists", MaxOptionLists)
		}
		at := now()
		o.CreatedOn, o.ModifiedOn = at, at
		if _, err := tx.ExecContext(ctx, insertOptionListSQL, p.TenantID, o.ID, o.Name, o.OptionListType,
			o.AlternativesDoc, at); err != nil {
			if isUniqueViolation(err) {
				return loupe.Forbidden(MsgOptionListNameInUse, o.Name)
			}
			return fmt.Errorf("store: unable to create option list: %w", err)
		}
		return definitionChangeTx(ctx, tx, p, SubjectOptionList, o.ID, ActionDefinitionCreate, at, nil, o.record())
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// UpdateOptionList replaces an option list's name, type and alternatives
// and records the change. Fields that name the list offer the new
// alternatives at once; item values no longer among them are kept until
// written again. Returns EFORBIDDEN for a name in use
// (the spec's answer), ENOTFOUND for an unknown list, EINVALID for a bad one.
func (s *Store) UpdateOptionList(ctx context.Context, p *loupe.Principal, in *OptionListInput) (*OptionList, error) {
	if in.ID == nil {
		return nil, loupe.Invalid("id is required: the option list to replace")
	}
	if !loupe.ValidID(*in.ID) {
		return nil, loupe.NotFound()
	}
	o, err := in.build()
	if err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		var old OptionList
		if err := tx.GetContext(ctx, &old, lockOptionListSQL, p.TenantID, *in.ID); err != nil {
			return notFoundOr(err, "store: unable to lock option list %s: %w", *in.ID)
		}
		o.TenantID, o.ID, o.CreatedOn, o.ModifiedOn = old.TenantID, old.ID, old.CreatedOn, now()
		if _, err := tx.ExecContext(ctx, updateOptionListSQL, p.TenantID, o.ID, o.Name, o.OptionListType,
			o.AlternativesDoc, o.ModifiedOn); err != nil {
			if isUniqueViolation(err) {
				return loupe.Forbidden(MsgOptionListNameInUse, o.Name)
			}
			return fmt.Errorf("store: unable to update option list %s: %w", o.ID, err)
		}
		return definitionChangeTx(ctx, tx, p, SubjectOptionList, o.ID, ActionDefinitionUpdate, o.ModifiedOn,
			old.record(), o.record())
	})
	if err != nil {
		return nil, err
	}
	// Forms are read with their lists' alternatives: every node's creates
	// offer the new ones from now on.
	s.cacheChanged(ctx)
	return o, nil
}

// DeleteOptionList deletes an option list no form field uses, and records
// it. Returns ENOTFOUND for an unknown list,
// ECONFLICT while a field uses it.
func (s *Store) DeleteOptionList(ctx context.Context, p *loupe.Principal, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	var old OptionList // the list as locked
	return s.deleteUnusedDefinition(ctx, p, unusedDefinition{
		subject: SubjectOptionList, deleteSQL: deleteOptionListSQL,
		lock: func(tx *sqlx.Tx) (string, map[string]any, error) {
			if err := tx.GetContext(ctx, &old, lockDeleteListSQL, p.TenantID, id); err != nil {
				return "", nil, notFoundOr(err, "store: unable to lock option list %s: %w", id)
			}
			return old.ID, old.record(), nil
		},
		inUse: func(tx *sqlx.Tx, id string) error {
			var uses []struct {
				FormID  string `db:"form_id"`
				FieldID string `db:"field_id"`
			}
			if err := tx.SelectContext(ctx, &uses, optionListUseSQL, p.TenantID, id); err != nil {
				return fmt.Errorf("store: unable to check use of option list %s: %w", id, err)
			}
			if len(uses) > 0 {
				return loupe.Errorf(loupe.ECONFLICT, "Option list %s is used by field %q of form %q and cannot be deleted",
					old.Name, uses[0].FieldID, uses[0].FormID)
			}
			return nil
		},
	})
}
