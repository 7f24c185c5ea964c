package resolvers

import (
	"context"
	"time"

	"github.com/loupe-mam/loupe/graph/model"
)

func (r *Resolver) itemChanges(ctx context.Context, since time.Time, first *int, after *string) (*model.ItemConnection, error) {
	return nil, errPending
}

func (r *Resolver) search(ctx context.Context, searchString, folderID *string, includeSubfolders, includeFolders *bool, from, itemsPerPage *int) (*model.SearchResult, error) {
	return nil, errPending
}
