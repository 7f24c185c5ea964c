package resolvers_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// A page asking only lean fields (resolvers/lean.go) reads lean rows; it
// must answer exactly what the same page reading whole rows answers, for
// the page's items and for the related items, at the same statements.
func TestLeanPagesAnswerWhatWholeRowsAnswer(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	folder := createItem(t, a, map[string]any{"title": "Reel", "itemType": "folder"}).ID
	other := createItem(t, a, map[string]any{"title": "Elsewhere", "itemType": "folder"}).ID
	var ids []string
	for i := range 6 {
		parents := []string{folder}
		if i%2 == 0 {
			parents = append(parents, other)
		}
		id := createItem(t, a, map[string]any{"title": fmt.Sprint("Clip ", i), "itemType": []string{"video", "image"}[i%2],
			"folderParents": parents}).ID
		ids = append(ids, id)
		for j := range i % 3 {
			comment(t, a, "createComment", map[string]any{"itemId": id, "text": fmt.Sprint("note ", j)})
		}
	}
	for i := 1; i < len(ids); i++ {
		a.Put(t, "/api/v1/items/"+ids[i]+"/relations/version", map[string]any{"relatedItemIds": []string{ids[i-1]}}).Status(200)
	}

	type page struct {
		Items struct {
			Nodes []struct {
				ID, Title, ItemType, CreatedOn, CreatedBy string
				Folders                                   []struct{ Name string }
				Comments                                  struct{ Nodes []struct{ ID, Text string } }
				Relations                                 []struct {
					RelationType string
					Direction    string
					Item         *struct{ ID, Title, ItemType string }
				}
			}
			PageInfo struct{ HasNextPage bool }
		}
	}
	const lean = `query($f: ID!) { items(first: 10, filter: {folderId: $f}, orderBy: CREATED_ASC) {
	  nodes { id title itemType createdOn createdBy folders { name } comments(first: 2, orderBy: CREATED_DESC) { nodes { id text } }
	          relations { relationType direction item { id title itemType } } }
	  pageInfo { hasNextPage } } }`
	// The same, plus one field a lean row does not have on each level:
	// whole rows are read.
	const whole = `query($f: ID!) { items(first: 10, filter: {folderId: $f}, orderBy: CREATED_ASC) {
	  nodes { id title itemType createdOn createdBy folders { name } comments(first: 2, orderBy: CREATED_DESC) { nodes { id text } }
	          relations { relationType direction item { id title itemType technicalMetadata } } technicalMetadata }
	  pageInfo { hasNextPage } } }`
	vars := map[string]any{"f": folder}
	var got, want page
	api.Statements.Reset()
	a.GraphQL(t, lean, vars).OK(&got)
	leanCost := api.Statements.Count()
	api.Statements.Reset()
	a.GraphQL(t, whole, vars).OK(&want)
	wholeCost := api.Statements.Count()
	if len(got.Items.Nodes) != 6 || got.Items.Nodes[5].Relations[0].Item == nil {
		t.Fatalf("lean page: %+v", got)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lean page\n %+v\nwhole rows\n %+v", got, want)
	}
	if leanCost != wholeCost {
		t.Errorf("lean page cost %d statements, whole rows %d", leanCost, wholeCost)
	}
}
