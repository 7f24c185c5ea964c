package rest_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

var folderKeys = strings.Fields(`id owner name createdOn hasSubfolder parent itemType visibleTo updatableBy metadata`)

type folderRecord struct {
	ID           string  `json:"id"`
	Owner        string  `json:"owner"`
	Name         string  `json:"name"`
	CreatedOn    string  `json:"createdOn"`
	HasSubfolder bool    `json:"hasSubfolder"`
	Parent       *string `json:"parent"`
	ItemType     string  `json:"itemType"`
	VisibleTo    struct {
		Level  string   `json:"level"`
		Groups []string `json:"groups"`
	} `json:"visibleTo"`
	UpdatableBy struct {
		Level  string   `json:"level"`
		Groups []string `json:"groups"`
	} `json:"updatableBy"`
	Metadata struct {
		FormID   string         `json:"formId"`
		FormData map[string]any `json:"formData"`
	} `json:"metadata"`
}

func folder(t *testing.T, c *loupetest.Client, title string, parents ...string) string {
	t.Helper()
	body := map[string]any{"title": title, "itemType": "folder"}
	if len(parents) > 0 {
		body["folderParents"] = parents
	}
	return c.CreateItem(t, body)
}

func TestGetFolder(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	top := folder(t, a, "Projects")
	sub := folder(t, a, "2026", top)

	got := a.Get(t, "/api/v1/folders/"+top).Status(200).Object()
	sameKeys(t, "folder", got, folderKeys)
	var f folderRecord
	a.Get(t, "/api/v1/folders/"+top).JSON(&f)
	if f.ID != top || f.Name != "Projects" || f.Owner != a.UserID || !f.HasSubfolder || f.Parent != nil ||
		f.ItemType != "folder" || f.VisibleTo.Level != "tenant" || len(f.VisibleTo.Groups) != 0 ||
		f.UpdatableBy.Level != "tenant" || f.Metadata.FormID != "default_folder" {
		t.Fatalf("top folder = %+v", f)
	}
	a.Get(t, "/api/v1/folders/"+sub).JSON(&f)
	if f.Parent == nil || *f.Parent != top || f.HasSubfolder {
		t.Fatalf("subfolder = %+v", f)
	}
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	for _, id := range []string{item, missingID, "nope"} {
		a.Get(t, "/api/v1/folders/"+id).Envelope(404, notFound)
	}
	api.Tenant(t, "b").Get(t, "/api/v1/folders/"+top).Envelope(404, notFound)
}

func TestUpdateFolder(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	top := folder(t, a, "Projects")
	sub := folder(t, a, "2026", top)
	leaf := folder(t, a, "Promo", sub)
	other := folder(t, a, "Inbox")
	path := "/api/v1/folders/"

	var f folderRecord
	a.Post(t, path+leaf, map[string]any{"name": "Teaser", "sortKey": "b"}).Status(200).JSON(&f)
	if f.Name != "Teaser" || f.Metadata.FormData["default_title"] != "Teaser" {
		t.Fatalf("after rename: %+v", f)
	}
	a.Post(t, path+leaf, map[string]any{"parent": other}).Status(200).JSON(&f)
	if f.Parent == nil || *f.Parent != other {
		t.Fatalf("after move: parent %v", f.Parent)
	}
	if s := a.Get(t, path+sub).Object(); s["hasSubfolder"] != false {
		t.Fatalf("old parent still has a subfolder: %v", s)
	}
	a.Post(t, path+leaf, map[string]any{"parent": nil}).Status(200).JSON(&f)
	if f.Parent != nil {
		t.Fatalf("after move to top: parent %v", *f.Parent)
	}
	a.Post(t, path+leaf, map[string]any{"owner": ed.UserID,
		"visibleTo":   map[string]any{"level": "selected_groups", "groups": []string{a.TenantID + ":editors"}},
		"updatableBy": map[string]any{"level": "tenant", "groups": []string{"ignored"}}}).Status(200).JSON(&f)
	if f.Owner != ed.UserID || f.VisibleTo.Level != "selected_groups" || !slices.Equal(f.VisibleTo.Groups, []string{a.TenantID + ":editors"}) ||
		f.UpdatableBy.Level != "tenant" || len(f.UpdatableBy.Groups) != 0 {
		t.Fatalf("after access change: %+v", f)
	}

	before := a.Get(t, path+top).Object()
	bad := []struct {
		name, id string
		body     any
		status   int
		message  string
	}{
		{"unknown parent", top, map[string]any{"parent": missingID}, 400, "The new parent folder does not exists."},
		{"parent not an id", top, map[string]any{"parent": "x"}, 400, "The new parent folder does not exists."},
		{"parent is an item", top, map[string]any{"parent": a.CreateItem(t, map[string]any{"title": "v", "itemType": "video"})}, 400, "The new parent folder does not exists."},
		{"into itself", top, map[string]any{"parent": top}, 400, "A folder cannot be moved into itself or one of its subfolders."},
		{"into its subfolder", top, map[string]any{"parent": sub}, 400, "A folder cannot be moved into itself or one of its subfolders."},
		{"blank name", top, map[string]any{"name": " "}, 400, ""},
		{"slash in name", top, map[string]any{"name": "a/b"}, 400, ""},
		{"unknown owner", top, map[string]any{"owner": missingID}, 400, "owner " + missingID + " is not an active user of the tenant"},
		{"groups missing", top, map[string]any{"visibleTo": map[string]any{"level": "selected_groups"}}, 400, "visibleTo: selected_groups needs 1 to 100 groups"},
		{"bad level", top, map[string]any{"visibleTo": map[string]any{"level": "world"}}, 400, ""},
		{"unknown key", top, map[string]any{"colour": "red"}, 400, "colour: unknown field"},
		{"unknown folder", missingID, map[string]any{"name": "x"}, 404, notFound},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) { a.Post(t, path+c.id, c.body).Envelope(c.status, c.message) })
	}
	api.Tenant(t, "b").Post(t, path+top, map[string]any{"name": "theirs"}).Envelope(404, notFound)
	after := a.Get(t, path+top).Object()
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("refused updates changed the folder:\n%v\n%v", before, after)
	}
}

func TestDeleteFolderIsRecursiveAndUndeleteRestoresIt(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	top := folder(t, a, "Projects")
	sub := folder(t, a, "2026", top)
	elsewhere := folder(t, a, "Inbox")
	only := a.CreateItem(t, map[string]any{"title": "only here", "itemType": "video", "folderParents": []string{sub}})
	shared := a.CreateItem(t, map[string]any{"title": "also elsewhere", "itemType": "video", "folderParents": []string{sub, elsewhere}})

	got := a.Delete(t, "/api/v1/folders/"+top).Status(200).Object()
	if got["id"] != top || got["deletedCount"] != 3.0 {
		t.Fatalf("delete answered %v, want 3 (top, sub, the item only there)", got)
	}
	for _, id := range []string{top, sub} {
		a.Get(t, "/api/v1/folders/"+id).Envelope(404, notFound)
	}
	a.Get(t, "/api/v1/items/"+only).Envelope(404, notFound)
	a.Get(t, "/api/v1/items/"+shared).Status(200)
	if got := auditActions(t, a, only); got[0] != "delete" {
		t.Fatalf("item deleted with the folder: audit %v", got)
	}
	a.Delete(t, "/api/v1/folders/"+top).Envelope(404, notFound)
	a.Delete(t, "/api/v1/folders/"+a.ArchiveFolderID).Envelope(400, "the archive folder cannot be deleted")

	a.Post(t, "/api/v1/items/"+top+"/undelete", nil).Status(200)
	for _, id := range []string{top, sub} {
		a.Get(t, "/api/v1/folders/"+id).Status(200)
	}
	a.Get(t, "/api/v1/items/"+only).Status(200)
	var content struct {
		Total int `json:"total"`
	}
	a.Get(t, "/api/v1/folders/"+sub+"/content").Status(200).JSON(&content)
	if content.Total != 2 {
		t.Fatalf("restored subfolder holds %d, want 2", content.Total)
	}
}

type contentPage struct {
	Total     int     `json:"total"`
	From      int     `json:"from"`
	NextToken *string `json:"nextToken"`
	Hits      []struct {
		ID            string   `json:"id"`
		Owner         string   `json:"owner"`
		FolderParents []string `json:"folderParents"`
		ItemType      string   `json:"itemType"`
		Name          string   `json:"name"`
		CreatedOn     string   `json:"createdOn"`
	} `json:"hits"`
}

func TestFolderContent(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	f := folder(t, a, "Reels")
	names := []string{"delta", "alpha", "echo", "charlie", "bravo"}
	ids := map[string]string{}
	for _, n := range names {
		ids[n] = a.CreateItem(t, map[string]any{"title": n, "itemType": "video", "folderParents": []string{f}})
	}
	ids["sub"] = folder(t, a, "sub", f)
	gone := a.CreateItem(t, map[string]any{"title": "binned", "itemType": "video", "folderParents": []string{f}})
	a.Delete(t, "/api/v1/items/"+gone).Status(200)

	hitKeys := strings.Fields(`id owner folderParents itemType name createdOn visibleTo updatableBy`)
	raw := a.Get(t, "/api/v1/folders/"+f+"/content").Status(200).Object()
	sameKeys(t, "content", raw, []string{"total", "hits", "from", "nextToken"})
	sameKeys(t, "content hit", raw["hits"].([]any)[0].(map[string]any), hitKeys)

	order := func(q string) []string {
		var p contentPage
		a.Get(t, "/api/v1/folders/"+f+"/content"+q).Status(200).JSON(&p)
		out := []string{}
		for _, h := range p.Hits {
			out = append(out, h.Name)
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"alpha", "bravo", "charlie", "delta", "echo", "sub"}},
		{"?sort=name&order=desc", []string{"sub", "echo", "delta", "charlie", "bravo", "alpha"}},
		{"?sort=createdOn", []string{"delta", "alpha", "echo", "charlie", "bravo", "sub"}},
		{"?sort=createdOn&order=desc", []string{"sub", "bravo", "charlie", "echo", "alpha", "delta"}},
		{"?from=2&size=2", []string{"charlie", "delta"}},
		{"?from=5&size=2", []string{"sub"}},
		{"?from=50", []string{}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			if got := order(c.query); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	var p contentPage
	a.Get(t, "/api/v1/folders/"+f+"/content?from=1&size=1").JSON(&p)
	if p.Total != 6 || p.From != 1 || p.Hits[0].Owner != a.UserID || p.Hits[0].FolderParents[0] != f {
		t.Fatalf("page = %+v", p)
	}
	for _, q := range []string{"?size=0", "?size=1001", "?from=-1", "?sort=size", "?order=up", "?from=x"} {
		a.Get(t, "/api/v1/folders/"+f+"/content"+q).Envelope(400, "")
	}
	a.Get(t, "/api/v1/folders/"+ids["alpha"]+"/content").Envelope(404, notFound)
	api.Tenant(t, "b").Get(t, "/api/v1/folders/"+f+"/content").Envelope(404, notFound)
}

// nextToken continues after a page by the index, in every sort and order,
// for admins and for users who see only part of the folder: walking by
// tokens yields exactly the offset listing, duplicate names included, and
// each page costs the same statements however deep it is.
func TestFolderContentNextToken(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	f := folder(t, a, "Reels")
	for i, n := range []string{"delta", "alpha", "echo", "alpha", "charlie", "bravo", "alpha", "foxtrot", "echo"} {
		a.CreateItem(t, map[string]any{"title": n, "itemType": []string{"video", "image"}[i%2], "folderParents": []string{f}})
	}
	folder(t, a, "open", f)
	hidden := folder(t, a, "hidden", f)
	api.DB.MustExec(`UPDATE items SET visible_to = '{"level": "selected_groups", "groups": []}' WHERE id = $1`, hidden)
	user := a.User(t, "u@a.test", nil, false)
	api.DB.MustExec(`UPDATE items SET visible_to = '{"level": "tenant", "groups": []}' WHERE id = $1`, f)

	get := func(c *loupetest.Client, q string) contentPage {
		t.Helper()
		var p contentPage
		c.Get(t, "/api/v1/folders/"+f+"/content"+q).Status(200).JSON(&p)
		return p
	}
	ids := func(p contentPage) []string {
		out := []string{}
		for _, h := range p.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	// A user's hits also cost the check of which of their folder parents
	// the user may see (one statement for the page).
	for _, c := range []struct {
		name       string
		client     *loupetest.Client
		total      int
		statements int64
	}{{"admin", a, 11, 2}, {"user", user, 10, 3}} {
		for _, sort := range []string{"sort=name&order=asc", "sort=name&order=desc", "sort=createdOn&order=asc", "sort=createdOn&order=desc"} {
			t.Run(c.name+" "+sort, func(t *testing.T) {
				all := get(c.client, "?size=100&"+sort)
				if all.Total != c.total || len(all.Hits) != c.total || all.NextToken != nil {
					t.Fatalf("whole listing: total %d, %d hits, nextToken %v; want %d", all.Total, len(all.Hits), all.NextToken, c.total)
				}
				var walked []string
				q := "?size=3&" + sort
				for from := 0; ; from += 3 {
					api.Statements.Reset()
					p := get(c.client, q)
					if n := api.Statements.Count(); n != c.statements {
						t.Errorf("page at %d cost %d statements, want %d", from, n, c.statements)
					}
					if p.From != from || p.Total != c.total {
						t.Fatalf("page at %d answered from %d, total %d", from, p.From, p.Total)
					}
					walked = append(walked, ids(p)...)
					if p.NextToken == nil {
						break
					}
					q = "?size=3&" + sort + "&nextToken=" + *p.NextToken
				}
				if !slices.Equal(walked, ids(all)) {
					t.Fatalf("walked %v, want %v", walked, ids(all))
				}
			})
		}
	}

	first := get(a, "?size=2&sort=name")
	for _, q := range []string{
		"?size=2&sort=name&order=desc&nextToken=" + *first.NextToken, // another order
		"?size=2&sort=createdOn&nextToken=" + *first.NextToken,       // another sort
		"?size=2&sort=name&from=2&nextToken=" + *first.NextToken,     // both
		"?nextToken=bm90LWEtdG9rZW4",                                 // not one
		"?nextToken=!!",
	} {
		a.Get(t, "/api/v1/folders/"+f+"/content"+q).Envelope(400, "")
	}
	// Another tenant's folder answers as missing, token or not.
	api.Tenant(t, "b").Get(t, "/api/v1/folders/"+f+"/content?sort=name&nextToken="+*first.NextToken).Envelope(404, notFound)
	// So does a folder that became invisible after the token was given,
	// though the page after it still has hits.
	userFirst := get(user, "?size=2&sort=name")
	api.DB.MustExec(`UPDATE items SET visible_to = '{"level": "selected_groups", "groups": []}' WHERE id = $1`, f)
	user.Get(t, "/api/v1/folders/"+f+"/content?size=2&sort=name&nextToken="+*userFirst.NextToken).Envelope(404, notFound)
	api.DB.MustExec(`UPDATE items SET visible_to = '{"level": "tenant", "groups": []}' WHERE id = $1`, f)

	// GraphQL: the same field and argument.
	var out struct {
		FolderContent struct {
			From      int
			NextToken *string
			Hits      []struct{ ID string }
		}
	}
	a.GraphQL(t, `query($f: ID!, $after: String) { folderContent(folderId: $f, size: 2, after: $after) { from nextToken hits { id } } }`,
		map[string]any{"f": f, "after": *first.NextToken}).OK(&out)
	if all := get(a, "?size=4&sort=name"); out.FolderContent.From != 2 || len(out.FolderContent.Hits) != 2 ||
		out.FolderContent.Hits[0].ID != all.Hits[2].ID || out.FolderContent.Hits[1].ID != all.Hits[3].ID {
		t.Fatalf("GraphQL page after the first: %+v", out.FolderContent)
	}
}

func TestFolderMetadata(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	f := folder(t, a, "Reels")
	got := a.Get(t, "/api/v1/folders/"+f+"/metadata").Status(200).Object()
	sameKeys(t, "folder metadata", got, []string{"id", "metadata"})
	var out struct {
		ID       string `json:"id"`
		Metadata struct {
			FormID   string         `json:"formId"`
			FormData map[string]any `json:"formData"`
		} `json:"metadata"`
	}
	a.Put(t, "/api/v1/folders/"+f+"/metadata", map[string]any{"metadata": map[string]any{
		"formData": map[string]any{"client": "ACME", "default_title": "Reels 2026"}}}).Status(200).JSON(&out)
	if out.ID != f || out.Metadata.FormID != "default_folder" || out.Metadata.FormData["client"] != "ACME" {
		t.Fatalf("after PUT: %+v", out)
	}
	if name := a.Get(t, "/api/v1/folders/"+f).Object()["name"]; name != "Reels 2026" {
		t.Fatalf("default_title did not rename: %v", name)
	}
	a.Put(t, "/api/v1/folders/"+f+"/metadata", `{"metadata": `).Envelope(500, "TypeError")
	a.Put(t, "/api/v1/folders/"+f+"/metadata", map[string]any{"metadata": map[string]any{"formData": 1}}).
		Envelope(400, "metadata.formData must be an object")
	api.Tenant(t, "b").Put(t, "/api/v1/folders/"+f+"/metadata", map[string]any{"metadata": map[string]any{}}).Envelope(404, notFound)
	api.Tenant(t, "c").Get(t, "/api/v1/folders/"+f+"/metadata").Envelope(404, notFound)
}

func TestFolderAncestry(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	top := folder(t, a, "Projects")
	sub := folder(t, a, "2026", top)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video", "folderParents": []string{sub}})
	var got map[string][][]struct{ ID, Name string }
	a.Post(t, "/api/v1/folders/ancestry", map[string]any{"ids": []string{item, sub, top, missingID}}).Status(200).JSON(&got)
	if len(got) != 4 || len(got[item]) != 1 || len(got[item][0]) != 2 || got[item][0][0].Name != "Projects" ||
		got[item][0][1].Name != "2026" || len(got[sub][0]) != 1 || len(got[top]) != 0 || len(got[missingID]) != 0 {
		t.Fatalf("ancestry = %+v", got)
	}
	a.Post(t, "/api/v1/folders/ancestry", `{"ids": [`).Envelope(500, "TypeError")
	a.Post(t, "/api/v1/folders/ancestry", map[string]any{"ids": []string{}}).Envelope(400, "give 1 to 100 ids")
	// Unknown keys are refused, as everywhere.
	a.Post(t, "/api/v1/folders/ancestry", map[string]any{"ids": []string{item}, "depth": 2}).Envelope(400, "depth: unknown field")
	a.Post(t, "/api/v1/folders/ancestry", map[string]any{"folderIds": []string{item}, "ids": []string{sub}}).Envelope(400, "folderIds: unknown field")
	a.Post(t, "/api/v1/folders/ancestry", map[string]any{"idz": []string{item}}).Envelope(400, "idz: unknown field")
	a.Post(t, "/api/v1/folders/ancestry", map[string]any{"folderIds": []string{item}}).Status(200)
	var theirs map[string][][]any
	api.Tenant(t, "b").Post(t, "/api/v1/folders/ancestry", []string{item}).Status(200).JSON(&theirs)
	if len(theirs[item]) != 0 {
		t.Fatalf("another tenant sees the ancestry: %v", theirs)
	}
}

func TestFolderPathIsIdempotentUnderRaces(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var first []folderRecord
	a.Post(t, "/api/v1/folders/path", map[string]any{"path": "/Projects/2026/Promo"}).Status(200).JSON(&first)
	if len(first) != 3 || first[0].Name != "Projects" || first[2].Name != "Promo" || first[0].Parent != nil ||
		*first[1].Parent != first[0].ID || *first[2].Parent != first[1].ID {
		t.Fatalf("path = %+v", first)
	}
	const racers = 8
	results := make([][]folderRecord, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Post(t, "/api/v1/folders/path", map[string]any{"path": "Projects/2026/Promo/Cuts/"}).Status(200).JSON(&results[i])
		}()
	}
	wg.Wait()
	for _, r := range results {
		if len(r) != 4 || r[0].ID != first[0].ID || r[2].ID != first[2].ID || r[3].ID != results[0][3].ID {
			t.Fatalf("racing calls disagree: %+v vs %+v", r, results[0])
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND item_type = 'folder' AND title = 'Cuts'`, a.TenantID); n != 1 {
		t.Fatalf("%d folders named Cuts, want 1", n)
	}
	a.Post(t, "/api/v1/folders/path", `{"path": `).Envelope(500, "TypeError")
	a.Post(t, "/api/v1/folders/path", map[string]any{"path": "///"}).Envelope(400, "")
}

// Ids of folders a user may not see do not show in folderParents or parent.
func TestInvisibleFolderIDsDoNotShow(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	sales := a.User(t, "sales@a.test", []string{"sales"}, false)
	pub := folder(t, a, "Public")
	priv := folder(t, a, "Private")
	a.Post(t, "/api/v1/folders/"+priv, map[string]any{"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{a.TenantID + ":editors"}}}).Status(200)
	open := folder(t, a, "Open", priv)
	a.Post(t, "/api/v1/folders/"+open, map[string]any{"visibleTo": map[string]any{"level": "tenant"}}).Status(200)
	both := a.CreateItem(t, map[string]any{"title": "Both", "itemType": "video", "folderParents": []string{priv, pub}})

	var it struct {
		FolderParents []string `json:"folderParents"`
	}
	sales.Get(t, "/api/v1/items/"+both).Status(200).JSON(&it)
	if !slices.Equal(it.FolderParents, []string{pub}) {
		t.Fatalf("sales sees folderParents %v, want only %s", it.FolderParents, pub)
	}
	a.Get(t, "/api/v1/items/"+both).Status(200).JSON(&it)
	if !slices.Equal(it.FolderParents, []string{priv, pub}) {
		t.Fatalf("admin sees folderParents %v", it.FolderParents)
	}
	var f folderRecord
	sales.Get(t, "/api/v1/folders/"+open).Status(200).JSON(&f)
	if f.Parent != nil {
		t.Fatalf("sales sees parent %v of a folder in an invisible one", *f.Parent)
	}
	var content contentPage
	sales.Get(t, "/api/v1/folders/"+pub+"/content").Status(200).JSON(&content)
	if len(content.Hits) != 1 || !slices.Equal(content.Hits[0].FolderParents, []string{pub}) {
		t.Fatalf("content hit folderParents = %+v", content.Hits)
	}
}

// folder_stats (the content totals) agrees with the links after every kind
// of change: create, move, add, remove, delete and undelete of items and
// folders.
func TestFolderTotalsFollowEveryChange(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	f1, f2 := folder(t, a, "One"), folder(t, a, "Two")
	sub := folder(t, a, "Sub", f1)
	var items []string
	for i := range 6 {
		items = append(items, a.CreateItem(t, map[string]any{"title": fmt.Sprint(i), "itemType": "video", "folderParents": []string{f1}}))
	}
	gql := func(m string, vars map[string]any) { a.GraphQL(t, m, vars).OK(nil) }
	gql(`mutation($i: ID!, $f: ID!) { addItemToFolder(input: {itemId: $i, folderId: $f}) { id } }`, map[string]any{"i": items[0], "f": f2})
	gql(`mutation($i: ID!, $f: ID!, $t: ID!) { moveItem(input: {itemId: $i, fromFolderId: $f, toFolderId: $t}) { id } }`,
		map[string]any{"i": items[1], "f": f1, "t": sub})
	gql(`mutation($i: ID!, $f: ID!) { removeItemFromFolder(input: {itemId: $i, folderId: $f}) { id } }`, map[string]any{"i": items[2], "f": f1})
	a.Delete(t, "/api/v1/items/"+items[3]).Status(200)
	a.Post(t, "/api/v1/folders/"+sub, map[string]any{"parent": f2}).Status(200)
	a.Delete(t, "/api/v1/folders/"+f2).Status(200)
	a.Post(t, "/api/v1/items/"+f2+"/undelete", nil).Status(200)
	a.Delete(t, "/api/v1/folders/"+sub).Status(200)

	var wrong int
	if err := api.DB.Get(&wrong, `
SELECT count(*) FROM (
  SELECT l.folder_id, count(*) FILTER (WHERE NOT l.child_deleted) AS n FROM item_folders l GROUP BY 1) c
FULL JOIN folder_stats s ON s.folder_id = c.folder_id
WHERE coalesce(c.n, 0) <> coalesce(s.live_children, 0)`); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Fatalf("%d folders' totals disagree with their links", wrong)
	}
	var p contentPage
	a.Get(t, "/api/v1/folders/"+f1+"/content").Status(200).JSON(&p)
	if p.Total != len(p.Hits) || p.Total != 3 {
		t.Fatalf("f1 total %d, hits %d, want 3 (items 0, 4, 5)", p.Total, len(p.Hits))
	}
}

// Relations to items a user may not see are not listed to that user.
func TestRelationsToInvisibleItemsDoNotShow(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	sales := a.User(t, "sales@a.test", []string{"sales"}, false)
	priv := folder(t, a, "Private")
	a.Post(t, "/api/v1/folders/"+priv, map[string]any{"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{a.TenantID + ":editors"}}}).Status(200)
	open := a.CreateItem(t, map[string]any{"title": "Open", "itemType": "video"})
	other := a.CreateItem(t, map[string]any{"title": "Other", "itemType": "video"})
	hidden := a.CreateItem(t, map[string]any{"title": "Hidden", "itemType": "video", "folderParents": []string{priv}})
	a.Put(t, "/api/v1/items/"+open+"/relations/sequel", map[string]any{"relatedItemIds": []string{other, hidden}}).Status(200)

	count := func(c *loupetest.Client) int {
		var out struct {
			Relations []struct {
				RelatedItemID string `json:"relatedItemId"`
			} `json:"relations"`
		}
		c.Get(t, "/api/v1/items/"+open+"/relations").Status(200).JSON(&out)
		for _, r := range out.Relations {
			if r.RelatedItemID == hidden && c != a {
				t.Fatalf("sales sees the relation to a hidden item")
			}
		}
		return len(out.Relations)
	}
	if got := count(a); got != 2 {
		t.Fatalf("admin sees %d relations, want 2", got)
	}
	if got := count(sales); got != 1 {
		t.Fatalf("sales sees %d relations, want 1", got)
	}
}
