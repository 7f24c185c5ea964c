package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The access-control matrix of docs/access-control.md through GraphQL, on
// the fixture of rest/access_test.go (the same folders and items):
//
//	pub       top folder, the whole tenant sees and changes it (the default)
//	  shared  made in pub, then visible to and updatable by editors
//	priv      top folder owned by owner, visible to editors, updatable by the
//	          group "nobody" (so: by its owner and the admins)
//	  sub     made in priv after priv's access was set: copies priv's rules
//	  openSub made in priv, then visibleTo tenant (updatableBy stays)
//	idShared  top folder for editors, the group named by its id
//	loose, privItem (priv), bothItem (priv and pub), sharedItem (shared),
//	subItem (sub), openItem (openSub), idItem (idShared)
//
// Invisible answers exactly like missing: the same query with a random
// missing id answers the same body (the id swapped); node(id) is null.
// Visible but not updatable answers FORBIDDEN and changes nothing.

type gqaPathEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func gqaPathStrings(paths [][]gqaPathEntry) []string {
	out := []string{}
	for _, p := range paths {
		ids := []string{}
		for _, e := range p {
			ids = append(ids, e.ID)
		}
		out = append(out, strings.Join(ids, "/"))
	}
	sort.Strings(out)
	return out
}

func gqaRow(user, op, target string) string { return user + "/" + op + "/" + target }

// gqaRaw posts a query and answers the raw body.
func gqaRaw(t *testing.T, c *loupetest.Client, query string, vars map[string]any) string {
	t.Helper()
	return string(c.Post(t, "/graphql", map[string]any{"query": query, "variables": vars}).Body)
}

// gqaVars builds the variables with id in place of every "{id}".
func gqaVars(vars map[string]any, id string) map[string]any {
	b, _ := json.Marshal(vars)
	var out map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(b), "{id}", id)), &out); err != nil {
		panic(err)
	}
	return out
}

// gqaSameAsMissing: the answer for id is the answer for missingID, the id
// swapped.
func gqaSameAsMissing(t *testing.T, c *loupetest.Client, query string, vars map[string]any, id string) {
	t.Helper()
	got := strings.ReplaceAll(gqaRaw(t, c, query, gqaVars(vars, id)), id, missingID)
	want := gqaRaw(t, c, query, gqaVars(vars, missingID))
	if got != want {
		t.Fatalf("invisible target answers %s\nwant what a missing id answers: %s", got, want)
	}
}

func TestGraphQLAccessByID(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	rows := 0
	type read struct {
		op, query string
		folder    bool
		all       bool
	}
	reads := []read{
		{op: "item", query: `query($id: ID!) { item(id: $id) { id } }`, all: true},
		{op: "item.comments", query: `query($id: ID!) { item(id: $id) { id comments { nodes { id } } } }`},
		{op: "item.attachments", query: `query($id: ID!) { item(id: $id) { id attachments { fileName } } }`},
		{op: "item.ancestry", query: `query($id: ID!) { item(id: $id) { id ancestry { id } } }`},
		{op: "folder", query: `query($id: ID!) { folder(id: $id) { id } }`, folder: true},
		{op: "folderContent", query: `query($id: ID!) { folderContent(folderId: $id) { total hits { id } } }`, folder: true},
	}
	for _, user := range loupetest.AccessUsers {
		c := w.Users[user]
		for _, r := range reads {
			for _, tg := range loupetest.AccessTargets {
				if !r.all && r.folder != tg.Folder {
					continue
				}
				rows++
				id := w.IDs[tg.Name]
				t.Run(gqaRow(user, r.op, tg.Name), func(t *testing.T) {
					if tg.VisibleTo(user) {
						c.GraphQL(t, r.query, map[string]any{"id": id}).OK(nil)
						return
					}
					gqaSameAsMissing(t, c, r.query, map[string]any{"id": "{id}"}, id)
				})
			}
		}
		for _, tg := range loupetest.AccessTargets {
			rows++
			t.Run(gqaRow(user, "node", tg.Name), func(t *testing.T) {
				var out struct {
					Node *struct {
						ID string `json:"id"`
					} `json:"node"`
				}
				c.GraphQL(t, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": w.IDs[tg.Name]}).OK(&out)
				if tg.VisibleTo(user) != (out.Node != nil) {
					t.Fatalf("node = %+v, visible %v", out.Node, tg.VisibleTo(user))
				}
			})
		}
		rows++
		t.Run(gqaRow(user, "nodes", "all"), func(t *testing.T) {
			ids := []string{}
			for _, tg := range loupetest.AccessTargets {
				ids = append(ids, w.IDs[tg.Name])
			}
			var out struct {
				Nodes []*struct {
					ID string `json:"id"`
				} `json:"nodes"`
			}
			c.GraphQL(t, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": ids}).OK(&out)
			if len(out.Nodes) != len(ids) {
				t.Fatalf("%d nodes for %d ids", len(out.Nodes), len(ids))
			}
			for i, tg := range loupetest.AccessTargets {
				if tg.VisibleTo(user) != (out.Nodes[i] != nil) {
					t.Errorf("%s: node %+v, visible %v", tg.Name, out.Nodes[i], tg.VisibleTo(user))
				}
			}
		})
	}
	t.Logf("%d rows", rows)
}

func TestGraphQLAccessLists(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	allNames := loupetest.AccessNames(func(loupetest.AccessTarget) bool { return true })
	related := []string{}
	for _, n := range loupetest.AccessNames(func(tg loupetest.AccessTarget) bool { return !tg.Folder && tg.Name != "loose" }) {
		related = append(related, w.IDs[n])
	}
	w.Admin().Put(t, "/api/v1/items/"+w.IDs["loose"]+"/relations/acc", related).Status(200)
	itemNames := loupetest.AccessNames(func(tg loupetest.AccessTarget) bool { return !tg.Folder })
	folderNames := loupetest.AccessNames(func(tg loupetest.AccessTarget) bool { return tg.Folder })
	rows := 0
	run := func(name string, f func(t *testing.T)) {
		rows++
		t.Run(name, f)
	}
	type conn struct {
		TotalCount int `json:"totalCount"`
		Nodes      []struct {
			ID string `json:"id"`
		} `json:"nodes"`
	}
	idsOf := func(c conn) []string {
		out := []string{}
		for _, n := range c.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	itemsQ := `query($f: ItemFilter) { items(first: 100, filter: $f) { totalCount nodes { id } } }`
	items := func(t *testing.T, c *loupetest.Client, filter map[string]any) conn {
		var out struct{ Items conn }
		c.GraphQL(t, itemsQ, map[string]any{"f": filter}).OK(&out)
		if out.Items.TotalCount != len(out.Items.Nodes) {
			t.Errorf("totalCount %d, but %d nodes on the only page", out.Items.TotalCount, len(out.Items.Nodes))
		}
		return out.Items
	}
	// restrict keeps the ids of want that the admin's answer holds too, so
	// a list that leaves out folders (or items) is still compared fairly.
	restrict := func(want, adminSaw []string) []string {
		out := []string{}
		for _, id := range want {
			if slices.Contains(adminSaw, id) {
				out = append(out, id)
			}
		}
		return out
	}

	for _, user := range loupetest.AccessUsers {
		c := w.Users[user]
		run(gqaRow(user, "items", "tenant"), func(t *testing.T) {
			got := items(t, c, nil)
			adminSaw := w.FixtureOnly(idsOf(items(t, w.Admin(), nil)))
			w.SameIDs(t, "items", w.FixtureOnly(idsOf(got)), restrict(w.VisibleIDs(user, allNames), adminSaw))
		})
		for _, f := range folderNames {
			tg := loupetest.AccessTargetNamed(f)
			run(gqaRow(user, "items(filter:{folderId})", f), func(t *testing.T) {
				if !tg.VisibleTo(user) {
					gqaSameAsMissing(t, c, itemsQ, map[string]any{"f": map[string]any{"folderId": "{id}"}}, w.IDs[f])
					return
				}
				filter := map[string]any{"folderId": w.IDs[f]}
				got := items(t, c, filter)
				adminSaw := idsOf(items(t, w.Admin(), filter))
				w.SameIDs(t, "items", idsOf(got), restrict(w.VisibleIDs(user, loupetest.AccessChildren(f)), adminSaw))
			})
			run(gqaRow(user, "folderContent hits", f), func(t *testing.T) {
				if !tg.VisibleTo(user) {
					return // TestGraphQLAccessByID
				}
				var out struct {
					FolderContent struct {
						Total int `json:"total"`
						Hits  []struct {
							ID   string `json:"id"`
							Item struct {
								ID string `json:"id"`
							} `json:"item"`
						} `json:"hits"`
					} `json:"folderContent"`
				}
				c.GraphQL(t, `query($id: ID!) { folderContent(folderId: $id, size: 1000) { total hits { id item { id } } } }`,
					map[string]any{"id": w.IDs[f]}).OK(&out)
				got := []string{}
				for _, h := range out.FolderContent.Hits {
					got = append(got, h.ID)
				}
				want := w.VisibleIDs(user, loupetest.AccessChildren(f))
				if out.FolderContent.Total != len(want) {
					t.Errorf("total %d, want %d", out.FolderContent.Total, len(want))
				}
				w.SameIDs(t, "hits", got, want)
			})
			if !tg.VisibleTo(user) {
				continue
			}
			run(gqaRow(user, "Folder.children", f), func(t *testing.T) {
				var out struct {
					Folder struct {
						Children conn `json:"children"`
						Items    conn `json:"items"`
					} `json:"folder"`
				}
				c.GraphQL(t, `query($id: ID!) { folder(id: $id) { children(first: 50) { nodes { id } } items(first: 50) { nodes { id } } } }`,
					map[string]any{"id": w.IDs[f]}).OK(&out)
				kids := loupetest.AccessNames(func(x loupetest.AccessTarget) bool { return x.Folder && slices.Contains(x.Parents, f) })
				w.SameIDs(t, "children", idsOf(out.Folder.Children), w.VisibleIDs(user, kids))
				w.SameIDs(t, "items", idsOf(out.Folder.Items), w.VisibleIDs(user, loupetest.AccessChildren(f)))
			})
			if len(tg.Parents) > 0 {
				run(gqaRow(user, "Folder.parent", f), func(t *testing.T) {
					var out struct {
						Folder struct {
							ParentID *string `json:"parentId"`
							Parent   *struct {
								ID string `json:"id"`
							} `json:"parent"`
							Ancestors []gqaPathEntry `json:"ancestors"`
						} `json:"folder"`
					}
					c.GraphQL(t, `query($id: ID!) { folder(id: $id) { parentId parent { id } ancestors { id name } } }`,
						map[string]any{"id": w.IDs[f]}).OK(&out)
					p := tg.Parents[0]
					if loupetest.AccessTargetNamed(p).VisibleTo(user) {
						if out.Folder.Parent == nil || out.Folder.Parent.ID != w.IDs[p] {
							t.Fatalf("parent = %+v, want %s", out.Folder.Parent, p)
						}
					} else if out.Folder.Parent != nil {
						t.Fatalf("parent = %+v, want null (invisible)", out.Folder.Parent)
					}
					got := []string{}
					for _, e := range out.Folder.Ancestors {
						got = append(got, e.ID)
					}
					want := []string{}
					if ps := w.ExpectedPaths(user, f); len(ps) > 0 {
						want = strings.Split(ps[0], "/")
					}
					if !slices.Equal(got, want) {
						t.Fatalf("ancestors %v, want %v", w.NamesOf(got), w.NamesOf(want))
					}
				})
			}
		}
		for _, n := range itemNames {
			tg := loupetest.AccessTargetNamed(n)
			if !tg.VisibleTo(user) {
				continue
			}
			run(gqaRow(user, "Item.folders and ancestry", n), func(t *testing.T) {
				var out struct {
					Item struct {
						Folders []struct {
							ID string `json:"id"`
						} `json:"folders"`
						Ancestry [][]gqaPathEntry `json:"ancestry"`
					} `json:"item"`
				}
				c.GraphQL(t, `query($id: ID!) { item(id: $id) { folders { id } ancestry { id name } } }`,
					map[string]any{"id": w.IDs[n]}).OK(&out)
				got := []string{}
				for _, f := range out.Item.Folders {
					got = append(got, f.ID)
				}
				w.SameIDs(t, "folders", got, w.VisibleIDs(user, tg.Parents))
				if g, want := gqaPathStrings(out.Item.Ancestry), w.ExpectedPaths(user, n); !slices.Equal(g, want) {
					t.Fatalf("ancestry %v, want %v", g, want)
				}
			})
		}
		run(gqaRow(user, "Relation.item", "loose → every item"), func(t *testing.T) {
			if user == "other" {
				return // loose is missing for another tenant: TestGraphQLAccessByID
			}
			var out struct {
				Item struct {
					Relations []struct {
						RelatedItemID string `json:"relatedItemId"`
						Item          *struct {
							ID string `json:"id"`
						} `json:"item"`
					} `json:"relations"`
				} `json:"item"`
			}
			c.GraphQL(t, `query($id: ID!) { item(id: $id) { relations(relationType: "acc") { relatedItemId item { id } } } }`,
				map[string]any{"id": w.IDs["loose"]}).OK(&out)
			// Relations to items the user may not see are not listed;
			// every listed one resolves its item.
			want := 0
			for _, id := range related {
				if loupetest.AccessTargetNamed(w.NamesOf([]string{id})[0]).VisibleTo(user) {
					want++
				}
			}
			if len(out.Item.Relations) != want {
				t.Fatalf("%d relations, want %d: %+v", len(out.Item.Relations), want, out.Item.Relations)
			}
			for _, r := range out.Item.Relations {
				n := w.NamesOf([]string{r.RelatedItemID})[0]
				if !loupetest.AccessTargetNamed(n).VisibleTo(user) || r.Item == nil {
					t.Errorf("relation to %s listed with item %+v", n, r.Item)
				}
			}
		})
		run(gqaRow(user, "folderAncestry", "all"), func(t *testing.T) {
			ids := []string{}
			for _, n := range allNames {
				ids = append(ids, w.IDs[n])
			}
			var out struct {
				FolderAncestry []struct {
					ID    string           `json:"id"`
					Paths [][]gqaPathEntry `json:"paths"`
				} `json:"folderAncestry"`
			}
			c.GraphQL(t, `query($ids: [ID!]!) { folderAncestry(ids: $ids) { id paths { id name } } }`,
				map[string]any{"ids": ids}).OK(&out)
			if len(out.FolderAncestry) != len(ids) {
				t.Fatalf("%d answers for %d ids", len(out.FolderAncestry), len(ids))
			}
			for i, n := range allNames {
				want := []string{}
				if user != "other" && loupetest.AccessTargetNamed(n).VisibleTo(user) {
					want = w.ExpectedPaths(user, n)
				}
				if g := gqaPathStrings(out.FolderAncestry[i].Paths); !slices.Equal(g, want) {
					t.Errorf("%s: paths %v, want %v", n, g, want)
				}
			}
		})
		run(gqaRow(user, "itemsByExternalId", "all"), func(t *testing.T) {
			ext := []string{}
			for _, n := range itemNames {
				ext = append(ext, "ext-"+n)
			}
			var out struct {
				ItemsByExternalID []struct {
					Status string  `json:"status"`
					ItemID *string `json:"itemId"`
				} `json:"itemsByExternalId"`
			}
			c.GraphQL(t, `query($e: [String!]!) { itemsByExternalId(externalIds: $e) { status itemId externalId } }`,
				map[string]any{"e": ext}).OK(&out)
			for i, n := range itemNames {
				got := out.ItemsByExternalID[i]
				visible := user != "other" && loupetest.AccessTargetNamed(n).VisibleTo(user)
				if visible && (got.Status != "success" || got.ItemID == nil || *got.ItemID != w.IDs[n]) ||
					!visible && (got.Status != "notFound" || got.ItemID != nil) {
					t.Errorf("%s: %+v, visible %v", n, got, visible)
				}
			}
		})
		run(gqaRow(user, "itemAnalytics", "all"), func(t *testing.T) {
			q := `query { itemAnalytics(size: 1000) { total hits { itemId } } }`
			read := func(c *loupetest.Client) []string {
				var out struct {
					ItemAnalytics struct {
						Total int `json:"total"`
						Hits  []struct {
							ItemID string `json:"itemId"`
						} `json:"hits"`
					} `json:"itemAnalytics"`
				}
				c.GraphQL(t, q, nil).OK(&out)
				if out.ItemAnalytics.Total != len(out.ItemAnalytics.Hits) {
					t.Errorf("total %d, but %d hits on the only page", out.ItemAnalytics.Total, len(out.ItemAnalytics.Hits))
				}
				ids := []string{}
				for _, h := range out.ItemAnalytics.Hits {
					ids = append(ids, h.ItemID)
				}
				return slices.Compact(w.FixtureOnly(ids))
			}
			got := read(c)
			w.SameIDs(t, "audited", got, restrict(w.VisibleIDs(user, allNames), read(w.Admin())))
		})
		for _, tg := range loupetest.AccessTargets {
			run(gqaRow(user, "itemAnalytics(filter:{itemId})", tg.Name), func(t *testing.T) {
				var out struct {
					ItemAnalytics struct {
						Total int   `json:"total"`
						Hits  []any `json:"hits"`
					} `json:"itemAnalytics"`
				}
				c.GraphQL(t, `query($id: ID!) { itemAnalytics(filter: {itemId: $id}) { total hits { id } } }`,
					map[string]any{"id": w.IDs[tg.Name]}).OK(&out)
				if visible := tg.VisibleTo(user); visible != (out.ItemAnalytics.Total > 0) || visible != (len(out.ItemAnalytics.Hits) > 0) {
					t.Fatalf("%+v, visible %v", out.ItemAnalytics, visible)
				}
			})
		}
		for _, withFolders := range []bool{false, true} {
			names := itemNames
			if withFolders {
				names = allNames
			}
			run(gqaRow(user, fmt.Sprintf("search includeFolders=%v", withFolders), "tenant"), func(t *testing.T) {
				var out struct {
					Search struct {
						Total    int `json:"total"`
						Embedded struct {
							Collection []struct {
								ID string `json:"id"`
							} `json:"collection"`
						} `json:"_embedded"`
					} `json:"search"`
				}
				c.GraphQL(t, `query($f: Boolean) { search(itemsPerPage: 100, includeFolders: $f) { total _embedded { collection { id } } } }`,
					map[string]any{"f": withFolders}).OK(&out)
				got := []string{}
				for _, h := range out.Search.Embedded.Collection {
					got = append(got, h.ID)
				}
				if out.Search.Total != len(got) {
					t.Errorf("total %d, but %d hits on the only page", out.Search.Total, len(got))
				}
				w.SameIDs(t, "hits", w.FixtureOnly(got), w.VisibleIDs(user, names))
			})
		}
		run(gqaRow(user, "itemChanges", "tenant"), func(t *testing.T) {
			read := func(c *loupetest.Client) []string {
				var out struct {
					ItemChanges conn `json:"itemChanges"`
				}
				c.GraphQL(t, `query { itemChanges(since: "1970-01-01T00:00:00Z", first: 100) { nodes { id } } }`, nil).OK(&out)
				return w.FixtureOnly(idsOf(out.ItemChanges))
			}
			w.SameIDs(t, "changes", read(c), restrict(w.VisibleIDs(user, allNames), read(w.Admin())))
		})
	}
	t.Logf("%d rows", rows)
}

// gqaSnapshot is what the admin reads about id through REST.
func gqaSnapshot(t *testing.T, w *loupetest.AccessWorld, id string, folder bool) string {
	t.Helper()
	var b bytes.Buffer
	paths := []string{"/api/v1/items/" + id, "/api/v1/items/" + id + "/comments"}
	if folder {
		paths = append(paths, "/api/v1/folders/"+id, "/api/v1/folders/"+id+"/content?size=1000")
	}
	for _, p := range paths {
		r := w.Admin().Get(t, p)
		fmt.Fprintf(&b, "%s %d %s\n", p, r.Code, r.Body)
	}
	return b.String()
}

type gqaMutation struct {
	op    string
	query string
	// vars has "{id}" for the target's id, "{item}" for a fresh item
	// anyone may change, "{folder}" for a fresh folder anyone may change.
	vars            map[string]any
	folder          bool
	visibleSuffices bool
	// deleted: the admin moves the target to the recycle bin first.
	deleted bool
}

var gqaMutations = []gqaMutation{
	{op: "deleteItem", query: `mutation($id: ID!) { deleteItem(input: {id: $id}) { id } }`, vars: map[string]any{"id": "{id}"}},
	{op: "toggleArchive", query: `mutation($id: ID!) { toggleArchive(input: {id: $id}) { type } }`, vars: map[string]any{"id": "{id}"}},
	{op: "updateItemMetadata", query: `mutation($id: ID!) { updateItemMetadata(input: {id: $id, metadataDelta: {formData: {default_description: "changed"}}}) { item { id } } }`,
		vars: map[string]any{"id": "{id}"}},
	{op: "createComment", query: `mutation($id: ID!) { createComment(input: {itemId: $id, text: "hello"}) { id } }`,
		vars: map[string]any{"id": "{id}"}, visibleSuffices: true},
	{op: "setCustomIcons", query: `mutation($id: ID!) { setCustomIcons(input: {itemId: $id, customIcons: {pos1: "star"}}) { customIcons { pos1 } } }`,
		vars: map[string]any{"id": "{id}"}},
	{op: "addItemToFolder (item)", query: `mutation($i: ID!, $f: ID!) { addItemToFolder(input: {itemId: $i, folderId: $f}) { id } }`,
		vars: map[string]any{"i": "{id}", "f": "{folder}"}},

	{op: "undeleteItem", query: `mutation($id: ID!) { undeleteItem(input: {id: $id}) { id } }`,
		vars: map[string]any{"id": "{id}"}, deleted: true},

	{op: "undeleteItem of a folder", query: `mutation($id: ID!) { undeleteItem(input: {id: $id}) { id } }`,
		vars: map[string]any{"id": "{id}"}, folder: true, deleted: true},
	{op: "updateFolder", query: `mutation($id: ID!) { updateFolder(input: {id: $id, name: "renamed"}) { id } }`,
		vars: map[string]any{"id": "{id}"}, folder: true},
	{op: "deleteFolder", query: `mutation($id: ID!) { deleteFolder(input: {id: $id}) { id } }`,
		vars: map[string]any{"id": "{id}"}, folder: true},
	{op: "deleteItem of a folder", query: `mutation($id: ID!) { deleteItem(input: {id: $id}) { id } }`,
		vars: map[string]any{"id": "{id}"}, folder: true},
	{op: "setFolderMetadata", query: `mutation($id: ID!) { setFolderMetadata(input: {id: $id, metadata: {formData: {client: "ACME"}}}) { id } }`,
		vars: map[string]any{"id": "{id}"}, folder: true},
	{op: "createItem into", query: `mutation($id: ID!) { createItem(input: {title: "new", itemType: "video", folderParents: [$id]}) { item { id } } }`,
		vars: map[string]any{"id": "{id}"}, folder: true},
	{op: "createItem folder into", query: `mutation($id: ID!) { createItem(input: {title: "new", itemType: "folder", folderParents: [$id]}) { item { id } } }`,
		vars: map[string]any{"id": "{id}"}, folder: true},
	{op: "addItemToFolder (folder)", query: `mutation($i: ID!, $f: ID!) { addItemToFolder(input: {itemId: $i, folderId: $f}) { id } }`,
		vars: map[string]any{"i": "{item}", "f": "{id}"}, folder: true},
	{op: "updateFolder move into", query: `mutation($f: ID!, $id: ID!) { updateFolder(input: {id: $f, parent: $id}) { id } }`,
		vars: map[string]any{"f": "{folder}", "id": "{id}"}, folder: true},
}

func TestGraphQLAccessMutations(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	rows := 0
	for _, user := range loupetest.AccessUsers {
		c := w.Users[user]
		for _, m := range gqaMutations {
			for _, tg := range loupetest.AccessTargets {
				if m.folder != tg.Folder {
					continue
				}
				rows++
				t.Run(gqaRow(user, m.op, tg.Name), func(t *testing.T) {
					id := w.Fresh(t, tg.Name, "")
					if m.deleted {
						w.Admin().Delete(t, "/api/v1/items/"+id).Status(200)
					}
					vars := m.vars
					if b, _ := json.Marshal(vars); strings.Contains(string(b), "{item}") {
						// An item of the caller's tenant anyone there may change.
						item := c.CreateItem(t, map[string]any{"title": "loose", "itemType": "video"})
						vars = mustVars(strings.ReplaceAll(string(b), "{item}", item))
					}
					if b, _ := json.Marshal(vars); strings.Contains(string(b), "{folder}") {
						// A folder of the caller's tenant anyone there may change.
						folder := c.CreateItem(t, map[string]any{"title": "anyone's", "itemType": "folder"})
						vars = mustVars(strings.ReplaceAll(string(b), "{folder}", folder))
					}
					before := ""
					switch {
					case !tg.VisibleTo(user):
						before = gqaSnapshot(t, w, id, tg.Folder)
						gqaSameAsMissing(t, c, m.query, vars, id)
					case tg.UpdatableBy(user) || m.visibleSuffices:
						c.GraphQL(t, m.query, gqaVars(vars, id)).OK(nil)
						return
					default:
						before = gqaSnapshot(t, w, id, tg.Folder)
						c.GraphQL(t, m.query, gqaVars(vars, id)).ErrorCode("FORBIDDEN")
					}
					if after := gqaSnapshot(t, w, id, tg.Folder); after != before {
						t.Fatalf("a refused mutation changed the target:\nbefore %s\nafter  %s", before, after)
					}
				})
			}
		}
	}
	t.Logf("%d rows", rows)
}

func mustVars(s string) map[string]any {
	var out map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		panic(err)
	}
	return out
}
