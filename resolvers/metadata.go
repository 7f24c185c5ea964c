package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/mdf"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) updateItemMetadata(ctx context.Context, in model.UpdateItemMetadataInput) (*model.UpdateItemMetadataPayload, error) {
	p, err := r.onItem(ctx, in.ID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	it, err := r.Store.UpdateItemMetadata(ctx, p, store.MetadataUpdate{
		ItemID: in.ID, FormID: in.MetadataDelta.FormID, FormData: in.MetadataDelta.FormData,
		RequiredVersion: in.RequiredMetadataVersion,
	})
	if err != nil {
		return nil, err
	}
	return &model.UpdateItemMetadataPayload{Item: it}, nil
}

func (r *Resolver) setCustomIcons(ctx context.Context, in model.SetCustomIconsInput) (*model.SetCustomIconsPayload, error) {
	p, err := r.onItem(ctx, in.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	it, err := r.Store.SetCustomIcons(ctx, p.TenantID, in.ItemID, in.CustomIcons, in.Merge != nil && *in.Merge)
	if err != nil {
		return nil, err
	}
	icons := it.CustomIcons()
	return &model.SetCustomIconsPayload{CustomIcons: &icons, Item: it}, nil
}

func (r *Resolver) updateTimedMetadata(ctx context.Context, in model.UpdateTimedMetadataInput) (*model.TimedMetadataPayload, error) {
	p, err := r.onItem(ctx, in.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	upsert := make([]store.TimedMetadataInput, len(in.Upsert))
	for i, e := range in.Upsert {
		upsert[i] = *e
	}
	items, err := r.Store.UpdateTimedMetadata(ctx, p.TenantID, in.ItemID, upsert, in.Delete)
	if err != nil {
		return nil, err
	}
	return &model.TimedMetadataPayload{Items: items}, nil
}

// readableFormData answers form data keyed by field labels, with the labels
// of choice values, when asked (readableMetadataFields). The form comes
// through the request's form loader; keys without a known label stay as
// they are.
func (r *Resolver) readableFormData(ctx context.Context, formID string, data loupe.JSON, readable bool) (loupe.JSON, error) {
	if !readable {
		return data, nil
	}
	form, err := r.loaders(ctx).Mdf.Load(ctx, formID)
	if err != nil && loupe.ErrorKind(err) != loupe.ENOTFOUND {
		return nil, err
	}
	return mdf.ReadableFormData(form, data)
}
