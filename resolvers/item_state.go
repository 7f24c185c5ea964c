package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
)

func (r *Resolver) setUploadLock(ctx context.Context, itemID string, owner *string) (*model.UploadLockPayload, error) {
	p, err := r.onItem(ctx, itemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	if err := r.Store.SetUploadLock(ctx, p.TenantID, itemID, owner); err != nil {
		return nil, err
	}
	return &model.UploadLockPayload{IsUploadLocked: owner != nil}, nil
}
