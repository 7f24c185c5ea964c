package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/loupetest"
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

var gqaUsers = []string{"admin", "editor", "sales", "owner", "other"}

type gqaTarget struct {
	name    string
	folder  bool
	parents []string
	sees    string // a admin, e editor, s sales, o owner
	changes string
}

var gqaTargets = []gqaTarget{
	{name: "pub", folder: true, sees: "aeso", changes: "aeso"},
	{name: "shared", folder: true, parents: []string{"pub"}, sees: "ae", changes: "ae"},
	{name: "priv", folder: true, sees: "aeo", changes: "ao"},
	{name: "sub", folder: true, parents: []string{"priv"}, sees: "ae", changes: "a"},
	{name: "openSub", folder: true, parents: []string{"priv"}, sees: "aeso", changes: "a"},
	{name: "idShared", folder: true, sees: "ae", changes: "ae"},
	{name: "loose", sees: "aeso", changes: "aeso"},
	{name: "privItem", parents: []string{"priv"}, sees: "aeo", changes: "ao"},
	{name: "bothItem", parents: []string{"priv", "pub"}, sees: "aeso", changes: "aeso"},
	{name: "sharedItem", parents: []string{"shared"}, sees: "ae", changes: "ae"},
	{name: "subItem", parents: []string{"sub"}, sees: "ae", changes: "a"},
	{name: "openItem", parents: []string{"openSub"}, sees: "aeso", changes: "a"},
	{name: "idItem", parents: []string{"idShared"}, sees: "ae", changes: "ae"},
}

func gqaLetter(user string) string {
	if user == "other" {
		return "-"
	}
	return user[:1]
}

func (tg gqaTarget) visibleTo(user string) bool { return strings.Contains(tg.sees, gqaLetter(user)) }
func (tg gqaTarget) updatableBy(user string) bool {
	return strings.Contains(tg.changes, gqaLetter(user))
}

func gqaTargetNamed(name string) gqaTarget {
	for _, tg := range gqaTargets {
		if tg.name == name {
			return tg
		}
	}
	panic("no target " + name)
}

func gqaNames(pred func(gqaTarget) bool) []string {
	out := []string{}
	for _, tg := range gqaTargets {
		if pred(tg) {
			out = append(out, tg.name)
		}
	}
	return out
}

func gqaChildren(f string) []string {
	return gqaNames(func(tg gqaTarget) bool { return slices.Contains(tg.parents, f) })
}

type gqaWorld struct {
	api   *loupetest.API
	users map[string]*loupetest.Client
	ids   map[string]string
}

func (w *gqaWorld) admin() *loupetest.Client { return w.users["admin"] }

func newGQAWorld(t *testing.T) *gqaWorld {
	t.Helper()
	api := loupetest.New(t)
	a := api.Tenant(t, "acme")
	w := &gqaWorld{api: api, ids: map[string]string{}, users: map[string]*loupetest.Client{
		"admin":  a,
		"editor": a.User(t, "editor@acme.test", []string{"editors"}, false),
		"sales":  a.User(t, "sales@acme.test", []string{"sales"}, false),
		"owner":  a.User(t, "owner@acme.test", []string{"owners"}, false),
		"other":  api.Tenant(t, "other"),
	}}
	for _, tg := range gqaTargets {
		w.ids[tg.name] = w.fresh(t, tg.name, "ext-"+tg.name)
	}
	return w
}

// fresh makes a new target of the kind name (the fixture is made by it too).
func (w *gqaWorld) fresh(t *testing.T, name, externalID string) string {
	t.Helper()
	a := w.admin()
	tg := gqaTargetNamed(name)
	parents := []string{}
	for _, p := range tg.parents {
		parents = append(parents, w.ids[p])
	}
	body := map[string]any{"title": "acc " + name, "itemType": "video", "folderParents": parents}
	if tg.folder {
		body["itemType"] = "folder"
	}
	if externalID != "" && !tg.folder {
		body["externalId"] = externalID
	}
	id := a.CreateItem(t, body)
	groups := func(n string) []string { return []string{a.TenantID + ":" + n} }
	set := func(update map[string]any) {
		t.Helper()
		a.Post(t, "/api/v1/folders/"+id, update).Status(200)
	}
	switch name {
	case "shared":
		set(map[string]any{
			"visibleTo":   map[string]any{"level": "selected_groups", "groups": groups("editors")},
			"updatableBy": map[string]any{"level": "selected_groups", "groups": groups("editors")}})
	case "priv":
		set(map[string]any{"owner": w.users["owner"].UserID,
			"visibleTo":   map[string]any{"level": "selected_groups", "groups": groups("editors")},
			"updatableBy": map[string]any{"level": "selected_groups", "groups": groups("nobody")}})
	case "openSub":
		set(map[string]any{"visibleTo": map[string]any{"level": "tenant"}})
	case "idShared":
		// The rules name the group by its id, the other spelling of spec 2.10.
		var group string
		if err := w.api.DB.Get(&group, `SELECT id::text FROM groups WHERE tenant_id = $1 AND name = 'editors'`, a.TenantID); err != nil {
			t.Fatal(err)
		}
		rule := map[string]any{"level": "selected_groups", "groups": []string{group}}
		set(map[string]any{"visibleTo": rule, "updatableBy": rule})
	}
	return id
}

func (w *gqaWorld) visibleIDs(user string, names []string) []string {
	out := []string{}
	for _, n := range names {
		if user != "other" && gqaTargetNamed(n).visibleTo(user) {
			out = append(out, w.ids[n])
		}
	}
	sort.Strings(out)
	return out
}

func (w *gqaWorld) fixtureOnly(ids []string) []string {
	known := map[string]bool{}
	for _, id := range w.ids {
		known[id] = true
	}
	out := []string{}
	for _, id := range ids {
		if known[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func (w *gqaWorld) namesOf(ids []string) []string {
	byID := map[string]string{}
	for n, id := range w.ids {
		byID[id] = n
	}
	out := []string{}
	for _, id := range ids {
		if n, ok := byID[id]; ok {
			out = append(out, n)
		} else {
			out = append(out, id)
		}
	}
	return out
}

func (w *gqaWorld) sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	got, want = slices.Clone(got), slices.Clone(want)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %v, want %v", what, w.namesOf(got), w.namesOf(want))
	}
}

// expectedPaths: ancestry paths of target for user, ids joined by "/", top
// down, invisible folders left out, empty paths dropped, sorted.
func (w *gqaWorld) expectedPaths(user, target string) []string {
	var chain func(f string) []string
	chain = func(f string) []string {
		tg := gqaTargetNamed(f)
		up := []string{}
		if len(tg.parents) > 0 {
			up = chain(tg.parents[0])
		}
		return append(up, f)
	}
	out := []string{}
	for _, p := range gqaTargetNamed(target).parents {
		ids := []string{}
		for _, f := range chain(p) {
			if gqaTargetNamed(f).visibleTo(user) {
				ids = append(ids, w.ids[f])
			}
		}
		if len(ids) > 0 {
			out = append(out, strings.Join(ids, "/"))
		}
	}
	sort.Strings(out)
	return out
}

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
	w := newGQAWorld(t)
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
	for _, user := range gqaUsers {
		c := w.users[user]
		for _, r := range reads {
			for _, tg := range gqaTargets {
				if !r.all && r.folder != tg.folder {
					continue
				}
				rows++
				id := w.ids[tg.name]
				t.Run(gqaRow(user, r.op, tg.name), func(t *testing.T) {
					if tg.visibleTo(user) {
						c.GraphQL(t, r.query, map[string]any{"id": id}).OK(nil)
						return
					}
					gqaSameAsMissing(t, c, r.query, map[string]any{"id": "{id}"}, id)
				})
			}
		}
		for _, tg := range gqaTargets {
			rows++
			t.Run(gqaRow(user, "node", tg.name), func(t *testing.T) {
				var out struct {
					Node *struct {
						ID string `json:"id"`
					} `json:"node"`
				}
				c.GraphQL(t, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": w.ids[tg.name]}).OK(&out)
				if tg.visibleTo(user) != (out.Node != nil) {
					t.Fatalf("node = %+v, visible %v", out.Node, tg.visibleTo(user))
				}
			})
		}
		rows++
		t.Run(gqaRow(user, "nodes", "all"), func(t *testing.T) {
			ids := []string{}
			for _, tg := range gqaTargets {
				ids = append(ids, w.ids[tg.name])
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
			for i, tg := range gqaTargets {
				if tg.visibleTo(user) != (out.Nodes[i] != nil) {
					t.Errorf("%s: node %+v, visible %v", tg.name, out.Nodes[i], tg.visibleTo(user))
				}
			}
		})
	}
	t.Logf("%d rows", rows)
}

func TestGraphQLAccessLists(t *testing.T) {
	w := newGQAWorld(t)
	allNames := gqaNames(func(gqaTarget) bool { return true })
	related := []string{}
	for _, n := range gqaNames(func(tg gqaTarget) bool { return !tg.folder && tg.name != "loose" }) {
		related = append(related, w.ids[n])
	}
	w.admin().Put(t, "/api/v1/items/"+w.ids["loose"]+"/relations/acc", related).Status(200)
	itemNames := gqaNames(func(tg gqaTarget) bool { return !tg.folder })
	folderNames := gqaNames(func(tg gqaTarget) bool { return tg.folder })
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

	for _, user := range gqaUsers {
		c := w.users[user]
		run(gqaRow(user, "items", "tenant"), func(t *testing.T) {
			got := items(t, c, nil)
			adminSaw := w.fixtureOnly(idsOf(items(t, w.admin(), nil)))
			w.sameIDs(t, "items", w.fixtureOnly(idsOf(got)), restrict(w.visibleIDs(user, allNames), adminSaw))
		})
		for _, f := range folderNames {
			tg := gqaTargetNamed(f)
			run(gqaRow(user, "items(filter:{folderId})", f), func(t *testing.T) {
				if !tg.visibleTo(user) {
					gqaSameAsMissing(t, c, itemsQ, map[string]any{"f": map[string]any{"folderId": "{id}"}}, w.ids[f])
					return
				}
				filter := map[string]any{"folderId": w.ids[f]}
				got := items(t, c, filter)
				adminSaw := idsOf(items(t, w.admin(), filter))
				w.sameIDs(t, "items", idsOf(got), restrict(w.visibleIDs(user, gqaChildren(f)), adminSaw))
			})
			run(gqaRow(user, "folderContent hits", f), func(t *testing.T) {
				if !tg.visibleTo(user) {
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
					map[string]any{"id": w.ids[f]}).OK(&out)
				got := []string{}
				for _, h := range out.FolderContent.Hits {
					got = append(got, h.ID)
				}
				want := w.visibleIDs(user, gqaChildren(f))
				if out.FolderContent.Total != len(want) {
					t.Errorf("total %d, want %d", out.FolderContent.Total, len(want))
				}
				w.sameIDs(t, "hits", got, want)
			})
			if !tg.visibleTo(user) {
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
					map[string]any{"id": w.ids[f]}).OK(&out)
				kids := gqaNames(func(x gqaTarget) bool { return x.folder && slices.Contains(x.parents, f) })
				w.sameIDs(t, "children", idsOf(out.Folder.Children), w.visibleIDs(user, kids))
				w.sameIDs(t, "items", idsOf(out.Folder.Items), w.visibleIDs(user, gqaChildren(f)))
			})
			if len(tg.parents) > 0 {
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
						map[string]any{"id": w.ids[f]}).OK(&out)
					p := tg.parents[0]
					if gqaTargetNamed(p).visibleTo(user) {
						if out.Folder.Parent == nil || out.Folder.Parent.ID != w.ids[p] {
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
					if ps := w.expectedPaths(user, f); len(ps) > 0 {
						want = strings.Split(ps[0], "/")
					}
					if !slices.Equal(got, want) {
						t.Fatalf("ancestors %v, want %v", w.namesOf(got), w.namesOf(want))
					}
				})
			}
		}
		for _, n := range itemNames {
			tg := gqaTargetNamed(n)
			if !tg.visibleTo(user) {
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
					map[string]any{"id": w.ids[n]}).OK(&out)
				got := []string{}
				for _, f := range out.Item.Folders {
					got = append(got, f.ID)
				}
				w.sameIDs(t, "folders", got, w.visibleIDs(user, tg.parents))
				if g, want := gqaPathStrings(out.Item.Ancestry), w.expectedPaths(user, n); !slices.Equal(g, want) {
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
				map[string]any{"id": w.ids["loose"]}).OK(&out)
			// Relations to items the user may not see are not listed;
			// every listed one resolves its item.
			want := 0
			for _, id := range related {
				if gqaTargetNamed(w.namesOf([]string{id})[0]).visibleTo(user) {
					want++
				}
			}
			if len(out.Item.Relations) != want {
				t.Fatalf("%d relations, want %d: %+v", len(out.Item.Relations), want, out.Item.Relations)
			}
			for _, r := range out.Item.Relations {
				n := w.namesOf([]string{r.RelatedItemID})[0]
				if !gqaTargetNamed(n).visibleTo(user) || r.Item == nil {
					t.Errorf("relation to %s listed with item %+v", n, r.Item)
				}
			}
		})
		run(gqaRow(user, "folderAncestry", "all"), func(t *testing.T) {
			ids := []string{}
			for _, n := range allNames {
				ids = append(ids, w.ids[n])
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
				if user != "other" && gqaTargetNamed(n).visibleTo(user) {
					want = w.expectedPaths(user, n)
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
				visible := user != "other" && gqaTargetNamed(n).visibleTo(user)
				if visible && (got.Status != "success" || got.ItemID == nil || *got.ItemID != w.ids[n]) ||
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
				return slices.Compact(w.fixtureOnly(ids))
			}
			got := read(c)
			w.sameIDs(t, "audited", got, restrict(w.visibleIDs(user, allNames), read(w.admin())))
		})
		for _, tg := range gqaTargets {
			run(gqaRow(user, "itemAnalytics(filter:{itemId})", tg.name), func(t *testing.T) {
				var out struct {
					ItemAnalytics struct {
						Total int   `json:"total"`
						Hits  []any `json:"hits"`
					} `json:"itemAnalytics"`
				}
				c.GraphQL(t, `query($id: ID!) { itemAnalytics(filter: {itemId: $id}) { total hits { id } } }`,
					map[string]any{"id": w.ids[tg.name]}).OK(&out)
				if visible := tg.visibleTo(user); visible != (out.ItemAnalytics.Total > 0) || visible != (len(out.ItemAnalytics.Hits) > 0) {
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
				w.sameIDs(t, "hits", w.fixtureOnly(got), w.visibleIDs(user, names))
			})
		}
		run(gqaRow(user, "itemChanges", "tenant"), func(t *testing.T) {
			read := func(c *loupetest.Client) []string {
				var out struct {
					ItemChanges conn `json:"itemChanges"`
				}
				c.GraphQL(t, `query { itemChanges(since: "1970-01-01T00:00:00Z", first: 100) { nodes { id } } }`, nil).OK(&out)
				return w.fixtureOnly(idsOf(out.ItemChanges))
			}
			w.sameIDs(t, "changes", read(c), restrict(w.visibleIDs(user, allNames), read(w.admin())))
		})
	}
	t.Logf("%d rows", rows)
}

// gqaSnapshot is what the admin reads about id through REST.
func (w *gqaWorld) snapshot(t *testing.T, id string, folder bool) string {
	t.Helper()
	var b bytes.Buffer
	paths := []string{"/api/v1/items/" + id, "/api/v1/items/" + id + "/comments"}
	if folder {
		paths = append(paths, "/api/v1/folders/"+id, "/api/v1/folders/"+id+"/content?size=1000")
	}
	for _, p := range paths {
		r := w.admin().Get(t, p)
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
	w := newGQAWorld(t)
	rows := 0
	for _, user := range gqaUsers {
		c := w.users[user]
		for _, m := range gqaMutations {
			for _, tg := range gqaTargets {
				if m.folder != tg.folder {
					continue
				}
				rows++
				t.Run(gqaRow(user, m.op, tg.name), func(t *testing.T) {
					id := w.fresh(t, tg.name, "")
					if m.deleted {
						w.admin().Delete(t, "/api/v1/items/"+id).Status(200)
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
					case !tg.visibleTo(user):
						before = w.snapshot(t, id, tg.folder)
						gqaSameAsMissing(t, c, m.query, vars, id)
					case tg.updatableBy(user) || m.visibleSuffices:
						c.GraphQL(t, m.query, gqaVars(vars, id)).OK(nil)
						return
					default:
						before = w.snapshot(t, id, tg.folder)
						c.GraphQL(t, m.query, gqaVars(vars, id)).ErrorCode("FORBIDDEN")
					}
					if after := w.snapshot(t, id, tg.folder); after != before {
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
