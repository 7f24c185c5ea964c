package resolvers

import (
	"context"
	"time"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
)

// itemChanges is the poll of changes: every item modified at or after since,
// deleted ones included, oldest change first (docs/search.md).
func (r *Resolver) itemChanges(ctx context.Context, since time.Time, first *int, after *string) (*model.ItemConnection, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	q, err := changesQuery(since, first, after)
	if err != nil {
		return nil, err
	}
	return r.itemPage(ctx, p, q)
}

// search is the full-text search over the tenant's live items.
func (r *Resolver) search(ctx context.Context, searchString, folderID *string, includeSubfolders, includeFolders *bool, from, itemsPerPage *int) (*model.SearchResult, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	q := searchQuery(searchString, folderID, includeSubfolders, includeFolders, from, itemsPerPage)
	total, items, err := r.Store.Search(ctx, p, q)
	if err != nil {
		return nil, err
	}
	r.hints(ctx).HintItems(items)
	return &model.SearchResult{Total: total, Embedded: &model.SearchEmbedded{Collection: items}}, nil
}
