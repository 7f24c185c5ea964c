package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

// searchQueryOf applies the schema's defaults to the search arguments.
// Returns EINVALID for a metadataField without metadataValue (or the other
// way round); the store validates the rest.
func searchQueryOf(searchString, folderID *string, includeSubfolders, includeFolders *bool, from, itemsPerPage *int,
	filter *model.SearchFilter, facetField *string) (store.SearchQuery, error) {
	q := store.SearchQuery{Size: defaultSearchPage}
	if searchString != nil {
		q.Text = *searchString
	}
	if folderID != nil {
		q.FolderID = *folderID
	}
	q.IncludeSubfolders = includeSubfolders != nil && *includeSubfolders
	q.IncludeFolders = includeFolders != nil && *includeFolders
	if from != nil {
		q.From = *from
	}
	if itemsPerPage != nil {
		q.Size = *itemsPerPage
	}
	if facetField != nil {
		q.FacetField = *facetField
	}
	if filter == nil {
		return q, nil
	}
	q.ItemTypes = filter.ItemTypes
	q.TranscodingStates = filter.TranscodingStates
	q.CreatedFrom, q.CreatedTo = filter.CreatedFrom, filter.CreatedTo
	for _, m := range filter.Metadata {
		q.Metadata = append(q.Metadata, store.MetadataMatch{Field: m.Field, Value: m.Value})
	}
	switch {
	case filter.MetadataField != nil && filter.MetadataValue != nil:
		q.Metadata = append(q.Metadata, store.MetadataMatch{Field: *filter.MetadataField, Value: *filter.MetadataValue})
	case filter.MetadataField != nil:
		return q, loupe.Invalid("metadataField needs a metadataValue")
	case filter.MetadataValue != nil:
		return q, loupe.Invalid("metadataValue needs a metadataField")
	}
	return q, nil
}

// selected is whether the current field's selection asks for the field
// name (facets are counted only then).
func selected(ctx context.Context, name string) bool {
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == name {
			return true
		}
	}
	return false
}

// searchStringOf is the search string of the search an item was found by
// (the field Query.search above it), and false when the item is not a
// search hit.
func searchStringOf(ctx context.Context) (string, bool) {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if fc.Object == "Query" && fc.Field.Field != nil && fc.Field.Name == "search" {
			s, _ := fc.Args["searchString"].(*string)
			if s == nil {
				return "", true
			}
			return *s, true
		}
	}
	return "", false
}
