package resolvers

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/blob"
	"github.com/loupe-mam/loupe/internal/reqlog"
	"github.com/loupe-mam/loupe/store"
)

// itemAttachments answers Item.attachments through the batched loader; with
// fileName, just that attachment (NOT_FOUND when the item has none of that
// name).
func (r *Resolver) itemAttachments(ctx context.Context, obj *store.Item, fileName *string) ([]*store.Attachment, error) {
	if !obj.HasAttachments {
		if fileName != nil {
			return nil, &loupe.Error{Kind: loupe.ENOTFOUND, Message: store.MsgAttachmentNotFound}
		}
		return []*store.Attachment{}, nil
	}
	all, err := r.loaders(ctx).AttachmentsOfItem.Load(ctx, obj.ID)
	if err != nil || fileName == nil {
		return all, err
	}
	for _, a := range all {
		if a.FileName == *fileName {
			return []*store.Attachment{a}, nil
		}
	}
	return nil, &loupe.Error{Kind: loupe.ENOTFOUND, Message: store.MsgAttachmentNotFound}
}

func (r *Resolver) createAttachment(ctx context.Context, input store.CreateAttachmentInput) (*model.CreateAttachmentPayload, error) {
	p, err := r.onItem(ctx, input.ItemID, true, &loupe.Error{Kind: loupe.ENOTFOUND, Message: store.MsgAttachmentItemNotFound})
	if err != nil {
		return nil, err
	}
	key := attachmentKey(p.TenantID, input.ItemID, input.FileName)
	a, oldKey, err := r.Store.CreateAttachment(ctx, p, &input, key)
	if err != nil {
		return nil, err
	}
	r.deleteFile(ctx, oldKey)
	return &model.CreateAttachmentPayload{
		UploadURL:  r.Blobs.URL("PUT", key, time.Now(), blob.LinkValidity),
		Attachment: a,
	}, nil
}

func (r *Resolver) updateAttachment(ctx context.Context, input store.UpdateAttachmentInput) (*store.Attachment, error) {
	p, err := r.onItem(ctx, input.ItemID, true, &loupe.Error{Kind: loupe.ENOTFOUND, Message: store.MsgAttachmentItemNotFound})
	if err != nil {
		return nil, err
	}
	return r.Store.UpdateAttachment(ctx, p, &input)
}

func (r *Resolver) deleteAttachment(ctx context.Context, input model.DeleteAttachmentInput) (*model.DeleteAttachmentPayload, error) {
	p, err := r.onItem(ctx, input.ItemID, true, &loupe.Error{Kind: loupe.ENOTFOUND, Message: store.MsgAttachmentItemNotFound})
	if err != nil {
		return nil, err
	}
	key, err := r.Store.DeleteAttachment(ctx, p.TenantID, input.ItemID, input.FileName)
	if err != nil {
		return nil, err
	}
	r.deleteFile(ctx, key)
	return &model.DeleteAttachmentPayload{FileName: input.FileName}, nil
}

func (r *Resolver) attachmentsPrecheck(ctx context.Context, itemID string, fileNames []string) (*model.AttachmentsPrecheck, error) {
	p, err := r.onItem(ctx, itemID, false, &loupe.Error{Kind: loupe.ENOTFOUND, Message: store.MsgAttachmentItemNotFound})
	if err != nil {
		return nil, err
	}
	names, err := r.Store.AttachmentsPrecheck(ctx, p.TenantID, itemID, fileNames)
	if err != nil {
		return nil, err
	}
	return &model.AttachmentsPrecheck{ExistingFileNames: names}, nil
}

// itemFilesPrefix is where an item's files live in blob storage.
func itemFilesPrefix(tenantID, itemID string) string {
	return tenantID + "/items/" + itemID + "/"
}

// attachmentKey is a fresh key for an attachment's file:
// <tenant>/items/<item>/attachments/<uuid>[.ext]. Each upload gets a new
// key, so a replaced file is never served half-written and the old one can
// go once the database points at the new one. The file name's extension
// (when short and plain) is kept so that downloads get its Content-Type.
func attachmentKey(tenantID, itemID, fileName string) string {
	return itemFilesPrefix(tenantID, itemID) + "attachments/" + uuid.NewString() + safeExt(fileName)
}

// safeExt is the lowercased extension of name when it is 1 to 10 ASCII
// letters or digits, else "".
func safeExt(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if len(ext) < 2 || len(ext) > 11 {
		return ""
	}
	for _, c := range ext[1:] {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return ""
		}
	}
	return ext
}

// deleteFile removes a file the database no longer points at. A failure
// leaves an orphan, which costs space but no correctness, so it is logged
// rather than failing a write that has already committed.
func (r *Resolver) deleteFile(ctx context.Context, key string) {
	if key == "" || r.Files == nil {
		return
	}
	if err := r.Files.Delete(context.WithoutCancel(ctx), key); err != nil {
		reqlog.From(ctx).WarnContext(ctx, "could not delete replaced file", "key", key, "err", err)
	}
}
