package resolvers_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

func TestFolderFieldsInGraphQL(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	top := createItem(t, a, map[string]any{"title": "Top", "itemType": "folder"})
	var subs []string
	for _, n := range []string{"b", "c", "a"} {
		subs = append(subs, createItem(t, a, map[string]any{"title": n, "itemType": "folder", "folderParents": []string{top.ID}}).ID)
	}
	clip := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video", "folderParents": []string{subs[0]}})

	var out struct {
		Folder struct {
			Children struct {
				Nodes    []struct{ Name string }
				PageInfo struct {
					HasPreviousPage bool
					HasNextPage     bool
					StartCursor     string
					EndCursor       string
				}
			}
			Items struct{ Nodes []struct{ ID string } }
		}
	}
	q := `query($id: ID!, $after: String) { folder(id: $id) {
		children(first: 2, after: $after) { nodes { name } pageInfo { hasPreviousPage hasNextPage startCursor endCursor } }
		items { nodes { id } } } }`
	a.GraphQL(t, q, map[string]any{"id": top.ID}).OK(&out)
	names := []string{}
	for _, n := range out.Folder.Children.Nodes {
		names = append(names, n.Name)
	}
	if p := out.Folder.Children.PageInfo; !slices.Equal(names, []string{"a", "b"}) || !p.HasNextPage || p.HasPreviousPage ||
		p.StartCursor == "" || p.StartCursor == p.EndCursor || len(out.Folder.Items.Nodes) != 3 {
		t.Fatalf("first page: %+v", out.Folder)
	}
	a.GraphQL(t, q, map[string]any{"id": top.ID, "after": out.Folder.Children.PageInfo.EndCursor}).OK(&out)
	if p := out.Folder.Children.PageInfo; len(out.Folder.Children.Nodes) != 1 || out.Folder.Children.Nodes[0].Name != "c" || p.HasNextPage ||
		!p.HasPreviousPage || p.StartCursor != p.EndCursor {
		t.Fatalf("second page: %+v", out.Folder.Children)
	}

	var anc struct {
		Folder struct{ Ancestors []struct{ Name string } }
	}
	a.GraphQL(t, `query($id: ID!) { folder(id: $id) { ancestors { name } } }`, map[string]any{"id": subs[0]}).OK(&anc)
	if len(anc.Folder.Ancestors) != 1 || anc.Folder.Ancestors[0].Name != "Top" {
		t.Fatalf("ancestors = %+v", anc.Folder.Ancestors)
	}

	// Explicit membership changes.
	type parents struct{ FolderParents []string }
	var res map[string]parents
	a.GraphQL(t, `mutation($i: ID!, $f: ID!) { r: addItemToFolder(input: {itemId: $i, folderId: $f}) { folderParents } }`,
		map[string]any{"i": clip.ID, "f": subs[1]}).OK(&res)
	if !slices.Equal(res["r"].FolderParents, []string{subs[0], subs[1]}) {
		t.Fatalf("after add: %v", res["r"])
	}
	a.GraphQL(t, `mutation($i: ID!, $f: ID!, $t: ID!) { r: moveItem(input: {itemId: $i, fromFolderId: $f, toFolderId: $t}) { folderParents } }`,
		map[string]any{"i": clip.ID, "f": subs[0], "t": subs[2]}).OK(&res)
	if !slices.Equal(res["r"].FolderParents, []string{subs[2], subs[1]}) {
		t.Fatalf("after move: %v", res["r"])
	}
	a.GraphQL(t, `mutation($i: ID!, $f: ID!) { r: removeItemFromFolder(input: {itemId: $i, folderId: $f}) { folderParents } }`,
		map[string]any{"i": clip.ID, "f": subs[2]}).OK(&res)
	if !slices.Equal(res["r"].FolderParents, []string{subs[1]}) {
		t.Fatalf("after remove: %v", res["r"])
	}
	a.GraphQL(t, `mutation($i: ID!, $f: ID!) { removeItemFromFolder(input: {itemId: $i, folderId: $f}) { id } }`,
		map[string]any{"i": clip.ID, "f": subs[2]}).ErrorCode("NOT_FOUND")
	a.GraphQL(t, `mutation($i: ID!, $f: ID!) { addItemToFolder(input: {itemId: $i, folderId: $f}) { id } }`,
		map[string]any{"i": clip.ID, "f": missingID}).ErrorCode("BAD_USER_INPUT")
	a.GraphQL(t, `mutation($i: ID!, $f: ID!) { addItemToFolder(input: {itemId: $i, folderId: $f}) { id } }`,
		map[string]any{"i": subs[0], "f": subs[1]}).ErrorCode("BAD_USER_INPUT")
	api.Tenant(t, "b").GraphQL(t, `mutation($i: ID!, $f: ID!) { addItemToFolder(input: {itemId: $i, folderId: $f}) { id } }`,
		map[string]any{"i": clip.ID, "f": subs[0]}).ErrorCode("NOT_FOUND")
}

// A page of folder content with each entry's item costs the same statements
// whatever its size.
func TestFolderContentIsBatched(t *testing.T) {
	cost := map[int]int64{}
	for _, n := range []int{3, 40} {
		api := loupetest.New(t)
		a := api.Tenant(t, "a")
		f := createItem(t, a, map[string]any{"title": "F", "itemType": "folder"})
		for i := range n {
			createItem(t, a, map[string]any{"title": fmt.Sprint(i), "itemType": "video", "folderParents": []string{f.ID}})
		}
		api.Statements.Reset()
		var out struct {
			FolderContent struct {
				Total int
				Hits  []struct{ Item struct{ Title string } }
			}
		}
		a.GraphQL(t, `query($f: ID!) { folderContent(folderId: $f, size: 100) { total hits { item { title folders { name } } } } }`,
			map[string]any{"f": f.ID}).OK(&out)
		if out.FolderContent.Total != n || len(out.FolderContent.Hits) != n || out.FolderContent.Hits[0].Item.Title == "" {
			t.Fatalf("%d: %+v", n, out.FolderContent)
		}
		cost[n] = api.Statements.Count()
	}
	if cost[3] != cost[40] {
		t.Fatalf("statements for 3 and 40 entries: %d and %d, want equal", cost[3], cost[40])
	}
}

// A page of subfolders with each one's parent and ancestry costs the same
// statements whatever its size (the children hint their folders).
func TestSubfoldersAreBatched(t *testing.T) {
	cost := map[int]int64{}
	for _, n := range []int{2, 20} {
		api := loupetest.New(t)
		a := api.Tenant(t, "a")
		top := createItem(t, a, map[string]any{"title": "Top", "itemType": "folder"})
		f := createItem(t, a, map[string]any{"title": "F", "itemType": "folder", "folderParents": []string{top.ID}})
		for i := range n {
			createItem(t, a, map[string]any{"title": fmt.Sprint("sub ", i), "itemType": "folder", "folderParents": []string{f.ID}})
		}
		var out struct {
			Folder struct {
				Children struct {
					Nodes []struct {
						Parent    struct{ Name string }
						Ancestors []struct{ Name string }
					}
				}
			}
		}
		api.Statements.Reset()
		a.GraphQL(t, `query($f: ID!) { folder(id: $f) { children(first: 50) { nodes { name parent { name } ancestors { name } } } } }`,
			map[string]any{"f": f.ID}).OK(&out)
		cost[n] = api.Statements.Count()
		nodes := out.Folder.Children.Nodes
		if len(nodes) != n || nodes[0].Parent.Name != "F" || len(nodes[n-1].Ancestors) != 2 || nodes[n-1].Ancestors[0].Name != "Top" {
			t.Fatalf("%d subfolders: %+v", n, out.Folder.Children)
		}
	}
	if cost[2] != cost[20] {
		t.Fatalf("statements for 2 and 20 subfolders: %d and %d, want equal", cost[2], cost[20])
	}
}
