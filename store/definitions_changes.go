package store

import (
	"github.com/loupe-mam/loupe"

	"context"
	"fmt"
	"io"
	"time"

	"github.com/jmoiron/sqlx"
)

// This file holds the audit of form and option list writes. Such a write
// changes how every item of the tenant is described (spec 4.8), so each is
// recorded with the definition before and after, in the transaction of the
// change. Item operations keep their own records (items_audit.go).

// DefinitionSubject is what a definition change changed.
type DefinitionSubject string

const (
	SubjectMdf        DefinitionSubject = "mdf"
	SubjectOptionList DefinitionSubject = "optionList"
)

func (e DefinitionSubject) MarshalGQL(w io.Writer) { loupe.MarshalEnum(w, string(e)) }
func (e *DefinitionSubject) UnmarshalGQL(v any) (err error) {
	*e, err = loupe.UnmarshalEnum(v, "definition subject", SubjectMdf, SubjectOptionList)
	return err
}

// DefinitionAction is what happened to a form or option list.
type DefinitionAction string

const (
	ActionDefinitionCreate DefinitionAction = "create"
	ActionDefinitionUpdate DefinitionAction = "update"
	ActionDefinitionDelete DefinitionAction = "delete"
)

func (e DefinitionAction) MarshalGQL(w io.Writer) { loupe.MarshalEnum(w, string(e)) }
func (e *DefinitionAction) UnmarshalGQL(v any) (err error) {
	*e, err = loupe.UnmarshalEnum(v, "definition action", ActionDefinitionCreate, ActionDefinitionUpdate, ActionDefinitionDelete)
	return err
}

// DefinitionChange is one recorded write of a form or option list.
type DefinitionChange struct {
	TenantID    string            `db:"tenant_id"`
	ID          string            `db:"id"`
	SubjectType DefinitionSubject `db:"subject_type"`
	SubjectID   string            `db:"subject_id"`
	Action      DefinitionAction  `db:"action"`
	ExecutedBy  string            `db:"executed_by"`
	Email       string            `db:"email"`
	ExecutedOn  time.Time         `db:"executed_on"`
	// Before and After are the definition around the change (null before
	// a create and after a delete).
	Before loupe.JSON `db:"before"`
	After  loupe.JSON `db:"after"`
}

const (
	insertDefinitionChangeSQL = `
INSERT INTO definition_changes (tenant_id, id, subject_type, subject_id, action, executed_by, email, executed_on, before, after)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

	definitionChangeColumns = `tenant_id, id, subject_type, subject_id, action, executed_by, email, executed_on, before, after`
	definitionChangesWhere  = ` FROM definition_changes WHERE tenant_id = $1 AND ($2::text IS NULL OR subject_id = $2)`
	definitionChangesSQL    = `SELECT ` + definitionChangeColumns + definitionChangesWhere + `
ORDER BY executed_on DESC, id DESC OFFSET $3 LIMIT $4`
	countDefinitionChangesSQL = `SELECT count(*)` + definitionChangesWhere
)

// definitionChangeTx records a write inside its transaction.
func definitionChangeTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, subject DefinitionSubject, id string,
	action DefinitionAction, at time.Time, before, after map[string]any) error {
	var b, a loupe.JSON
	if before != nil {
		b = loupe.JSONOf(before)
	}
	if after != nil {
		a = loupe.JSONOf(after)
	}
	if _, err := tx.ExecContext(ctx, insertDefinitionChangeSQL, p.TenantID, loupe.NewID(), string(subject), id,
		string(action), p.UserID, p.Email, at, b, a); err != nil {
		return fmt.Errorf("store: unable to record definition change: %w", err)
	}
	return nil
}

// unusedDefinition is a form or option list to delete, in the steps of
// deleteUnusedDefinition.
type unusedDefinition struct {
	subject   DefinitionSubject
	deleteSQL string // deletes ($1 tenant, $2 id)
	// lock locks the definition's row, so that writes that read it (FOR
	// KEY SHARE) finish first and inUse sees what they wrote, and answers
	// its id and its record as changes keep it (ENOTFOUND when missing).
	lock func(tx *sqlx.Tx) (id string, record map[string]any, err error)
	// inUse answers ECONFLICT, naming a use, while anything uses it.
	inUse func(tx *sqlx.Tx, id string) error
	// changesCaches: nodes cache the definition (forms), so the delete
	// waits for them to forget it (cacheChanged).
	changesCaches bool
}

// deleteUnusedDefinition deletes a definition nobody uses and records the
// delete, in one transaction: lock, check its use, delete, record.
func (s *Store) deleteUnusedDefinition(ctx context.Context, p *loupe.Principal, d unusedDefinition) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		id, old, err := d.lock(tx)
		if err != nil {
			return err
		}
		if err := d.inUse(tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, d.deleteSQL, p.TenantID, id); err != nil {
			return fmt.Errorf("store: unable to delete %s %s: %w", d.subject, id, err)
		}
		return definitionChangeTx(ctx, tx, p, d.subject, id, ActionDefinitionDelete, now(), old, nil)
	})
	if err == nil && d.changesCaches {
		s.cacheChanged(ctx)
	}
	return err
}

// DefinitionChanges returns a page of the tenant's recorded form and option
// list writes (of one subject when subjectID is not empty), newest first,
// and how many there are (the caller has checked that the principal may).
// Returns EINVALID for bad paging.
func (s *Store) DefinitionChanges(ctx context.Context, p *loupe.Principal, subjectID string, from, size int) ([]*DefinitionChange, int, error) {
	if from < 0 {
		return nil, 0, loupe.Invalid("from must not be negative")
	}
	if size < 1 || size > MaxAuditPage {
		return nil, 0, loupe.Invalid("size must be between 1 and %d", MaxAuditPage)
	}
	var total int
	if err := s.getPrepared(ctx, &total, countDefinitionChangesSQL, p.TenantID, nullString(subjectID)); err != nil {
		return nil, 0, fmt.Errorf("store: unable to count definition changes: %w", err)
	}
	hits := []*DefinitionChange{}
	if total > from {
		if err := s.selectPrepared(ctx, &hits, definitionChangesSQL, p.TenantID, nullString(subjectID), from, size); err != nil {
			return nil, 0, fmt.Errorf("store: unable to list definition changes: %w", err)
		}
	}
	return hits, total, nil
}
