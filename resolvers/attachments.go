package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) itemAttachments(ctx context.Context, obj *store.Item, fileName *string) ([]*store.Attachment, error) {
	all, err := r.loaders(ctx).AttachmentsOfItem.Load(ctx, obj.ID)
	if err != nil || fileName == nil {
		return all, err
	}
	return nil, errPending
}

func (r *Resolver) createAttachment(ctx context.Context, input store.CreateAttachmentInput) (*model.CreateAttachmentPayload, error) {
	return nil, errPending
}

func (r *Resolver) updateAttachment(ctx context.Context, input store.UpdateAttachmentInput) (*store.Attachment, error) {
	return nil, errPending
}

func (r *Resolver) deleteAttachment(ctx context.Context, input model.DeleteAttachmentInput) (*model.DeleteAttachmentPayload, error) {
	return nil, errPending
}

func (r *Resolver) attachmentsPrecheck(ctx context.Context, itemID string, fileNames []string) (*model.AttachmentsPrecheck, error) {
	return nil, errPending
}
