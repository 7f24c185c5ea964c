package resolvers

import (
	"context"
	"fmt"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// msgOriginalForbidden answers a download of an original without the right.
const msgOriginalForbidden = "You may not download this item's original: it needs the right to change the item."

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
		return nil, &loupe.Error{Kind: loupe.ENOTFOUND, Message: sources.MsgNoOriginal}
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

// originalLink signs the link to the original at location
// (sources.OriginalDownload).
func (r *queryResolver) originalLink(ctx context.Context, tenantID string, it *store.Item, location string, now time.Time) (link, name string, err error) {
	if r.Sources == nil {
		return "", "", fmt.Errorf("resolvers: no sources to open originals with")
	}
	return r.Sources.OriginalDownload(ctx, r.Blobs, tenantID, location, deref(it.IngestSourceStorageID),
		it.OriginalFileName, now, blob.LinkValidity)
}

func intOf(n *int64) *int {
	if n == nil {
		return nil
	}
	v := int(*n)
	return &v
}
