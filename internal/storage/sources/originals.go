package sources

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// Original opens the store that holds an item's original, answering the
// original's key in it and whether Loupe owns the object (may delete it once
// moved). location is the item's sourceFileLocation (loupe.FilesScheme and
// the others) and storageID its ingestSourceStorageId. ENOTFOUND when the
// storage location or ingest source it names is gone; EINVALID when the
// item has no original Loupe can read.
func (s *Sources) Original(ctx context.Context, tenantID, location, storageID string) (blob.Store, string, bool, error) {
	if key, ok := loupe.FileKey(location); ok && blob.ValidKey(key) == nil {
		if s.Files == nil {
			return nil, "", false, fmt.Errorf("this server has no file store")
		}
		return s.Files, key, true, nil
	}
	if rest, ok := strings.CutPrefix(location, loupe.LocationsScheme); ok {
		id, key, _ := strings.Cut(rest, "/")
		l, err := s.Store.StorageLocation(ctx, tenantID, id)
		if err != nil {
			return nil, "", false, err
		}
		b, err := s.OpenLocation(ctx, l)
		if err != nil {
			return nil, "", false, err
		}
		return b, key, true, nil
	}
	if strings.HasPrefix(location, loupe.BucketScheme) && storageID != "" {
		b, key, err := s.ingested(ctx, tenantID, storageID, location)
		return b, key, false, err
	}
	return nil, "", false, loupe.Invalid("the item has no original Loupe can read (sourceFileLocation %q)", location)
}

// ingested opens the original of an item ingested in place: location is
// s3://bucket/key and storageID the ingest configuration or gateway whose
// sealed credentials reach the bucket (docs/ingest.md).
func (s *Sources) ingested(ctx context.Context, tenantID, storageID, location string) (blob.Store, string, error) {
	rest, ok := strings.CutPrefix(location, loupe.BucketScheme)
	bucket, key, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || key == "" {
		return nil, "", fmt.Errorf("sourceFileLocation %q is not s3://bucket/key", location)
	}
	var a Access
	if c, err := s.Store.IngestConfig(ctx, tenantID, storageID); err == nil {
		a = ConfigAccess(c)
	} else if loupe.ErrorKind(err) != loupe.ENOTFOUND {
		return nil, "", err
	} else if g, gerr := s.Store.GatewayConfig(ctx, tenantID, storageID); gerr == nil {
		a = GatewayAccess(g)
	} else {
		return nil, "", gerr
	}
	if a.Bucket != bucket {
		return nil, "", fmt.Errorf("sourceFileLocation %q is not in the bucket of ingest source %s", location, storageID)
	}
	b, secret, err := s.Bucket(ctx, a)
	if err != nil {
		return nil, "", BucketError("the ingest source's bucket cannot be opened", err, secret)
	}
	return b, key, nil
}
