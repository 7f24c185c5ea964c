package resolvers_test

import (
	"testing"

	"github.com/loupe-mam/loupe/resolvers"
)

// A list that forgets to hint its elements to the loaders still batches:
// the first element's load finds the list it sits in and fetches for all
// of it (loaders/doc.go). Forgetting costs a search of the list, never a
// query per element. Every resolver here forgets every hint.
func TestForgottenHintsStillBatch(t *testing.T) {
	l := newLibrary(t, 40)
	// Each list shape the loaders search: nodes, edges (the item one level
	// down), and nodes(ids) (an interface list); each with fields keyed by
	// item alone, by item and arguments (comments, thumbnails), and a level
	// further (folders' parents, relations' items).
	const fields = nestedFields + ` comments(first: 2) { nodes { id } } thumbnails(size: 3) { thumbnails { positionMs } }
		relations { item { id } }`
	queries := []struct {
		name  string
		query string
		vars  func(n int) map[string]any
		nodes func(out *hintlessPage) []nestedItem
	}{
		{"items(first: N) { nodes }",
			`query($n: Int) { items(first: $n, filter: {itemType: "video"}) { nodes { ` + fields + ` } } }`,
			func(n int) map[string]any { return map[string]any{"n": n} },
			func(out *hintlessPage) []nestedItem { return out.Items.Nodes }},
		{"items(first: N) { edges { node } }",
			`query($n: Int) { items(first: $n, filter: {itemType: "video"}) { edges { node { ` + fields + ` } } } }`,
			func(n int) map[string]any { return map[string]any{"n": n} },
			func(out *hintlessPage) []nestedItem {
				var its []nestedItem
				for _, e := range out.Items.Edges {
					its = append(its, e.Node)
				}
				return its
			}},
		{"nodes(ids: [N ids])",
			`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Item { ` + fields + ` } } }`,
			func(n int) map[string]any { return map[string]any{"ids": l.items[:n]} },
			func(out *hintlessPage) []nestedItem { return out.Nodes }},
	}
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			cost := func(n int) int64 {
				var out hintlessPage
				c := l.statements(t, q.query, q.vars(n), &out)
				its := q.nodes(&out)
				if len(its) != n {
					t.Fatalf("%d items asked, %d answered", n, len(its))
				}
				for _, it := range its {
					l.check(t, it)
				}
				return c
			}
			hinted := cost(40)
			resolvers.ForgetHints(t)
			counts := map[int][]int64{}
			for range rounds {
				for _, n := range []int{1, 5, 40} {
					counts[n] = append(counts[n], cost(n))
				}
			}
			t.Logf("statements with hints (N=40): %d; without, per N: %v", hinted, counts)
			var want int64 = -1
			for _, runs := range counts {
				for _, c := range runs {
					if want == -1 {
						want = c
					}
					if c != want {
						t.Fatalf("without hints, statements per N: %v; want one count whatever N (a query per element is N+1)", counts)
					}
				}
			}
			if want > hinted+2 {
				t.Fatalf("without hints %d statements, with hints %d", want, hinted)
			}
		})
	}
}

// hintlessPage is what the queries of TestForgottenHintsStillBatch answer.
type hintlessPage struct {
	Items struct {
		Nodes []nestedItem
		Edges []struct{ Node nestedItem }
	}
	Nodes []nestedItem
}
