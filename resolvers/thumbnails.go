package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) createThumbnail(ctx context.Context, input model.CreateThumbnailInput) (*model.CreateThumbnailPayload, error) {
	return nil, errPending
}

func (r *Resolver) itemThumbnails(ctx context.Context, obj *store.Item, index, size *int) (*model.ThumbnailPage, error) {
	return nil, errPending
}

func (r *Resolver) thumbnailAt(ctx context.Context, itemID, position string) (*store.Thumbnail, error) {
	return nil, errPending
}
