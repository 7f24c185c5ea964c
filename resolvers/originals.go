package resolvers

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/store"
)

// This file finds an item's original wherever it lies (docs/storage.md):
//
//	loupe://files/<key>                      Loupe's own file store (uploads)
//	loupe://locations/<locationId>/<key>     a storage location of the tenant (migrateMediaLocation)
//	s3://<bucket>/<key>                      an ingest source's bucket (ingested in place;
//	                                         ingestSourceStorageId names the configuration)

// locationsScheme starts an original kept in a storage location.
const locationsScheme = "loupe://locations/"

// locationOriginal is the sourceFileLocation of key in storage location id.
func locationOriginal(id, key string) string { return locationsScheme + id + "/" + key }

// OriginalStore opens the store that holds an item's original and answers
// it with the original's key in it, and whether Loupe owns the object (may
// delete it once moved).
func (r *Resolver) OriginalStore(ctx context.Context, tenantID, location, storageID string) (blob.Store, string, bool, error) {
	if key, ok := upload.KeyOfLocation(location); ok {
		if r.Files == nil {
			return nil, "", false, fmt.Errorf("this server has no file store")
		}
		return r.Files, key, true, nil
	}
	if rest, ok := strings.CutPrefix(location, locationsScheme); ok {
		id, key, _ := strings.Cut(rest, "/")
		s, err := r.locationStore(ctx, tenantID, id)
		if err != nil {
			return nil, "", false, err
		}
		return s, key, true, nil
	}
	if strings.HasPrefix(location, "s3://") && storageID != "" {
		s, key, err := r.IngestedSource(ctx, tenantID, storageID, location)
		return s, key, false, err
	}
	return nil, "", false, loupe.Invalid("the item has no original Loupe can read (sourceFileLocation %q)", location)
}

// OriginalOf is OriginalStore without ownership, for reading (the
// processing worker's Originals).
func (r *Resolver) OriginalOf(ctx context.Context, tenantID, location, storageID string) (blob.Store, string, error) {
	s, key, _, err := r.OriginalStore(ctx, tenantID, location, storageID)
	return s, key, err
}

// locationStore opens storage location id of the tenant with its sealed
// credentials.
func (r *Resolver) locationStore(ctx context.Context, tenantID, id string) (*blob.S3, error) {
	l, err := r.Store.StorageLocation(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	return r.openLocation(ctx, l)
}

func (r *Resolver) openLocation(ctx context.Context, l *store.StorageLocation) (*blob.S3, error) {
	c, err := r.locationConfig(l, true)
	if err != nil {
		return nil, loupe.Invalid("storage location %s cannot be opened: %s", l.ID, err.Error())
	}
	s, err := blob.NewS3(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("storage location %s: %s", l.ID, maskSecret(err.Error(), c.SecretAccessKey))
	}
	return s, nil
}
