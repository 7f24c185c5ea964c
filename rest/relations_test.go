package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// relationEntry is one entry of a relations answer.
type relationEntry struct {
	RelationType  string `json:"relationType"`
	Direction     string `json:"direction"`
	RelatedItemID string `json:"relatedItemId"`
	CreatedOn     string `json:"createdOn"`
}

func (r relationEntry) String() string {
	return r.RelationType + " " + r.Direction + " " + r.RelatedItemID
}

// relationsOf decodes a {relations} answer, checking its keys and those of
// every entry.
func relationsOf(t *testing.T, r *loupetest.Response) []string {
	t.Helper()
	obj := r.Status(http.StatusOK).Object()
	sameKeys(t, "relations answer", obj, []string{"relations"})
	list, ok := obj["relations"].([]any)
	if !ok {
		t.Fatalf("relations = %v, want an array", obj["relations"])
	}
	var out struct{ Relations []relationEntry }
	r.JSON(&out)
	entries := make([]string, len(list))
	for i, e := range list {
		sameKeys(t, "relation", e.(map[string]any), []string{"relationType", "direction", "relatedItemId", "createdOn"})
		if _, err := time.Parse(time.RFC3339, out.Relations[i].CreatedOn); err != nil {
			t.Fatalf("createdOn %q: %v", out.Relations[i].CreatedOn, err)
		}
		entries[i] = out.Relations[i].String()
	}
	return entries
}

// hasRelations reads hasRelations of each item through REST.
func hasRelations(t *testing.T, c *loupetest.Client, ids ...string) []bool {
	t.Helper()
	out := make([]bool, len(ids))
	for i, id := range ids {
		v, ok := c.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()["hasRelations"].(bool)
		if !ok {
			t.Fatalf("item %s: hasRelations is not a boolean", id)
		}
		out[i] = v
	}
	return out
}

func wantFlags(t *testing.T, c *loupetest.Client, ids []string, want ...bool) {
	t.Helper()
	if got := hasRelations(t, c, ids...); !slices.Equal(got, want) {
		t.Fatalf("hasRelations of %v = %v, want %v", ids, got, want)
	}
}

func wantRelations(t *testing.T, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("relations:\n got %q\nwant %q", got, want)
	}
}

func modifiedOn(t *testing.T, c *loupetest.Client, id string) string {
	t.Helper()
	return c.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()["modifiedOn"].(string)
}

// tick lets the clock move on, so that a new write's timestamp differs at
// the milliseconds the API shows.
func tick() { time.Sleep(3 * time.Millisecond) }

func TestPutRelationsReplacesTheSetAndKeepsHasRelations(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var it []string
	for i := range 5 {
		it = append(it, a.CreateItem(t, map[string]any{"title": fmt.Sprintf("Item %d", i), "itemType": "video"}))
	}
	A, B, C, D, E := it[0], it[1], it[2], it[3], it[4]
	wantFlags(t, a, it, false, false, false, false, false)
	before := modifiedOn(t, a, A)
	tick()

	// {relatedItemIds: [...]}
	got := relationsOf(t, a.Put(t, "/api/v1/items/"+A+"/relations/version", map[string]any{"relatedItemIds": []string{B, C}}))
	wantRelations(t, got, "version outgoing "+B, "version outgoing "+C)
	wantFlags(t, a, it, true, true, true, false, false)
	if after := modifiedOn(t, a, A); after <= before {
		t.Fatalf("modifiedOn of the item written from: %s, then %s", before, after)
	}
	bModified := modifiedOn(t, a, B)

	// The other ends see incoming relations; GET lists both directions.
	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+B+"/relations")), "version incoming "+A)
	// A bare array is the same body; another type adds to the item's relations.
	got = relationsOf(t, a.Put(t, "/api/v1/items/"+D+"/relations/sequel", []string{A}))
	wantRelations(t, got, "sequel outgoing "+A)
	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+A+"/relations")),
		"sequel incoming "+D, "version outgoing "+B, "version outgoing "+C)
	wantFlags(t, a, it, true, true, true, true, false)
	var createdC string
	{
		var out struct{ Relations []relationEntry }
		a.Get(t, "/api/v1/items/"+A+"/relations").JSON(&out)
		createdC = out.Relations[2].CreatedOn
	}
	tick()

	// Replacing: B goes, C stays (keeping when it was made), E comes.
	got = relationsOf(t, a.Put(t, "/api/v1/items/"+A+"/relations/version", map[string]any{"relatedItemIds": []string{E, C}}))
	wantRelations(t, got, "sequel incoming "+D, "version outgoing "+C, "version outgoing "+E)
	wantFlags(t, a, it, true, false, true, true, true)
	var out struct{ Relations []relationEntry }
	a.Get(t, "/api/v1/items/"+A+"/relations").JSON(&out)
	if out.Relations[1].CreatedOn != createdC || out.Relations[2].CreatedOn <= createdC {
		t.Fatalf("createdOn of C %s then %s, of E %s", createdC, out.Relations[1].CreatedOn, out.Relations[2].CreatedOn)
	}
	// Only the item written from is modified.
	if got := modifiedOn(t, a, B); got != bModified {
		t.Fatalf("modifiedOn of the other end moved: %s, then %s", bModified, got)
	}

	// The same set again changes nothing, modifiedOn included.
	aModified := modifiedOn(t, a, A)
	tick()
	relationsOf(t, a.Put(t, "/api/v1/items/"+A+"/relations/version", []string{C, E}))
	if got := modifiedOn(t, a, A); got != aModified {
		t.Fatalf("a write that changed nothing moved modifiedOn: %s, then %s", aModified, got)
	}

	// An empty set removes the type; A keeps the incoming sequel.
	wantRelations(t, relationsOf(t, a.Put(t, "/api/v1/items/"+A+"/relations/version", []string{})), "sequel incoming "+D)
	wantFlags(t, a, it, true, false, false, true, false)
	wantRelations(t, relationsOf(t, a.Put(t, "/api/v1/items/"+D+"/relations/sequel", map[string]any{"relatedItemIds": []string{}})))
	wantFlags(t, a, it, false, false, false, false, false)
	if n := api.Count(t, `SELECT count(*) FROM item_relations`); n != 0 {
		t.Fatalf("%d relations left", n)
	}
}

func TestPutRelationsRejectsBadInputAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	item := a.CreateItem(t, map[string]any{"title": "Item", "itemType": "video"})
	related := a.CreateItem(t, map[string]any{"title": "Related", "itemType": "video"})
	other := a.CreateItem(t, map[string]any{"title": "Other", "itemType": "video"})
	binned := a.CreateItem(t, map[string]any{"title": "Binned", "itemType": "video"})
	a.Delete(t, "/api/v1/items/"+binned).Status(http.StatusOK)
	foreign := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "video"})
	relationsOf(t, a.Put(t, "/api/v1/items/"+item+"/relations/version", []string{related}))

	state := func() string {
		var rows []string
		if err := api.DB.Select(&rows, `SELECT item_id || ' ' || relation_type || ' ' || related_item_id || ' ' || created_on::text
			FROM item_relations ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		var flags []string
		if err := api.DB.Select(&flags, `SELECT id || ' ' || has_relations || ' ' || modified_on::text FROM items ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rows, flags)
	}
	before := state()
	many := make([]string, 1001)
	for i := range many {
		many[i] = other
	}

	path := "/api/v1/items/" + item + "/relations/"
	for _, tc := range []struct {
		name, path string
		body       any
		status     int
		message    string
	}{
		{"the item itself", path + "version", []string{other, item}, 400, "item " + item + " cannot be related to itself"},
		{"a missing item", path + "version", []string{other, absentID}, 400, "item " + absentID + " does not exist"},
		{"not an id", path + "version", []string{"nope"}, 400, "item nope does not exist"},
		{"an item in the recycle bin", path + "version", []string{binned}, 400, "item " + binned + " does not exist"},
		{"another tenant's item", path + "version", []string{other, foreign}, 400, "item " + foreign + " does not exist"},
		{"an id twice", path + "version", []string{other, other}, 400, "relatedItemIds lists " + other + " twice"},
		{"more than 1000", path + "version", many, 400, "at most 1000 related items of one type"},
		{"a type with a space", path + "has%20part", []string{other}, 400, `invalid relationType "has part": 1 to 64 letters, digits, _ and -, starting with a letter`},
		{"a type starting with a digit", path + "1st", []string{other}, 400, `invalid relationType "1st": 1 to 64 letters, digits, _ and -, starting with a letter`},
		{"a type of 65 characters", path + "a" + strings.Repeat("b", 64), []string{other}, 400, fmt.Sprintf("invalid relationType %q: 1 to 64 letters, digits, _ and -, starting with a letter", "a"+strings.Repeat("b", 64))},
		{"a body that is not JSON", path + "version", `[`, 400, "The server could not understand the request due to invalid syntax."},
		{"a body of another shape", path + "version", map[string]any{"ids": []string{other}}, 400, `the request body must be {"relatedItemIds": [...]}`},
		{"numbers for ids", path + "version", []any{1, 2}, 400, "item 1 does not exist"},
		{"a missing item written from", "/api/v1/items/" + absentID + "/relations/version", []string{other}, 404, "The server can not find requested resource."},
		{"an item written from in the recycle bin", "/api/v1/items/" + binned + "/relations/version", []string{other}, 404, "The server can not find requested resource."},
		{"another tenant's item written from", "/api/v1/items/" + foreign + "/relations/version", []string{other}, 404, "The server can not find requested resource."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.Put(t, tc.path, tc.body).Envelope(tc.status, tc.message)
		})
	}
	if after := state(); after != before {
		t.Fatalf("refused writes changed the relations:\nbefore %s\n after %s", before, after)
	}
	// The longest type there may be is fine.
	relationsOf(t, a.Put(t, path+"a"+strings.Repeat("b", 63), []string{other}))
}

func TestDeleteRelation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	A := a.CreateItem(t, map[string]any{"title": "A", "itemType": "video"})
	B := a.CreateItem(t, map[string]any{"title": "B", "itemType": "video"})
	C := a.CreateItem(t, map[string]any{"title": "C", "itemType": "video"})
	ids := []string{A, B, C}
	relationsOf(t, a.Put(t, "/api/v1/items/"+A+"/relations/version", []string{B}))
	relationsOf(t, a.Put(t, "/api/v1/items/"+C+"/relations/version", []string{B}))
	wantFlags(t, a, ids, true, true, true)

	const syntax = "The server could not understand the request due to invalid syntax."
	const notFound = "The server can not find requested resource."
	rows := api.Count(t, `SELECT count(*) FROM item_relations`)
	for _, tc := range []struct {
		name, path string
		status     int
		message    string
	}{
		{"a bad relation type", "/api/v1/items/" + A + "/relations/9lives/" + B, 400, syntax},
		{"a type of 65 characters", "/api/v1/items/" + A + "/relations/" + strings.Repeat("v", 65) + "/" + B, 400, syntax},
		{"a related id that is no id", "/api/v1/items/" + A + "/relations/version/not-an-id", 400, syntax},
		{"the item itself", "/api/v1/items/" + A + "/relations/version/" + A, 400, syntax},
		{"a relation that does not exist", "/api/v1/items/" + B + "/relations/version/" + A, 404, notFound},
		{"a relation of another type", "/api/v1/items/" + A + "/relations/sequel/" + B, 404, notFound},
		{"a missing item", "/api/v1/items/" + absentID + "/relations/version/" + B, 404, notFound},
		{"an item that is no id", "/api/v1/items/x/relations/version/" + B, 404, notFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := a.Delete(t, tc.path).Envelope(tc.status, tc.message)
			// The spec's message is fixed; the developer message says what is wrong.
			if dm, _ := env["developerMessage"].(string); tc.status == 400 && dm == "" {
				t.Fatalf("no developerMessage: %v", env)
			}
		})
	}
	// Another tenant finds nothing.
	b.Delete(t, "/api/v1/items/"+A+"/relations/version/"+B).Envelope(404, notFound)
	if n := api.Count(t, `SELECT count(*) FROM item_relations`); n != rows {
		t.Fatalf("refused deletes changed the relations: %d, then %d", rows, n)
	}

	// B keeps C's relation after A's goes; then it has none.
	before := modifiedOn(t, a, A)
	tick()
	wantRelations(t, relationsOf(t, a.Delete(t, "/api/v1/items/"+A+"/relations/version/"+B)))
	wantFlags(t, a, ids, false, true, true)
	if after := modifiedOn(t, a, A); after <= before {
		t.Fatalf("modifiedOn of the item written from: %s, then %s", before, after)
	}
	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+B+"/relations")), "version incoming "+C)
	wantRelations(t, relationsOf(t, a.Delete(t, "/api/v1/items/"+C+"/relations/version/"+B)))
	wantFlags(t, a, ids, false, false, false)
	a.Delete(t, "/api/v1/items/"+C+"/relations/version/"+B).Envelope(404, notFound)
}

func TestGetRelations(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	A := a.CreateItem(t, map[string]any{"title": "A", "itemType": "video"})
	B := a.CreateItem(t, map[string]any{"title": "B", "itemType": "video"})
	C := a.CreateItem(t, map[string]any{"title": "C", "itemType": "video"})

	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+A+"/relations")))
	relationsOf(t, a.Put(t, "/api/v1/items/"+A+"/relations/version", []string{C, B}))
	relationsOf(t, a.Put(t, "/api/v1/items/"+B+"/relations/version", []string{A}))
	relationsOf(t, a.Put(t, "/api/v1/items/"+C+"/relations/derivedFrom", []string{A}))

	// By type, outgoing before incoming, then as made.
	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+A+"/relations")),
		"derivedFrom incoming "+C, "version outgoing "+B, "version outgoing "+C, "version incoming "+B)

	// A related item in the recycle bin keeps its relations (they come back
	// with it), and so does the flag of the item related to it.
	a.Delete(t, "/api/v1/items/"+C).Status(http.StatusOK)
	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+A+"/relations")),
		"derivedFrom incoming "+C, "version outgoing "+B, "version outgoing "+C, "version incoming "+B)
	// The binned item itself is not found, nor is anything of another tenant.
	const notFound = "The server can not find requested resource."
	a.Get(t, "/api/v1/items/"+C+"/relations").Envelope(404, notFound)
	b.Get(t, "/api/v1/items/"+A+"/relations").Envelope(404, notFound)
	a.Get(t, "/api/v1/items/"+absentID+"/relations").Envelope(404, notFound)
	a.Post(t, "/api/v1/items/"+C+"/undelete", nil).Status(http.StatusOK)
	wantRelations(t, relationsOf(t, a.Get(t, "/api/v1/items/"+C+"/relations")),
		"derivedFrom outgoing "+A, "version incoming "+A)
}
