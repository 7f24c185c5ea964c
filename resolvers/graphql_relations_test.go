package resolvers_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// gqlRelation is a Relation with its related item.
type gqlRelation struct {
	RelationType  string `json:"relationType"`
	Direction     string `json:"direction"`
	RelatedItemID string `json:"relatedItemId"`
	CreatedOn     string `json:"createdOn"`
	Item          *struct {
		ID           string `json:"id"`
		Title        string `json:"title"`
		HasRelations bool   `json:"hasRelations"`
	} `json:"item"`
}

const relationFields = `relationType direction relatedItemId createdOn item { id title hasRelations }`

// relationStrings is "type direction relatedTitle" per relation (the title
// of the related item through Relation.item, or null).
func relationStrings(t *testing.T, rels []gqlRelation) []string {
	t.Helper()
	out := []string{}
	for _, r := range rels {
		title := "null"
		if r.Item != nil {
			if r.Item.ID != r.RelatedItemID {
				t.Fatalf("relation to %s resolved item %s", r.RelatedItemID, r.Item.ID)
			}
			title = r.Item.Title
		}
		out = append(out, r.RelationType+" "+r.Direction+" "+title)
	}
	return out
}

func setRelations(t *testing.T, c *loupetest.Client, itemID, relationType string, ids ...string) *loupetest.GraphQLResponse {
	t.Helper()
	if ids == nil {
		ids = []string{}
	}
	return c.GraphQL(t, `mutation($in: SetRelationsInput!) { setRelations(input: $in) { relations { `+relationFields+` } } }`,
		map[string]any{"in": map[string]any{"itemId": itemID, "relationType": relationType, "relatedItemIds": ids}})
}

func deleteRelation(t *testing.T, c *loupetest.Client, itemID, relationType, relatedID string) *loupetest.GraphQLResponse {
	t.Helper()
	return c.GraphQL(t, `mutation($in: DeleteRelationInput!) { deleteRelation(input: $in) { relations { `+relationFields+` } } }`,
		map[string]any{"in": map[string]any{"itemId": itemID, "relationType": relationType, "relatedItemId": relatedID}})
}

// relationsPayload decodes {<mutation>: {relations}}.
func relationsPayload(t *testing.T, r *loupetest.GraphQLResponse, mutation string) []string {
	t.Helper()
	var out map[string]struct{ Relations []gqlRelation }
	r.OK(&out)
	return relationStrings(t, out[mutation].Relations)
}

// itemRelations reads an item's hasRelations and relations (of a type).
func itemRelations(t *testing.T, c *loupetest.Client, id string, relationType *string) (bool, []string) {
	t.Helper()
	var out struct {
		Item struct {
			HasRelations bool          `json:"hasRelations"`
			Relations    []gqlRelation `json:"relations"`
		}
	}
	c.GraphQL(t, `query($id: ID!, $type: String) { item(id: $id) { hasRelations relations(relationType: $type) { `+relationFields+` } } }`,
		map[string]any{"id": id, "type": relationType}).OK(&out)
	return out.Item.HasRelations, relationStrings(t, out.Item.Relations)
}

func wantStrings(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestRelationMutations(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	A := createItem(t, a, map[string]any{"title": "A", "itemType": "video"}).ID
	B := createItem(t, a, map[string]any{"title": "B", "itemType": "video"}).ID
	C := createItem(t, a, map[string]any{"title": "C", "itemType": "video"}).ID
	foreign := createItem(t, b, map[string]any{"title": "B's", "itemType": "video"}).ID

	// The payload's related items are resolved, with their flags after the write.
	wantStrings(t, "setRelations", relationsPayload(t, setRelations(t, a, A, "version", B, C), "setRelations"),
		"version outgoing B", "version outgoing C")
	wantStrings(t, "setRelations", relationsPayload(t, setRelations(t, a, C, "derivedFrom", A), "setRelations"),
		"derivedFrom outgoing A", "version incoming A")
	has, rels := itemRelations(t, a, A, nil)
	wantStrings(t, "relations of A", rels, "derivedFrom incoming C", "version outgoing B", "version outgoing C")
	if !has {
		t.Fatal("A: hasRelations false")
	}
	// relationType filters.
	typ := "derivedFrom"
	_, rels = itemRelations(t, a, A, &typ)
	wantStrings(t, "derivedFrom relations of A", rels, "derivedFrom incoming C")
	typ = "nothing"
	if _, rels = itemRelations(t, a, A, &typ); len(rels) != 0 {
		t.Fatalf("relations of an unused type: %v", rels)
	}
	typ = "no such type"
	wantError(t, a.GraphQL(t, `query($id: ID!, $type: String) { item(id: $id) { relations(relationType: $type) { relationType } } }`,
		map[string]any{"id": A, "type": typ}), "BAD_USER_INPUT", 400)

	// Relation.item is null while the related item is in the recycle bin.
	mutateID(t, a, "deleteItem", B, "id").OK(nil)
	_, rels = itemRelations(t, a, A, nil)
	wantStrings(t, "relations of A with B binned", rels, "derivedFrom incoming C", "version outgoing null", "version outgoing C")
	mutateID(t, a, "undeleteItem", B, "id").OK(nil)

	wantStrings(t, "deleteRelation", relationsPayload(t, deleteRelation(t, a, A, "version", B), "deleteRelation"),
		"derivedFrom incoming C", "version outgoing C")
	if has, _ := itemRelations(t, a, B, nil); has {
		t.Fatal("B: hasRelations true without relations")
	}

	for _, tc := range []struct {
		name   string
		r      func() *loupetest.GraphQLResponse
		code   string
		status int
		msg    string
	}{
		{"set to another tenant's item", func() *loupetest.GraphQLResponse { return setRelations(t, a, A, "version", foreign) },
			"BAD_USER_INPUT", 400, "item " + foreign + " does not exist"},
		{"set from another tenant", func() *loupetest.GraphQLResponse { return setRelations(t, b, A, "version", foreign) },
			"NOT_FOUND", 404, "The server can not find requested resource."},
		{"set a bad type", func() *loupetest.GraphQLResponse { return setRelations(t, a, A, "-x", B) },
			"BAD_USER_INPUT", 400, `invalid relationType "-x": 1 to 64 letters, digits, _ and -, starting with a letter`},
		{"delete to itself", func() *loupetest.GraphQLResponse { return deleteRelation(t, a, A, "version", A) },
			"BAD_USER_INPUT", 400, "The server could not understand the request due to invalid syntax."},
		{"delete from another tenant", func() *loupetest.GraphQLResponse { return deleteRelation(t, b, A, "version", C) },
			"NOT_FOUND", 404, "The server can not find requested resource."},
		{"delete what is not there", func() *loupetest.GraphQLResponse { return deleteRelation(t, a, A, "version", B) },
			"NOT_FOUND", 404, "The server can not find requested resource."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := wantError(t, tc.r(), tc.code, tc.status); msg != tc.msg {
				t.Fatalf("message %q, want %q", msg, tc.msg)
			}
		})
	}
	_, rels = itemRelations(t, a, A, nil)
	wantStrings(t, "relations of A after refused writes", rels, "derivedFrom incoming C", "version outgoing C")
}

// TestHasRelationsFollowsBothEnds walks the flag of both ends through
// every transition: first relation, second, removal of one, of the last,
// replacement of a set, and relations in both directions.
func TestHasRelationsFollowsBothEnds(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var ids []string
	for _, title := range []string{"A", "B", "C"} {
		ids = append(ids, createItem(t, a, map[string]any{"title": title, "itemType": "video"}).ID)
	}
	A, B, C := ids[0], ids[1], ids[2]
	flags := func() []bool {
		var out struct {
			Nodes []struct {
				HasRelations bool `json:"hasRelations"`
			}
		}
		a.GraphQL(t, `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Item { hasRelations } } }`,
			map[string]any{"ids": ids}).OK(&out)
		got := make([]bool, len(out.Nodes))
		for i, n := range out.Nodes {
			got[i] = n.HasRelations
		}
		// The column agrees with the relations themselves.
		var stored []bool
		if err := api.DB.Select(&stored, `SELECT i.has_relations = (EXISTS (SELECT 1 FROM item_relations r
			WHERE r.item_id = i.id OR r.related_item_id = i.id)) FROM items i WHERE i.tenant_id = $1`, a.TenantID); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(stored, false) {
			t.Fatal("has_relations disagrees with item_relations")
		}
		return got
	}
	for _, step := range []struct {
		name string
		do   func() *loupetest.GraphQLResponse
		want []bool
	}{
		{"A→B", func() *loupetest.GraphQLResponse { return setRelations(t, a, A, "link", B) }, []bool{true, true, false}},
		{"B→A as well", func() *loupetest.GraphQLResponse { return setRelations(t, a, B, "link", A) }, []bool{true, true, false}},
		{"A→B gone, B→A stays", func() *loupetest.GraphQLResponse { return setRelations(t, a, A, "link") }, []bool{true, true, false}},
		{"B→A gone", func() *loupetest.GraphQLResponse { return deleteRelation(t, a, B, "link", A) }, []bool{false, false, false}},
		{"A→B, A→C", func() *loupetest.GraphQLResponse { return setRelations(t, a, A, "link", B, C) }, []bool{true, true, true}},
		{"A→C only", func() *loupetest.GraphQLResponse { return setRelations(t, a, A, "link", C) }, []bool{true, false, true}},
		{"C→B of another type", func() *loupetest.GraphQLResponse { return setRelations(t, a, C, "other", B) }, []bool{true, true, true}},
		{"A→C gone", func() *loupetest.GraphQLResponse { return deleteRelation(t, a, A, "link", C) }, []bool{false, true, true}},
		{"C→B gone", func() *loupetest.GraphQLResponse { return setRelations(t, a, C, "other") }, []bool{false, false, false}},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.do().OK(nil)
			if got := flags(); !slices.Equal(got, step.want) {
				t.Fatalf("hasRelations of A, B, C = %v, want %v", got, step.want)
			}
		})
	}
}

// TestConcurrentRelationWritesKeepHasRelations races writes that share
// their other end: whatever the interleaving, the flag ends up right.
func TestConcurrentRelationWritesKeepHasRelations(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	hub := createItem(t, a, map[string]any{"title": "Hub", "itemType": "video"}).ID
	var spokes []string
	for i := range 6 {
		spokes = append(spokes, createItem(t, a, map[string]any{"title": fmt.Sprint("Spoke ", i), "itemType": "video"}).ID)
	}
	for round := range 3 {
		done := make(chan error)
		for _, s := range spokes {
			go func() {
				var err error
				for range 4 {
					// Each spoke links to the hub and unlinks again; odd
					// rounds leave the link in place.
					for _, ids := range [][]string{{hub}, {}, {hub}} {
						r := setRelations(t, a, s, "link", ids...)
						if len(r.Errors) > 0 {
							err = fmt.Errorf("%+v", r.Errors)
						}
					}
					if round%2 == 0 {
						setRelations(t, a, s, "link")
					}
				}
				done <- err
			}()
		}
		for range spokes {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		want := round%2 == 1
		if has, _ := itemRelations(t, a, hub, nil); has != want {
			t.Fatalf("round %d: hub hasRelations %v, want %v", round, has, want)
		}
		if round%2 == 1 {
			for _, s := range spokes {
				setRelations(t, a, s, "link").OK(nil)
			}
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE has_relations`); n != 0 {
		t.Fatalf("%d items flagged without relations", n)
	}
}

// TestItemsWithCommentsRelationsAndFoldersCostConstantStatements is the
// issue's requirement: a query for 100 items with their comments,
// relations→item and folders runs a constant number of SQL statements.
func TestItemsWithCommentsRelationsAndFoldersCostConstantStatements(t *testing.T) {
	const n = 100
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	other := a.User(t, "other@a.test", nil, false)
	folder := createItem(t, a, map[string]any{"title": "Projects", "itemType": "folder"}).ID
	binned := createItem(t, a, map[string]any{"title": "Binned", "itemType": "video"}).ID
	var items []string // oldest first
	for i := range n {
		items = append(items, createItem(t, a, map[string]any{"title": fmt.Sprintf("Clip %03d", i), "itemType": "video",
			"folderParents": []string{folder}}).ID)
	}
	// Every item relates to the next (so each has an outgoing and an
	// incoming relation); the first also to an item in the recycle bin.
	for i, id := range items {
		related := []string{items[(i+1)%n]}
		if i == 0 {
			related = append(related, binned)
		}
		setRelations(t, a, id, "next", related...).OK(nil)
	}
	mutateID(t, a, "deleteItem", binned, "id").OK(nil)
	// Four comments an item, each with two reactions, go in behind the API.
	for _, id := range items {
		for k := range 4 {
			cid := loupe.NewID()
			if _, err := api.DB.Exec(`INSERT INTO comments (tenant_id, id, item_id, type, text, author_id, created_on, modified_on)
				VALUES ($1, $2, $3, 'top', $4, $5, now(), now())`, a.TenantID, cid, id, fmt.Sprint("comment ", k), a.UserID); err != nil {
				t.Fatal(err)
			}
			if _, err := api.DB.Exec(`INSERT INTO comment_reactions (tenant_id, comment_id, user_id, reaction, created_on)
				VALUES ($1, $2, $3, '👍', now()), ($1, $2, $4, '🎉', now())`, a.TenantID, cid, a.UserID, other.UserID); err != nil {
				t.Fatal(err)
			}
		}
	}

	const query = `query($first: Int) { items(first: $first, filter: {itemType: "video"}) { nodes {
		id title hasRelations
		comments(first: 3) { nodes { id text reactions { reaction userId } } mScrollId }
		relations { relationType direction relatedItemId item { id title } }
		folders { id name }
	} } }`
	type node struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Comments struct {
			Nodes []struct {
				Text      string `json:"text"`
				Reactions []struct {
					Reaction string `json:"reaction"`
				} `json:"reactions"`
			} `json:"nodes"`
			MScrollID *string `json:"mScrollId"`
		} `json:"comments"`
		Relations []gqlRelation `json:"relations"`
		Folders   []struct {
			ID string `json:"id"`
		} `json:"folders"`
	}
	l := &library{api: api, client: a}
	counts := map[int][]int64{}
	for range rounds {
		for _, size := range []int{5, n} {
			var out struct {
				Items struct{ Nodes []node }
			}
			counts[size] = append(counts[size], l.statements(t, query, map[string]any{"first": size}, &out))
			if len(out.Items.Nodes) != size {
				t.Fatalf("first %d: %d nodes", size, len(out.Items.Nodes))
			}
			for i, it := range out.Items.Nodes {
				k := n - 1 - i // newest first
				if it.ID != items[k] {
					t.Fatalf("node %d is %s, want %s", i, it.ID, items[k])
				}
				c := it.Comments
				if len(c.Nodes) != 3 || c.Nodes[0].Text != "comment 0" || c.Nodes[2].Text != "comment 2" ||
					len(c.Nodes[1].Reactions) != 2 || c.MScrollID == nil {
					t.Fatalf("%s: comments %+v", it.Title, c)
				}
				want := []string{"next outgoing " + fmt.Sprintf("Clip %03d", (k+1)%n), "next incoming " + fmt.Sprintf("Clip %03d", (k+n-1)%n)}
				if k == 0 {
					// Both made at once, in id order: the binned item is older.
					want = []string{"next outgoing null", want[0], want[1]}
				}
				wantStrings(t, it.Title+" relations", relationStrings(t, it.Relations), want...)
				if len(it.Folders) != 1 || it.Folders[0].ID != folder {
					t.Fatalf("%s: folders %+v", it.Title, it.Folders)
				}
			}
		}
	}
	t.Logf("statements of items(first: N) with comments(first: 3) and reactions, relations { item } and folders: %v", counts)
	// 1 page of items, 1 comments with their reactions, 1 relations,
	// 1 related items, 1 folders (the key is cached: no authentication).
	const want = 5
	for _, runs := range counts {
		for _, c := range runs {
			if c != want {
				t.Fatalf("statements per N over %d runs each: %v; want %d whatever N (N+1 in comments, relations "+
					"or Relation.item?)", rounds, counts, want)
			}
		}
	}
}

// Mutations that answer relations resolve the related items in one query too.
func TestRelationsPayloadResolvesItemsInOneStatement(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	from := createItem(t, a, map[string]any{"title": "From", "itemType": "video"}).ID
	var related []string
	for i := range 30 {
		related = append(related, createItem(t, a, map[string]any{"title": fmt.Sprint("To ", i), "itemType": "video"}).ID)
	}
	l := &library{api: api, client: a}
	var out struct {
		SetRelations struct{ Relations []gqlRelation }
	}
	got := l.statements(t, `mutation($in: SetRelationsInput!) { setRelations(input: $in) { relations { `+relationFields+` } } }`,
		map[string]any{"in": map[string]any{"itemId": from, "relationType": "parts", "relatedItemIds": related}}, &out)
	if len(out.SetRelations.Relations) != 30 {
		t.Fatalf("%d relations", len(out.SetRelations.Relations))
	}
	for _, r := range out.SetRelations.Relations {
		if r.Item == nil || !r.Item.HasRelations {
			t.Fatalf("relation %+v: item not resolved or not flagged", r)
		}
	}
	// In the transaction: lock, item check, related items check, drop, add,
	// flags, the events of both ends (one statement), relations; 1 for all
	// related items (the key is cached).
	t.Logf("setRelations of 30 items with relations { item }: %d statements", got)
	if got != 9 {
		t.Fatalf("setRelations answering 30 related items cost %d statements, want 9", got)
	}
}
