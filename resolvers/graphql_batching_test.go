package resolvers_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// maxStatements bounds what one nested page may cost, whatever its size:
// 1 page (or 1 nodes lookup) + 1 folders of the items + 1 per parent level
// + 1 attachments, with room for one more (the key is cached).
const maxStatements = 6

// library is a tenant with a folder tree top > mid > leaf and items that each
// sit in leaf and mid and carry two attachments.
type library struct {
	api            *loupetest.API
	client         *loupetest.Client
	top, mid, leaf string
	items          []string // oldest first
}

func newLibrary(t *testing.T, items int) *library {
	t.Helper()
	api := loupetest.New(t)
	l := &library{api: api, client: api.Tenant(t, "a")}
	l.top = createItem(t, l.client, map[string]any{"title": "Top", "itemType": "folder"}).ID
	l.mid = createItem(t, l.client, map[string]any{"title": "Mid", "itemType": "folder", "folderParents": []string{l.top}}).ID
	l.leaf = createItem(t, l.client, map[string]any{"title": "Leaf", "itemType": "folder", "folderParents": []string{l.mid}}).ID
	for i := range items {
		id := createItem(t, l.client, map[string]any{"title": fmt.Sprintf("Clip %02d", i), "itemType": "video",
			"folderParents": []string{l.leaf, l.mid}}).ID
		l.items = append(l.items, id)
		// There is no API for attachments yet: they go in behind it.
		for _, name := range []string{"poster.jpg", "subs.vtt"} {
			if _, err := api.DB.Exec(`INSERT INTO attachments (tenant_id, item_id, file_name, type, role, user_id, blob_key)
				VALUES ($1, $2, $3, 'file', 'file', $4, $5)`, l.client.TenantID, id, name, l.client.UserID, id+"/"+name); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l
}

// nestedItem is an item with its folders two parents up and its attachments.
type nestedItem struct {
	ID      string `json:"id"`
	Folders []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Parent *struct {
			Name   string `json:"name"`
			Parent *struct {
				Name string `json:"name"`
			} `json:"parent"`
		} `json:"parent"`
	} `json:"folders"`
	Attachments []struct {
		FileName string `json:"fileName"`
	} `json:"attachments"`
}

const nestedFields = `id folders { id name parent { name parent { name } } } attachments { fileName }`

// check fails unless it is one of the library's items with its folders, their
// parents and its attachments.
func (l *library) check(t *testing.T, it nestedItem) {
	t.Helper()
	if len(it.Folders) != 2 {
		t.Fatalf("item %s: %d folders, want 2", it.ID, len(it.Folders))
	}
	leaf, mid := it.Folders[0], it.Folders[1]
	if leaf.ID != l.leaf || leaf.Name != "Leaf" || leaf.Parent == nil || leaf.Parent.Name != "Mid" ||
		leaf.Parent.Parent == nil || leaf.Parent.Parent.Name != "Top" {
		t.Fatalf("item %s: first folder %+v, want Leaf in Mid in Top", it.ID, leaf)
	}
	if mid.ID != l.mid || mid.Name != "Mid" || mid.Parent == nil || mid.Parent.Name != "Top" || mid.Parent.Parent != nil {
		t.Fatalf("item %s: second folder %+v, want Mid in Top", it.ID, mid)
	}
	var files []string
	for _, a := range it.Attachments {
		files = append(files, a.FileName)
	}
	if !slices.Equal(files, []string{"poster.jpg", "subs.vtt"}) {
		t.Fatalf("item %s: attachments %v", it.ID, files)
	}
}

// statements runs query and answers how many SQL statements it cost.
func (l *library) statements(t *testing.T, query string, vars map[string]any, out any) int64 {
	t.Helper()
	l.api.Statements.Reset()
	r := l.client.GraphQL(t, query, vars)
	n := l.api.Statements.Count()
	r.OK(out)
	return n
}

func TestNestedItemPageCostsTheSameStatementsWhateverItsSize(t *testing.T) {
	l := newLibrary(t, 40)
	const query = `query($first: Int) { items(first: $first, filter: {itemType: "video"}) { nodes { ` + nestedFields + ` } } }`

	// Each size runs a few times: batching that depends on luck shows.
	counts := map[int][]int64{}
	for range rounds {
		for _, n := range []int{5, 40, 1} {
			var out struct {
				Items struct{ Nodes []nestedItem }
			}
			counts[n] = append(counts[n], l.statements(t, query, map[string]any{"first": n}, &out))
			if len(out.Items.Nodes) != n {
				t.Fatalf("first %d: %d nodes", n, len(out.Items.Nodes))
			}
			for i, it := range out.Items.Nodes {
				if want := l.items[len(l.items)-1-i]; it.ID != want {
					t.Fatalf("first %d: node %d is %s, want %s", n, i, it.ID, want)
				}
				l.check(t, it)
			}
		}
	}
	t.Logf("statements of items(first: N) with folders, two parent levels and attachments: %v", counts)
	sameCost(t, "items(first: N)", counts)
}

// rounds is how often each size is asked for.
const rounds = 3

// sameCost fails unless every run of every size cost the same number of
// statements, and no more than maxStatements.
func sameCost(t *testing.T, what string, counts map[int][]int64) {
	t.Helper()
	var want int64 = -1
	for _, runs := range counts {
		for _, c := range runs {
			if want == -1 {
				want = c
			}
			if c != want {
				t.Fatalf("%s: statements per N over %d runs each: %v; want one constant count whatever N. "+
					"The nested fields are not batched into one query per level (N+1): the dataloaders "+
					"(loaders/) split the list into several batches", what, rounds, counts)
			}
		}
	}
	if want > maxStatements {
		t.Fatalf("%s: %d statements, want at most %d", what, want, maxStatements)
	}
}

func TestNestedNodesCostTheSameStatementsWhateverTheirNumber(t *testing.T) {
	l := newLibrary(t, 40)
	const query = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Item { ` + nestedFields + ` } } }`

	counts := map[int][]int64{}
	for range rounds {
		for _, n := range []int{5, 40} {
			ids := l.items[:n]
			var out struct{ Nodes []nestedItem }
			counts[n] = append(counts[n], l.statements(t, query, map[string]any{"ids": ids}, &out))
			if len(out.Nodes) != n {
				t.Fatalf("%d ids: %d nodes", n, len(out.Nodes))
			}
			for i, it := range out.Nodes {
				if it.ID != ids[i] {
					t.Fatalf("%d ids: node %d is %s, want %s", n, i, it.ID, ids[i])
				}
				l.check(t, it)
			}
		}
	}
	t.Logf("statements of nodes(ids: [N item ids]) with folders, two parent levels and attachments: %v", counts)
	sameCost(t, "nodes(ids: [N ids])", counts)

	// Folders, items and audit records mixed cost at most one lookup each.
	mixed := append([]string{l.top, l.mid, l.leaf, auditRecordID(t, l.client, l.items[0], "create")}, l.items...)
	var out struct{ Nodes []struct{ ID string } }
	n := l.statements(t, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, map[string]any{"ids": mixed}, &out)
	t.Logf("nodes(ids: [%d folders, items and an audit record]): %d statements", len(mixed), n)
	if n > 3 { // items + folders + audit records
		t.Fatalf("nodes of folders, items and an audit record cost %d statements, want at most 4", n)
	}
	for i, node := range out.Nodes {
		if node.ID != mixed[i] {
			t.Fatalf("node %d is %q, want %s", i, node.ID, mixed[i])
		}
	}
}

// Item.upload of a page of items is one query, whatever its size; items
// no upload was asked for cost none.
func TestItemUploadsAreBatched(t *testing.T) {
	l := newLibrary(t, 0)
	for i := range 12 {
		l.client.GraphQL(t, `mutation($in: StartUploadInput!) { startUpload(input: $in) { upload { id } } }`,
			map[string]any{"in": map[string]any{"fileName": fmt.Sprintf("clip%02d.mp4", i), "size": 1000 + i,
				"itemType": "video"}}).OK(nil)
	}
	l.items = nil
	createItem(t, l.client, map[string]any{"title": "No upload", "itemType": "video"})
	const query = `query($first: Int) { items(first: $first, filter: {itemType: "video"}) { nodes { id upload { state size } } } }`
	counts := map[int][]int64{}
	for range rounds {
		for _, n := range []int{2, 13, 6} {
			var out struct {
				Items struct {
					Nodes []struct {
						ID     string
						Upload *struct {
							State string
							Size  int
						}
					}
				}
			}
			counts[n] = append(counts[n], l.statements(t, query, map[string]any{"first": n}, &out))
			if len(out.Items.Nodes) != n || out.Items.Nodes[0].Upload != nil {
				t.Fatalf("first %d: %+v", n, out.Items.Nodes)
			}
			for _, it := range out.Items.Nodes[1:] {
				if it.Upload == nil || it.Upload.State != "uploading" || it.Upload.Size < 1000 {
					t.Fatalf("first %d: item %s upload %+v", n, it.ID, it.Upload)
				}
			}
		}
	}
	t.Logf("statements of items(first: N) { upload }: %v", counts)
	sameCost(t, "items(first: N) { upload }", counts)
}
