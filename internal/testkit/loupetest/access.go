package loupetest

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// The access-control fixture of docs/access-control.md, shared by the REST
// (rest/access_test.go) and GraphQL (resolvers/graphql_access_test.go)
// matrices: users (tenant admin, a member of "editors", a member of
// "sales", a folder's owner, another tenant's admin) × targets (folders
// with different rules, items in them).
//
//	pub       top folder, the whole tenant sees and changes it (the default)
//	  shared  made in pub, then visible to and updatable by editors
//	priv      top folder owned by owner, visible to editors, updatable by the
//	          group "nobody" (so: by its owner and the admins)
//	  sub     made in priv after priv's access was set: copies priv's rules;
//	          owned by its creator, the admin
//	  openSub made in priv, then opened to the whole tenant (visibleTo tenant;
//	          updatableBy stays "nobody")
//	idShared  top folder visible to and updatable by editors, the group named
//	          by its id instead of "<tenant>:editors"
//	loose      item in no folder
//	privItem   item only in priv
//	bothItem   item in priv and in pub (visible through pub)
//	sharedItem item in shared
//	subItem    item in sub
//	openItem   item in openSub
//	idItem     item in idShared

// AccessMissing is a well-formed UUIDv7 no row has.
const AccessMissing = "01a20242-9dca-771b-bd4e-ca31c13a56ec"

// AccessUsers in the order rows are made; "other" is the admin of another
// tenant.
var AccessUsers = []string{"admin", "editor", "sales", "owner", "other"}

// AccessTarget is one row of the fixture: who sees it and who may change it
// (a admin, e editor, s sales, o owner; the other tenant never).
type AccessTarget struct {
	Name    string
	Folder  bool
	Parents []string // fixture folders it sits in (a folder: its parent)
	Sees    string
	Changes string
}

// AccessTargets are the fixture's folders and items, parents first.
var AccessTargets = []AccessTarget{
	{Name: "pub", Folder: true, Sees: "aeso", Changes: "aeso"},
	{Name: "shared", Folder: true, Parents: []string{"pub"}, Sees: "ae", Changes: "ae"},
	{Name: "priv", Folder: true, Sees: "aeo", Changes: "ao"},
	{Name: "sub", Folder: true, Parents: []string{"priv"}, Sees: "ae", Changes: "a"},
	{Name: "openSub", Folder: true, Parents: []string{"priv"}, Sees: "aeso", Changes: "a"},
	{Name: "idShared", Folder: true, Sees: "ae", Changes: "ae"},
	{Name: "loose", Sees: "aeso", Changes: "aeso"},
	{Name: "privItem", Parents: []string{"priv"}, Sees: "aeo", Changes: "ao"},
	{Name: "bothItem", Parents: []string{"priv", "pub"}, Sees: "aeso", Changes: "aeso"},
	{Name: "sharedItem", Parents: []string{"shared"}, Sees: "ae", Changes: "ae"},
	{Name: "subItem", Parents: []string{"sub"}, Sees: "ae", Changes: "a"},
	{Name: "openItem", Parents: []string{"openSub"}, Sees: "aeso", Changes: "a"},
	{Name: "idItem", Parents: []string{"idShared"}, Sees: "ae", Changes: "ae"},
}

func accessLetter(user string) string {
	if user == "other" {
		return "-"
	}
	return user[:1]
}

// VisibleTo reports whether user may see the target.
func (tg AccessTarget) VisibleTo(user string) bool {
	return strings.Contains(tg.Sees, accessLetter(user))
}

// UpdatableBy reports whether user may change the target.
func (tg AccessTarget) UpdatableBy(user string) bool {
	return strings.Contains(tg.Changes, accessLetter(user))
}

// AccessTargetNamed is the target of that name.
func AccessTargetNamed(name string) AccessTarget {
	for _, tg := range AccessTargets {
		if tg.Name == name {
			return tg
		}
	}
	panic("no target " + name)
}

// AccessNames names the targets pred keeps.
func AccessNames(pred func(AccessTarget) bool) []string {
	out := []string{}
	for _, tg := range AccessTargets {
		if pred(tg) {
			out = append(out, tg.Name)
		}
	}
	return out
}

// AccessChildren names the targets directly in folder f.
func AccessChildren(f string) []string {
	return AccessNames(func(tg AccessTarget) bool { return slices.Contains(tg.Parents, f) })
}

// AccessDescendants names the targets in f at any depth.
func AccessDescendants(f string) []string {
	out := []string{}
	for _, c := range AccessChildren(f) {
		out = append(out, c)
		if AccessTargetNamed(c).Folder {
			out = append(out, AccessDescendants(c)...)
		}
	}
	return out
}

// AccessWorld is the fixture made: a tenant with its users, folders and
// items, and another tenant.
type AccessWorld struct {
	API   *API
	Users map[string]*Client
	IDs   map[string]string // target name → id
}

// NewAccessWorld makes the fixture on a fresh server.
func NewAccessWorld(t *testing.T) *AccessWorld {
	t.Helper()
	api := New(t)
	a := api.Tenant(t, "acme")
	w := &AccessWorld{API: api, IDs: map[string]string{}, Users: map[string]*Client{
		"admin":  a,
		"editor": a.User(t, "editor@acme.test", []string{"editors"}, false),
		"sales":  a.User(t, "sales@acme.test", []string{"sales"}, false),
		"owner":  a.User(t, "owner@acme.test", []string{"owners"}, false),
		"other":  api.Tenant(t, "other"),
	}}
	for _, tg := range AccessTargets {
		w.IDs[tg.Name] = w.Fresh(t, tg.Name, "ext-"+tg.Name)
	}
	return w
}

// Admin is the tenant's admin.
func (w *AccessWorld) Admin() *Client { return w.Users["admin"] }

// Fresh makes a new target of the kind name: a folder with the same rules
// in the same place, or an item in the same folders. The fixture's targets
// are made by it too.
func (w *AccessWorld) Fresh(t *testing.T, name, externalID string) string {
	t.Helper()
	a := w.Admin()
	tg := AccessTargetNamed(name)
	parents := []string{}
	for _, p := range tg.Parents {
		parents = append(parents, w.IDs[p])
	}
	body := map[string]any{"title": "acc " + name, "itemType": "video", "folderParents": parents}
	if tg.Folder {
		body["itemType"] = "folder"
	}
	if externalID != "" && !tg.Folder {
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
		set(map[string]any{"owner": w.Users["owner"].UserID,
			"visibleTo":   map[string]any{"level": "selected_groups", "groups": groups("editors")},
			"updatableBy": map[string]any{"level": "selected_groups", "groups": groups("nobody")}})
	case "openSub":
		set(map[string]any{"visibleTo": map[string]any{"level": "tenant"}})
	case "idShared":
		// The rules name the group by its id, the other spelling of spec 2.10.
		var group string
		if err := w.API.DB.Get(&group, `SELECT id::text FROM groups WHERE tenant_id = $1 AND name = 'editors'`, a.TenantID); err != nil {
			t.Fatal(err)
		}
		rule := map[string]any{"level": "selected_groups", "groups": []string{group}}
		set(map[string]any{"visibleTo": rule, "updatableBy": rule})
	}
	return id
}

// VisibleIDs are the ids of the named targets user may see, sorted.
func (w *AccessWorld) VisibleIDs(user string, names []string) []string {
	out := []string{}
	for _, n := range names {
		if AccessTargetNamed(n).VisibleTo(user) {
			out = append(out, w.IDs[n])
		}
	}
	sort.Strings(out)
	return out
}

// FixtureOnly keeps the fixture's ids of ids, sorted.
func (w *AccessWorld) FixtureOnly(ids []string) []string {
	known := map[string]bool{}
	for _, id := range w.IDs {
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

// NamesOf names the fixture's ids (others stay ids), for messages.
func (w *AccessWorld) NamesOf(ids []string) []string {
	byID := map[string]string{}
	for n, id := range w.IDs {
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

// SameIDs fails unless got and want hold the same ids.
func (w *AccessWorld) SameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	got, want = slices.Clone(got), slices.Clone(want)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %v, want %v", what, w.NamesOf(got), w.NamesOf(want))
	}
}

// ExpectedPaths are the ancestry paths of target for user, each "a/b/c"
// (ids) from the top down, invisible folders left out and paths left empty
// dropped, sorted.
func (w *AccessWorld) ExpectedPaths(user, target string) []string {
	var chain func(f string) []string
	chain = func(f string) []string {
		tg := AccessTargetNamed(f)
		up := []string{}
		if len(tg.Parents) > 0 {
			up = chain(tg.Parents[0])
		}
		return append(up, f)
	}
	out := []string{}
	for _, p := range AccessTargetNamed(target).Parents {
		ids := []string{}
		for _, f := range chain(p) {
			if AccessTargetNamed(f).VisibleTo(user) {
				ids = append(ids, w.IDs[f])
			}
		}
		if len(ids) > 0 {
			out = append(out, strings.Join(ids, "/"))
		}
	}
	sort.Strings(out)
	return out
}
