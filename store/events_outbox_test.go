package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/store"
)

// outbox is a store on a fresh database and a tenant's admin.
func outbox(t *testing.T) (*store.Store, *sql.DB, *loupe.Principal, string) {
	t.Helper()
	url := pgtest.DB(t)
	raw, err := sql.Open("postgres", store.DSN(url))
	if err != nil {
		t.Fatal(err)
	}
	db := store.NewDB(raw, 8)
	t.Cleanup(func() { db.Close() })
	st := store.New(db)
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.CreateTenant(context.Background(), "a", "admin@a.test", store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	p := &loupe.Principal{TenantID: out.TenantID, UserID: out.UserID, Email: "admin@a.test", IsAdmin: true}
	return st, raw, p, url
}

// all reads the whole readable outbox.
func all(t *testing.T, st *store.Store) []*store.Event {
	t.Helper()
	events, _, err := st.EventsAfter(context.Background(), loupe.EventCursor{}, store.MaxEventsPage)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// settled reads the whole outbox once every event written so far is
// readable. Tests in other packages share the cluster, and any of their
// transactions holds this database's newer events back while it runs.
func settled(t *testing.T, st *store.Store) []*store.Event {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		held, err := st.EventsHeldBack(context.Background(), loupe.EventCursor{})
		if err != nil {
			t.Fatal(err)
		}
		if !held {
			return all(t, st)
		}
		if time.Now().After(deadline) {
			t.Fatal("events still held back after 30 s")
		}
	}
}

// A reader never skips an event that commits late: an event written by a
// transaction that began earlier (a lower transaction id) but commits
// after a later one's is not readable until it commits, and then comes
// first, so a cursor that moved past the later one still reads it. Events
// of a rolled-back transaction never appear.
func TestOutboxCursorMissesNothingThatCommitsLate(t *testing.T) {
	ctx := context.Background()
	st, db, p, _ := outbox(t)
	start := len(settled(t, st)) // the tenant's archive folder
	write := func(tx *sql.Tx, typ string) {
		t.Helper()
		if _, err := tx.ExecContext(ctx, `INSERT INTO events (tenant_id, type) VALUES ($1, $2)`, p.TenantID, typ); err != nil {
			t.Fatal(err)
		}
	}
	begin := func() *sql.Tx {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	early, late, aborted := begin(), begin(), begin()
	write(early, "early") // takes the lower transaction id
	write(aborted, "aborted")
	write(late, "late")
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := all(t, st)[start:]; len(got) != 0 {
		t.Fatalf("while an earlier transaction runs, %d events are readable: a cursor past them would skip it", len(got))
	}
	// …and a reader is told to look again soon.
	if held, err := st.EventsHeldBack(ctx, loupe.EventCursor{}); err != nil || !held {
		t.Fatalf("held back: %v, %v; want true", held, err)
	}
	if err := aborted.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	got := settled(t, st)[start:]
	var types []string
	for _, e := range got {
		types = append(types, string(e.Type))
	}
	if !slices.Equal(types, []string{"early", "late"}) {
		t.Fatalf("events %v, want [early late]", types)
	}
	if held, err := st.EventsHeldBack(ctx, got[1].Cursor()); err != nil || held {
		t.Fatalf("held back after everything: %v, %v; want false", held, err)
	}
	// Resuming after the first gives the second, and nothing after it.
	rest, _, err := st.EventsAfter(ctx, got[0].Cursor(), 10)
	if err != nil || len(rest) != 1 || rest[0].Type != "late" {
		t.Fatalf("after %s: %v, %v", got[0].ID(), rest, err)
	}
	if c, err := loupe.ParseEventCursor(got[1].ID()); err != nil || c != got[1].Cursor() {
		t.Fatalf("id %q parses to %v, %v", got[1].ID(), c, err)
	}
}

// Events come in transaction order, not in the text order of their ids
// (9 before 10 before 100), and the head is the last of them.
func TestOutboxOrderIsNumeric(t *testing.T) {
	ctx := context.Background()
	st, db, p, _ := outbox(t)
	if _, err := db.ExecContext(ctx, `DELETE FROM events`); err != nil {
		t.Fatal(err)
	}
	for _, tx := range []string{"10", "9", "100"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO events (tx, tenant_id, type) VALUES ($1::xid8, $2, 'x')`, tx, p.TenantID); err != nil {
			t.Fatal(err)
		}
	}
	var got []uint64
	for _, e := range all(t, st) {
		got = append(got, e.Tx)
	}
	if !slices.Equal(got, []uint64{9, 10, 100}) {
		t.Fatalf("order %v", got)
	}
	if head, err := st.EventsHead(ctx); err != nil || head.Tx != 100 {
		t.Fatalf("head %v, %v", head, err)
	}
	page, _, err := st.TenantEvents(ctx, p.TenantID, store.EventQuery{First: 2})
	if err != nil || len(page) != 2 || page[0].Tx != 9 || page[1].Tx != 10 {
		t.Fatalf("tenant page %v, %v", page, err)
	}
}

// One transaction that writes several events wakes the readers once.
func TestOutboxWakesOncePerTransaction(t *testing.T) {
	ctx := context.Background()
	st, db, p, url := outbox(t)
	l := pq.NewListener(store.DSN(url), time.Millisecond, time.Second, nil)
	defer l.Close()
	if err := l.Listen("loupe_events"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO events (tenant_id, type) VALUES ($1, 'x'), ($1, 'y')`, p.TenantID); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// And a change through the store: one more.
	if _, err := st.CreateItem(ctx, p, &loupe.CreateItemInput{Title: ptr("Clip"), ItemType: "video"}); err != nil {
		t.Fatal(err)
	}
	got := 0
	for timeout := time.After(500 * time.Millisecond); ; {
		select {
		case n := <-l.Notify:
			if n != nil && n.Extra != "" {
				t.Fatalf("a notification carries %q: it should carry nothing", n.Extra)
			}
			got++
			continue
		case <-timeout:
		}
		break
	}
	if got != 2 {
		t.Fatalf("%d notifications for 2 transactions", got)
	}
}

// What the store's changes announce, in the transaction of each: who, what
// item, which parts.
func TestChangesWriteTheirEvents(t *testing.T) {
	ctx := context.Background()
	st, _, p, _ := outbox(t)
	start := len(settled(t, st))
	folder, err := st.CreateItem(ctx, p, &loupe.CreateItemInput{Title: ptr("Rushes"), ItemType: "folder"})
	if err != nil {
		t.Fatal(err)
	}
	clip, err := st.CreateItem(ctx, p, &loupe.CreateItemInput{Title: ptr("Clip"), ItemType: "video", FolderParents: []string{folder.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateItemMetadata(ctx, p, store.MetadataUpdate{ItemID: clip.ID,
		FormData: loupe.JSON(`{"default_title": "Clip 2", "notes": "good take"}`)}); err != nil {
		t.Fatal(err)
	}
	// A failed change writes nothing.
	if _, err := st.UpdateItemMetadata(ctx, p, store.MetadataUpdate{ItemID: clip.ID,
		FormData: loupe.JSON(`{"default_title": ""}`)}); err == nil {
		t.Fatal("an empty title was taken")
	}
	if _, _, err := st.DeleteItem(ctx, p, folder.ID); err != nil {
		t.Fatal(err)
	}

	type seen struct {
		Type   loupe.EventType
		Item   string
		Actor  string
		Detail string
	}
	var got []seen
	for _, e := range settled(t, st)[start:] {
		var d map[string]any
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		s := seen{Type: e.Type, Item: *e.ItemID, Actor: *e.ActorID}
		switch e.Type {
		case loupe.EventItemCreation:
			s.Detail = d["itemType"].(string)
		case loupe.EventItemChange:
			b, _ := json.Marshal([]any{d["parts"], d["metadataVersion"], d["fields"]})
			s.Detail = string(b)
		case loupe.EventItemDeletion:
			s.Detail = "with " + d["with"].(string)
		}
		got = append(got, s)
	}
	want := []seen{
		{loupe.EventItemCreation, folder.ID, p.UserID, "folder"},
		{loupe.EventItemCreation, clip.ID, p.UserID, "video"},
		{loupe.EventItemChange, clip.ID, p.UserID, `[["metadata","title"],2,["default_title","notes"]]`},
	}
	// Deleting the folder takes the clip along (it sits in no other
	// folder): both announced, in either order, naming the folder.
	dels := got[len(want):]
	got = got[:len(want)]
	if !slices.Equal(got, want) {
		t.Fatalf("events\n%v\nwant\n%v", got, want)
	}
	if len(dels) != 2 || dels[0].Detail != "with "+folder.ID || dels[1].Detail != "with "+folder.ID ||
		dels[0].Item == dels[1].Item {
		t.Fatalf("deletion events %v", dels)
	}
}

// Pruning removes the events older than the cut, and only those.
func TestPruneEvents(t *testing.T) {
	ctx := context.Background()
	st, db, p, _ := outbox(t)
	if _, err := db.ExecContext(ctx, `INSERT INTO events (tenant_id, type, occurred_on)
		SELECT $1, 'old', now() - interval '8 days' FROM generate_series(1, 25)`, p.TenantID); err != nil {
		t.Fatal(err)
	}
	before := len(settled(t, st))
	n, err := st.PruneEvents(ctx, time.Now().Add(-7*24*time.Hour))
	if err != nil || n != 25 {
		t.Fatalf("pruned %d, %v; want 25", n, err)
	}
	if after := len(settled(t, st)); after != before-25 || after == 0 {
		t.Fatalf("%d events before, %d after", before, after)
	}
}

func ptr[T any](v T) *T { return &v }
