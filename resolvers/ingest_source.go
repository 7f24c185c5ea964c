package resolvers

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// IngestedSource opens the original of an ingested item where it lies:
// location is its sourceFileLocation (s3://bucket/key) and storageID its
// ingestSourceStorageId, the ingest configuration or gateway whose sealed
// credentials reach the bucket (docs/ingest.md). The processing worker
// reads it through this. ENOTFOUND when the configuration is gone.
func (r *Resolver) IngestedSource(ctx context.Context, tenantID, storageID, location string) (blob.Store, string, error) {
	rest, ok := strings.CutPrefix(location, "s3://")
	bucket, key, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || key == "" {
		return nil, "", fmt.Errorf("sourceFileLocation %q is not s3://bucket/key", location)
	}
	var a bucketAccess
	if c, err := r.Store.IngestConfig(ctx, tenantID, storageID); err == nil {
		a = configAccess(c)
	} else if loupe.ErrorKind(err) != loupe.ENOTFOUND {
		return nil, "", err
	} else if g, gerr := r.Store.GatewayConfig(ctx, tenantID, storageID); gerr == nil {
		a = gatewayAccess(g)
	} else {
		return nil, "", gerr
	}
	if a.bucket != bucket {
		return nil, "", fmt.Errorf("sourceFileLocation %q is not in the bucket of ingest source %s", location, storageID)
	}
	s3, secret, err := r.bucket(ctx, a)
	if err != nil {
		return nil, "", bucketError("the ingest source's bucket cannot be opened", err, secret)
	}
	return s3, key, nil
}
