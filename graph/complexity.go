package graph

import "github.com/loupe-mam/loupe/graph/model"

// Complexity weighs list fields by the page they ask for, so that the
// complexity limit bounds the rows an operation can make Loupe read.
func Complexity() ComplexityRoot {
	var c ComplexityRoot
	c.Query.Items = func(child int, first *int, _ *string, _ *model.ItemFilter, _ *model.ItemOrder) int {
		n := 20
		if first != nil && *first > 0 {
			n = *first
		}
		return 1 + n*child
	}
	c.Query.Nodes = func(child int, ids []string) int { return 1 + len(ids)*child }
	c.Query.ItemAnalytics = func(child int, _ *model.AuditFilter, _ *int, size *int) int {
		n := 50
		if size != nil && *size > 0 {
			n = *size
		}
		return 1 + n*child/10 // audit hits are flat records read in one query
	}
	return c
}
