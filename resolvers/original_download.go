package resolvers

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// Messages of originalDownload.
const (
	msgOriginalForbidden = "You may not download this item's original: it needs the right to change the item."
	msgNoOriginal        = "The item has no original file (it was made without one, or its upload has not completed)."
	msgOriginalGone      = "The item's original is in a storage location or ingest source that no longer exists."
)

// originalDownload answers Query.originalDownload (REST GET
// /api/v1/items/{itemId}/original): a signed link to the item's original,
// wherever it lies. The original is the full-quality file a proxy stands in
// for, so it needs the right to change the item (docs/uploads.md); an item
// the principal may not see is missing, as everywhere.
func (r *queryResolver) originalDownload(ctx context.Context, itemID string) (*model.OriginalDownload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	it, err := r.Store.Item(ctx, p, itemID)
	if err != nil {
		return nil, err
	}
	if err := auth.Item(ctx, r.Store, p, it.ID, true, loupe.NotFound()); err != nil {
		if loupe.ErrorKind(err) == loupe.EFORBIDDEN {
			return nil, loupe.Forbidden("%s", msgOriginalForbidden)
		}
		return nil, err
	}
	location := deref(it.SourceFileLocation)
	if location == "" || it.ItemType == "folder" {
		return nil, &loupe.Error{Kind: loupe.ENOTFOUND, Message: msgNoOriginal}
	}
	now := time.Now()
	link, name, err := r.originalLink(ctx, p.TenantID, it, location, now)
	if err != nil {
		return nil, err
	}
	return &model.OriginalDownload{
		ItemID: it.ID, DownloadURL: link, FileName: name, Size: intOf(it.MediaSize), MediaType: it.MediaType,
		Sha256: it.MediaSHA256, ExpiresOn: now.Add(blob.LinkValidity).UTC().Truncate(time.Second),
	}, nil
}

// originalLink signs the link to the original at location: in Loupe's file
// store the Signer's (Loupe's /blobs/ link, or the bucket's presigned URL
// with direct downloads), elsewhere — a storage location, an ingest
// source's bucket — a URL presigned with that place's credentials (the
// link carries a signature, never the secret).
func (r *queryResolver) originalLink(ctx context.Context, tenantID string, it *store.Item, location string, now time.Time) (link, name string, err error) {
	if r.Sources == nil {
		return "", "", fmt.Errorf("resolvers: no sources to open originals with")
	}
	files, key, _, err := r.Sources.Original(ctx, tenantID, location, deref(it.IngestSourceStorageID))
	switch loupe.ErrorKind(err) {
	case loupe.ENOTFOUND:
		return "", "", &loupe.Error{Kind: loupe.ENOTFOUND, Message: msgOriginalGone}
	case loupe.EINVALID:
		var le *loupe.Error
		errors.As(err, &le)
		return "", "", &loupe.Error{Kind: loupe.ENOTFOUND, Message: msgNoOriginal, DeveloperMessage: le.Message}
	}
	if err != nil {
		return "", "", fmt.Errorf("resolvers: unable to open the original of %s: %w", it.ID, err)
	}
	name = it.OriginalFileName
	if name == "" {
		name = path.Base(key)
	}
	if _, ok := loupe.FileKey(location); ok {
		return r.Blobs.DownloadURL(key, name, now, blob.LinkValidity), name, nil
	}
	dp, ok := files.(blob.DownloadPresigner)
	if !ok {
		return "", "", fmt.Errorf("resolvers: the store of %s's original does not presign", it.ID)
	}
	link, err = dp.PresignDownload(ctx, key, name, min(blob.LinkValidity, blob.MaxPresignTTL))
	if err != nil {
		return "", "", fmt.Errorf("resolvers: unable to sign a link to the original of %s: %w", it.ID, err)
	}
	return link, name, nil
}

func intOf(n *int64) *int {
	if n == nil {
		return nil
	}
	v := int(*n)
	return &v
}
