package graph

import (
	"time"

	"github.com/loupe-mam/loupe/graph/model"
)

// Complexity weighs list fields by the page they ask for, so that the
// complexity limit bounds the rows an operation can make Loupe read.
func Complexity() ComplexityRoot {
	var c ComplexityRoot
	c.Query.Items = func(child int, first *int, _ *string, _ *model.ItemFilter, _ *model.ItemOrder) int {
		return page(child, first, 20)
	}
	c.Query.ItemChanges = func(child int, _ time.Time, first *int, _ *string) int { return page(child, first, 50) }
	c.Query.Search = func(child int, _, _ *string, _, _ *bool, _ *int, itemsPerPage *int, _ *model.SearchFilter, _ *string) int {
		return page(child, itemsPerPage, 25)
	}
	c.Query.Nodes = func(child int, ids []string) int { return 1 + len(ids)*child }
	// A bulk edit answers one result per item it names.
	c.Mutation.UpdateItemsMetadata = func(child int, in model.UpdateItemsMetadataInput) int {
		return 1 + max(len(in.Edits), len(in.Ids))*child
	}
	c.Query.ItemAnalytics = func(child int, _ *model.AuditFilter, _ *int, size *int) int {
		n := 50
		if size != nil && *size > 0 {
			n = *size
		}
		return 1 + n*child/10 // audit hits are flat records read in one query
	}
	c.Item.Comments = func(child int, first *int, _ *string, _ *model.CommentOrder) int { return page(child, first, 20) }
	c.Item.Thumbnails = func(child int, _ *int, size *int) int { return page(child, size, 50) }
	return c
}

// page is the cost of a list field: its children times the page size.
func page(child int, size *int, def int) int {
	n := def
	if size != nil && *size > 0 {
		n = *size
	}
	return 1 + n*child
}
