package store_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/loupe-mam/loupe"
)

// gate is a node's gate, opened and closed by the test.
type gate struct{ open atomic.Bool }

func (g *gate) Live() bool { return g.open.Load() }

// A create checks against the form as the node holds it, read once while
// the gate is open and held until forgotten (by form, by tenant, or all);
// while the gate is closed every create reads the form. The form's
// activity is changed behind the store's back, as another node would.
func TestFormCache(t *testing.T) {
	ctx := context.Background()
	st, db, p, _ := outbox(t)
	g := &gate{}
	g.open.Store(true)
	st.CacheForms(g)
	setActive := func(active bool) {
		t.Helper()
		if _, err := db.Exec(`UPDATE mdfs SET active = $2 WHERE tenant_id = $1 AND id = 'default'`, p.TenantID, active); err != nil {
			t.Fatal(err)
		}
	}
	create := func(want bool, why string) {
		t.Helper()
		title := "Take"
		_, err := st.CreateItem(ctx, p, &loupe.CreateItemInput{Title: &title, ItemType: "video"})
		if ok := err == nil; ok != want {
			t.Fatalf("%s: create error %v, want success %v", why, err, want)
		}
	}
	create(true, "the form read and kept")
	setActive(false)
	create(true, "the kept form, not yet forgotten")
	st.ForgetForms(p.TenantID + ":default")
	create(false, "the form forgotten by id, read again: inactive")
	setActive(true)
	create(false, "the inactive form kept")
	st.ForgetForms(p.TenantID + ":")
	create(true, "the tenant's forms forgotten")
	setActive(false)
	st.ForgetAllForms()
	create(false, "every form forgotten")

	g.open.Store(false)
	setActive(true)
	create(true, "gate closed: read every time")
	setActive(false)
	create(false, "gate closed: read every time")
	g.open.Store(true)
	create(false, "nothing kept while the gate was closed")
}
