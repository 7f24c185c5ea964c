package resolvers

import (
	"context"
	"errors"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/usage"
)

// This file answers the tenant's storages (spec 2.13) and storage locations
// (/prime/api/v1/storages): admins write both, everyone reads storages, only
// admins read locations (docs/storage-locations.md).

// storageIDs are the input keys taken as typed strings only.
var storageIDs = []string{"id", "storageId"}

// applyStorage sets the fields of in that raw gives onto st; required
// fields given as null are refused.
func applyStorage(st *loupe.Storage, in *model.StorageInput, given map[string]bool) error {
	for _, f := range []struct {
		name string
		set  bool
	}{{"name", in.Name != nil}, {"private", in.Private != nil}, {"description", in.Description != nil}, {"owner", in.Owner != nil}} {
		if given[f.name] && !f.set {
			return loupe.Invalid("%s cannot be null", f.name)
		}
	}
	if in.Name != nil {
		st.Name = *in.Name
	}
	if in.Private != nil {
		st.Private = *in.Private
	}
	if in.Description != nil {
		st.Description = *in.Description
	}
	if in.Owner != nil {
		st.Owner = *in.Owner
	}
	return nil
}

// newLocation is the location a create input describes (defaults: type s3,
// accessType key-user).
func newLocation(in *model.StorageLocationInput) *loupe.StorageLocation {
	l := &loupe.StorageLocation{Type: loupe.LocationTypeS3, AccessType: loupe.AccessKeyUser}
	applyLocation(l, in, nil)
	return l
}

// applyLocation sets the fields of in onto l; a nullable field given as
// null (given[key] with a nil value) is cleared.
func applyLocation(l *loupe.StorageLocation, in *model.StorageLocationInput, given map[string]bool) {
	str := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	opt := func(dst **string, v *string, key string) {
		if v != nil || given[key] {
			*dst = v
		}
	}
	opt(&l.StorageID, in.StorageID, "storageId")
	str(&l.Name, in.Name)
	str(&l.Type, in.Type)
	str(&l.BucketName, in.BucketName)
	str(&l.PathPrefix, in.PathPrefix)
	str(&l.Endpoint, in.Endpoint)
	str(&l.Region, in.Region)
	if in.PathStyle != nil {
		l.PathStyle = *in.PathStyle
	}
	str(&l.AccessType, in.AccessType)
	opt(&l.AccessKey, in.AccessKey, "accessKey")
	opt(&l.RoleIdentifier, in.RoleIdentifier, "roleIdentifier")
	opt(&l.ExternalID, in.ExternalID, "externalId")
	if in.IsDefault != nil {
		l.IsDefault = *in.IsDefault
	}
}

// nonNullLocationKeys are the input keys that cannot be given as null.
var nonNullLocationKeys = []string{"name", "type", "bucketName", "pathPrefix", "endpoint", "region", "pathStyle",
	"accessType", "isDefault", "secretKey"}

// locationInput is the preamble of a location write (configInput): the
// admin, and the keys written, those that cannot be null refused as null.
func locationInput(ctx context.Context) (*loupe.Principal, map[string]bool, error) {
	p, in, err := configInput(ctx, msgStoragesAdminOnly, storageIDs, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := in.notNull(nonNullLocationKeys); err != nil {
		return nil, nil, err
	}
	return p, in.Given, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkLocation checks a location about to be saved: its fields, its
// storage (one of the tenant's), and a real probe of its bucket with its
// credentials (sources.ProbeLocation).
func (r *Resolver) checkLocation(ctx context.Context, tenantID string, l *loupe.StorageLocation) error {
	if err := l.Validate(); err != nil {
		return err
	}
	if l.StorageID != nil {
		if _, err := r.Store.Storage(ctx, tenantID, *l.StorageID); err != nil {
			if loupe.ErrorKind(err) == loupe.ENOTFOUND {
				return loupe.Invalid("storageId %q does not name a storage of the tenant", *l.StorageID)
			}
			return err
		}
	}
	return r.Sources.ProbeLocation(ctx, l)
}

// storageManagerConcurrency bounds the probes of one storage managers read.
const storageManagerConcurrency = 8

// maxStorageManagers bounds the locations one storage managers read probes.
const maxStorageManagers = 1000

// locationManagers probes every tenant's storage locations, a few at a time.
func (r *Resolver) locationManagers(ctx context.Context) ([]*model.StorageManager, error) {
	locs, err := r.Store.AllStorageLocations(ctx, maxStorageManagers)
	if err != nil {
		return nil, err
	}
	out := make([]*model.StorageManager, len(locs))
	sem := make(chan struct{}, storageManagerConcurrency)
	done := make(chan struct{})
	for i, l := range locs {
		m := &model.StorageManager{ID: l.ID, Type: l.Type, TenantID: ptr(l.TenantID), Name: ptr(l.Name),
			BucketName: ptr(l.BucketName), Status: "ok"}
		out[i] = m
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			if err := r.Sources.ProbeLocation(ctx, l); err != nil {
				var le *loupe.Error
				msg := err.Error()
				if errors.As(err, &le) {
					msg = le.Message
				}
				m.Status, m.Message = "unavailable", ptr(msg)
			}
		}()
	}
	for range locs {
		<-done
	}
	return out, nil
}

// filesType is the type of the server's own store: s3 or disk.
func filesType(files blob.Store) string {
	for {
		switch f := files.(type) {
		case *blob.S3:
			return "s3"
		case *usage.Files:
			files = f.Store
			continue
		}
		return "disk"
	}
}
