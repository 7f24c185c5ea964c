package store

import (
	"context"
	"strings"
	"sync"

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

// Gate says whether a node's caches may answer (coherence.Node.Live).
type Gate interface{ Live() bool }

type formKey struct{ tenantID, id string }

// formCache is the node's forms by tenant and id; a nil cache reads every
// time.
type formCache struct {
	gate Gate

	mu    sync.Mutex
	gen   uint64 // bumped by every invalidation
	forms map[formKey]*mdf.Mdf
}

// CacheForms lets creates read forms from memory while gate is open. The
// node's listener must then call ForgetForms for every FormsChannel
// payload and ForgetAllForms whenever the gate closes or opens. Call it
// before serving.
func (s *Store) CacheForms(gate Gate) {
	s.forms = &formCache{gate: gate, forms: map[formKey]*mdf.Mdf{}}
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
	c := s.forms
	if c == nil {
		return
	}
	tenantID, id, _ := strings.Cut(payload, ":")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	switch {
	case tenantID == "":
		clear(c.forms)
	case id == "":
		for k := range c.forms {
			if k.tenantID == tenantID {
				delete(c.forms, k)
			}
		}
	default:
		delete(c.forms, formKey{tenantID, id})
	}
}

// ForgetAllForms forgets every cached form.
func (s *Store) ForgetAllForms() { s.ForgetForms("") }

// form reads one form of the tenant (nil when it has none) from memory when
// it can, else as formsTx does.
func (c *formCache) form(ctx context.Context, q selecter, tenantID, id string) (*mdf.Mdf, error) {
	if c == nil {
		forms, err := formsTx(ctx, q, tenantID, id)
		return forms[id], err
	}
	// The gate first: a gate that opens again has forgotten everything.
	live := c.gate.Live()
	key := formKey{tenantID, id}
	c.mu.Lock()
	m, ok := c.forms[key]
	gen := c.gen
	c.mu.Unlock()
	if ok && live {
		return m, nil
	}
	forms, err := formsTx(ctx, q, tenantID, id)
	if err != nil {
		return nil, err
	}
	m = forms[id]
	if m == nil || !live {
		// An absent form is not kept: a new one notifies nothing.
		return m, nil
	}
	c.mu.Lock()
	// Kept only if nothing was forgotten while it was read.
	if c.gen == gen && c.gate.Live() {
		if len(c.forms) >= maxCachedForms {
			clear(c.forms)
		}
		c.forms[key] = m
	}
	c.mu.Unlock()
	return m, nil
}
