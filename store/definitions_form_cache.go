package store

import (
	"context"
	"strings"

	"github.com/loupe-mam/loupe/internal/coherence"
	"github.com/loupe-mam/loupe/mdf"
)

// A create checks its form data against its form, and reading the form was
// a quarter of a create's server time: a node keeps the forms it used in
// memory (docs/scaling.md, "Several nodes"). A form changed or removed, or
// an option list changed (a form is read with its lists' alternatives),
// notifies FormsChannel (migration 00040) and every node forgets it; a
// node whose gate is closed (its listener down, its lease run out) caches
// nothing; and the writer of such a change does not answer until every
// node has forgotten (OnCacheChange). Only creates outside a transaction
// read through the cache: other writes read their forms in their
// transaction, locked against deletion.

// FormsChannel is the notification channel of form changes: payload
// "<tenant>:<form>", "<tenant>:" for every form of a tenant, "" for all.
const FormsChannel = "loupe_forms"

// maxCachedForms bounds the cache (one entry per form in use).
const maxCachedForms = 10000

type formKey struct{ tenantID, id string }

// formCache is the node's forms by tenant and id; a nil cache reads every
// time.
type formCache = coherence.Cache[formKey, *mdf.Mdf]

// CacheForms lets creates read forms from memory while gate is open. The
// node's listener must then call ForgetForms for every FormsChannel
// payload and ForgetAllForms whenever the gate closes or opens. Call it
// before serving.
func (s *Store) CacheForms(gate coherence.Gate) {
	s.forms = coherence.NewCache[formKey, *mdf.Mdf](gate, maxCachedForms)
}

// OnCacheChange registers fn to run after every committed change this store
// makes that a node's cache depends on (a key deleted or revoked, a form or
// an option list changed), before the change is answered: fn returns once
// every node has forgotten what the change made stale
// (coherence.Node.Sync). Register before serving.
func (s *Store) OnCacheChange(fn func(ctx context.Context)) {
	s.cacheHooks = append(s.cacheHooks, fn)
}

func (s *Store) cacheChanged(ctx context.Context) {
	for _, fn := range s.cacheHooks {
		fn(ctx)
	}
}

// ForgetForms applies a FormsChannel payload.
func (s *Store) ForgetForms(payload string) {
	if s.forms == nil {
		return
	}
	tenantID, id, _ := strings.Cut(payload, ":")
	switch {
	case tenantID == "":
		s.forms.Forget(nil)
	case id == "":
		s.forms.Forget(func(k formKey, _ *mdf.Mdf) bool { return k.tenantID == tenantID })
	default:
		s.forms.Forget(func(k formKey, _ *mdf.Mdf) bool { return k == formKey{tenantID, id} })
	}
}

// ForgetAllForms forgets every cached form.
func (s *Store) ForgetAllForms() { s.ForgetForms("") }

// formOf reads one form of the tenant (nil when it has none) from the
// node's cache when it can, else as formsTx does. An absent form is not
// kept: a new one notifies nothing.
func formOf(ctx context.Context, c *formCache, q selecter, tenantID, id string) (*mdf.Mdf, error) {
	read := func(ctx context.Context) (*mdf.Mdf, error) {
		forms, err := formsTx(ctx, q, tenantID, id)
		return forms[id], err
	}
	if c == nil {
		return read(ctx)
	}
	return c.Get(ctx, formKey{tenantID, id}, read, func(m *mdf.Mdf) bool { return m != nil })
}
