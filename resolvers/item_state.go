package resolvers

import (
	"context"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) renameVersion(ctx context.Context, in model.RenameVersionInput) (*model.VersionsPayload, error) {
	p, err := r.onItem(ctx, in.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	if err := r.Store.RenameVersion(ctx, p.TenantID, in.ItemID, in.VersionID, in.Name); err != nil {
		return nil, err
	}
	versions, err := r.Store.VersionsOfItems(ctx, p.TenantID, []string{in.ItemID})
	if err != nil {
		return nil, err
	}
	return &model.VersionsPayload{Versions: versions[in.ItemID]}, nil
}

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

func (r *Resolver) updateMediaUsage(ctx context.Context, in model.UpdateMediaUsageInput) (*model.MediaUsagePayload, error) {
	p, err := r.onItem(ctx, in.ItemID, false, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	u := store.MediaUsage{LastUsedOn: time.Now().UTC().Truncate(time.Millisecond), LastUsedWorkflow: in.LastUsedWorkflow}
	if in.LastUsedOn != nil {
		u.LastUsedOn = *in.LastUsedOn
	}
	if err := r.Store.SetMediaUsage(ctx, p.TenantID, in.ItemID, u); err != nil {
		return nil, err
	}
	return &model.MediaUsagePayload{ItemID: in.ItemID, MediaUsage: &u}, nil
}

func (r *Resolver) migrateMediaLocation(ctx context.Context, in model.MigrateMediaLocationInput) (*model.MigrateMediaLocationPayload, error) {
	p, err := r.onItem(ctx, in.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	if err := r.Store.MigrateMediaLocation(ctx, p.TenantID, in.ItemID, in.SourceFileLocation, in.GeneratedContentLocation); err != nil {
		return nil, err
	}
	return &model.MigrateMediaLocationPayload{Message: "Media location migrated.", StatusCode: 200}, nil
}

func (r *Resolver) itemsByExternalID(ctx context.Context, externalIDs []string) ([]*store.ExternalIDMatch, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.ItemsByExternalIDs(ctx, p, externalIDs)
}
