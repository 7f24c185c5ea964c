package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// bulkItems makes n videos of p's tenant and answers their ids.
func bulkItems(t *testing.T, st *store.Store, p *loupe.Principal, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		it, err := st.CreateItem(context.Background(), p, &loupe.CreateItemInput{Title: ptr(fmt.Sprint("Clip ", i)), ItemType: "video"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = it.ID
	}
	return ids
}

// Bulk writes of the same items, given in opposite orders at once, all
// go through: the items are locked in id order, so two writes never wait
// for each other's locks in a cycle (a deadlock would fail one of them).
func TestUpdateItemsMetadataLocksInOneOrder(t *testing.T) {
	ctx := context.Background()
	st, _, p, _ := outbox(t)
	ids := bulkItems(t, st, p, 200)
	const writers, rounds = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := slices.Clone(ids)
			if w%2 == 1 {
				slices.Reverse(order)
			}
			for r := range rounds {
				updates := make([]store.MetadataUpdate, len(order))
				for i, id := range order {
					updates[i] = store.MetadataUpdate{ItemID: id, FormData: loupe.JSONOf(map[string]any{"writer": w, "round": r})}
				}
				res, err := st.UpdateItemsMetadata(ctx, p, updates, nil, true)
				if err != nil {
					errs <- err
					return
				}
				for _, x := range res {
					if x.Err != nil {
						errs <- x.Err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a concurrent bulk write failed: %v", err)
	}
	for _, id := range ids {
		it, err := st.Item(ctx, p, id)
		if err != nil {
			t.Fatal(err)
		}
		if it.MetadataVersion != 1+writers*rounds {
			t.Fatalf("item %s at version %d, want %d", id, it.MetadataVersion, 1+writers*rounds)
		}
	}
}

// The caller's refusals fail their edits first, before the edit's own
// problems, as the single write checks access first; atomic, they stop
// the others too.
func TestUpdateItemsMetadataTakesTheCallersRefusals(t *testing.T) {
	ctx := context.Background()
	st, _, p, _ := outbox(t)
	ids := bulkItems(t, st, p, 3)
	forbidden := loupe.Forbidden("you may not change this item")
	updates := []store.MetadataUpdate{
		{ItemID: ids[0], FormData: loupe.JSON(`{"a": 1}`)},
		{ItemID: ids[1], FormData: loupe.JSON(`"not an object"`)},
		{ItemID: ids[2], FormData: loupe.JSON(`{"a": 1}`)},
	}
	refused := []error{nil, forbidden, nil}
	for _, atomic := range []bool{true, false} {
		res, err := st.UpdateItemsMetadata(ctx, p, updates, refused, atomic)
		if err != nil {
			t.Fatal(err)
		}
		if res[1].Err != forbidden || res[1].Item != nil {
			t.Fatalf("atomic %v: refused edit: %+v", atomic, res[1])
		}
		for _, i := range []int{0, 2} {
			switch {
			case atomic && !errors.Is(res[i].Err, store.ErrNotWritten):
				t.Fatalf("atomic: edit %d: %+v", i, res[i])
			case !atomic && (res[i].Err != nil || res[i].Item == nil || res[i].Item.MetadataVersion != 2):
				t.Fatalf("edit %d: %+v", i, res[i])
			}
		}
	}
	if _, err := st.UpdateItemsMetadata(ctx, p, updates, refused[:2], false); err == nil {
		t.Fatal("refusals that do not match the updates were taken")
	}
}

// One edit through UpdateItemsMetadata and through UpdateItemMetadata
// leave the same item, record and event.
func TestUpdateItemsMetadataWritesAsTheSingleWrite(t *testing.T) {
	ctx := context.Background()
	st, db, p, _ := outbox(t)
	var ids []string // two alike
	for range 2 {
		it, err := st.CreateItem(ctx, p, &loupe.CreateItemInput{Title: ptr("Clip"), ItemType: "video"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	delta := loupe.JSON(`{"default_title": "Renamed", "default_description": "d", "keep": [1, 2]}`)
	single, err := st.UpdateItemMetadata(ctx, p, store.MetadataUpdate{ItemID: ids[0], FormData: delta, RequiredVersion: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.UpdateItemsMetadata(ctx, p, []store.MetadataUpdate{{ItemID: ids[1], FormData: delta, RequiredVersion: ptr(1)}}, nil, false)
	if err != nil || res[0].Err != nil {
		t.Fatal(err, res[0].Err)
	}
	bulk := res[0].Item
	if single.Title != bulk.Title || single.MetadataVersion != bulk.MetadataVersion || string(single.MetadataFormData) != string(bulk.MetadataFormData) ||
		single.MetadataFormID != bulk.MetadataFormID || !single.ModifiedOn.After(single.CreatedOn) || !bulk.ModifiedOn.After(bulk.CreatedOn) {
		t.Fatalf("single %+v\nbulk   %+v", single, bulk)
	}
	record := func(id string) string {
		var diff, event string
		if err := db.QueryRow(`SELECT a.mdf_diff::text || a.item_title || a.executed_by::text, e.data::text || e.actor_id::text
			FROM audit_records a JOIN events e ON e.tenant_id = a.tenant_id AND e.item_id = a.item_id AND e.type = 'itemChange'
			WHERE a.item_id = $1 AND a.action_type = 'metadataUpdated'`, id).Scan(&diff, &event); err != nil {
			t.Fatal(err)
		}
		return diff + " " + event
	}
	if s, b := record(ids[0]), record(ids[1]); s != b {
		t.Fatalf("single write recorded %s\nbulk write   %s", s, b)
	}
}
