package resolvers

import (
	"context"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/storage/sources"
)

// This file creates generated-media locations (spec 2.16;
// docs/generated-media-locations.md).

// msgCouldNotVerify is the spec's 400 of a location that cannot be
// verified (section 7).
const msgCouldNotVerify = "Could not verify location"

// newGeneratedMediaLocation is the location an input describes, its secret
// sealed; defaults as the schema says.
func (r *Resolver) newGeneratedMediaLocation(tenantID string, in *model.GeneratedMediaLocationInput) (*loupe.GeneratedMediaLocation, error) {
	g := &loupe.GeneratedMediaLocation{StorageProvider: loupe.StorageProviderObj, UploadGeneratedMedia: true,
		PlatformFolderID: in.PlatformFolderID}
	g.StorageLocation = *newLocation(&model.StorageLocationInput{
		Name: in.Name, BucketName: &in.BucketName, PathPrefix: in.PathPrefix, Endpoint: in.Endpoint, Region: in.Region,
		PathStyle: in.PathStyle, AccessType: in.AccessType, AccessKey: in.AccessKey, RoleIdentifier: in.RoleIdentifier,
		ExternalID: in.ExternalID,
	})
	g.TenantID, g.ID = tenantID, loupe.NewID()
	if in.Name == nil {
		g.Name = strings.TrimSuffix(in.BucketName+"/"+strings.TrimLeft(deref(in.PathPrefix), "/"), "/")
	}
	for _, b := range []struct {
		dst *bool
		v   *bool
	}{{&g.Backup, in.Backup}, {&g.DeleteEnabled, in.DeleteEnabled}, {&g.AutoCreateItems, in.AutoCreateItems},
		{&g.UploadGeneratedMedia, in.UploadGeneratedMedia}} {
		if b.v != nil {
			*b.dst = *b.v
		}
	}
	if in.StorageProvider != nil {
		g.StorageProvider = *in.StorageProvider
	}
	if g.AccessType == loupe.AccessKeyUser {
		if err := r.Sources.SealLocationSecret(&g.StorageLocation, deref(in.SecretKey)); err != nil {
			return nil, err
		}
	} else if in.SecretKey != nil {
		return nil, loupe.Invalid("secretKey is for accessType key-user")
	}
	return g, g.Validate()
}

// verifyGeneratedMedia writes and deletes a probe object under the
// location's prefix with its credentials and, when the server has an event
// target, attaches the bucket's object-created trigger to it (read back).
// A failure is the spec's 400 "Could not verify location", payload.key
// S3's error code (AccessDenied when it gave none) and payload.message what
// failed; never the secret.
func (r *Resolver) verifyGeneratedMedia(ctx context.Context, g *loupe.GeneratedMediaLocation) error {
	ctx, cancel := context.WithTimeout(ctx, sources.ProbeTimeout)
	defer cancel()
	s3, secret, err := r.Sources.CheckLocation(ctx, &g.StorageLocation)
	if err != nil {
		return couldNotVerify(err, secret)
	}
	if r.BucketEventsTarget == "" {
		return nil
	}
	g.EventsTarget = &r.BucketEventsTarget
	if err := s3.AttachEvents(ctx, "loupe-generated-media-"+g.ID, r.BucketEventsTarget); err != nil {
		return couldNotVerify(err, secret)
	}
	return nil
}

// couldNotVerify is the 400 answer for err, with secret blanked out.
func couldNotVerify(err error, secret string) error {
	key := sources.S3ErrorCode(err)
	if key == "" {
		key = "AccessDenied"
	}
	return &loupe.Error{Kind: loupe.EINVALID, Message: msgCouldNotVerify,
		Payload: map[string]any{"key": key, "message": sources.MaskSecret(err.Error(), secret)}}
}
