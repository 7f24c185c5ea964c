package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/loupe-mam/loupe/store"
)

// A list of items whose selection asks only for fields of a lean row reads
// lean rows (store.itemFields' lean set): a grid's page asks for a title, the
// folders, comments and relations, and reading every item's JSON documents
// and folder list besides cost it a tenth of its requests per second
// (docs/performance.md).

// leanItemFields are the Item fields a lean row serves: those its columns
// answer (store.ItemLeanGQL, from the item's field table), and resolvers
// that need only the item's id.
var leanItemFields = fieldNames(store.ItemLeanGQL, "__typename",
	"folders",   // FoldersOfItem, by id
	"comments",  // CommentsOfItem, by id
	"relations", // RelationsOfItem, by id
)

// leanItems reports whether every Item field sel asks for is lean.
func leanItems(oc *graphql.OperationContext, sel ast.SelectionSet) bool {
	return asksOnly(oc, sel, "Item", leanItemFields)
}

// leanConnection reports whether the ItemConnection field being resolved
// asks its items (nodes, edges.node) for lean fields only.
func leanConnection(ctx context.Context) bool {
	return connectionAsksOnly(ctx, "Item", leanItemFields)
}

// leanField reports whether the Item-valued field being resolved asks for
// lean fields only.
func leanField(ctx context.Context) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return false
	}
	return leanItems(graphql.GetOperationContext(ctx), fc.Field.Selections)
}

// bareCommentFields are the Comment fields a bare comment serves: those
// its columns answer (store.CommentBareGQL, from the comment's field
// table).
var bareCommentFields = fieldNames(store.CommentBareGQL, "__typename")

// fieldNames is the set of the names in lists.
func fieldNames(fromColumns []string, more ...string) map[string]bool {
	out := make(map[string]bool, len(fromColumns)+len(more))
	for _, n := range append(slices.Clip(fromColumns), more...) {
		out[n] = true
	}
	return out
}

// bareComments reports whether the CommentConnection field being resolved
// asks its comments (nodes, edges.node) for bare fields only: then they are
// read bare (store.FirstCommentsOfItems).
func bareComments(ctx context.Context) bool {
	return connectionAsksOnly(ctx, "Comment", bareCommentFields)
}

// asksOnly reports whether sel asks objects of type typ only for fields in
// allowed.
func asksOnly(oc *graphql.OperationContext, sel ast.SelectionSet, typ string, allowed map[string]bool) bool {
	for _, f := range graphql.CollectFields(oc, sel, []string{typ, "Node"}) {
		if !allowed[f.Name] {
			return false
		}
	}
	return true
}

// connectionAsksOnly reports whether the <typ>Connection field being
// resolved asks its nodes (nodes, edges.node) only for fields in allowed.
// Outside an operation (no field context) it answers false: read whole.
func connectionAsksOnly(ctx context.Context, typ string, allowed map[string]bool) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return false
	}
	oc := graphql.GetOperationContext(ctx)
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, []string{typ + "Connection"}) {
		switch f.Name {
		case "nodes":
			if !asksOnly(oc, f.Selections, typ, allowed) {
				return false
			}
		case "edges":
			for _, e := range graphql.CollectFields(oc, f.Selections, []string{typ + "Edge"}) {
				if e.Name == "node" && !asksOnly(oc, e.Selections, typ, allowed) {
					return false
				}
			}
		}
	}
	return true
}
