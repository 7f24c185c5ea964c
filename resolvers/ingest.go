package resolvers

import (
	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/storage/ingest"
	"github.com/loupe-mam/loupe/internal/storage/sources"
)

// This file answers ingest from object storage (docs/ingest.md): ingest
// storage configurations (spec 2.14), gateway configs, upload locations
// (2.15) and one object ingested now (internal/storage/ingest does the
// ingesting). Only admins read or write configurations and gateways (they name buckets
// and access keys) and ingest; every user reads the upload locations.

// newIngestConfig is the configuration a create input describes.
func (r *Resolver) newIngestConfig(p *loupe.Principal, in *model.IngestStorageConfigInput) (*loupe.IngestStorageConfig, error) {
	c := &loupe.IngestStorageConfig{TenantID: p.TenantID, ID: loupe.NewID(), IngestConfigType: loupe.IngestTypeMedia,
		AccessType: loupe.AccessKeyUser, CreatedBy: p.UserID}
	if in.StorageProvider != nil && *in.StorageProvider != loupe.StorageProviderObj {
		return nil, loupe.Invalid(`storageProvider must be "obj_native", got %q`, *in.StorageProvider)
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.Title, in.Title)
	set(&c.IngestConfigType, in.IngestConfigType)
	set(&c.SourceBucket, in.SourceBucket)
	set(&c.SourceKeyPrefix, in.SourceKeyPrefix)
	set(&c.AccessType, in.AccessType)
	if in.IsDisabled != nil {
		c.IsDisabled = *in.IsDisabled
	}
	c.SourceEndpoint, c.AccessKey, c.ExternalID = in.SourceEndpoint, in.AccessKey, in.ExternalID
	st := &c.IngestSettings
	st.CloudAccountID, st.IngestFileExtensions, st.IngestFileTags = in.CloudAccountID, in.IngestFileExtensions, in.IngestFileTags
	st.IngestIfAnyTagsMatch, st.HighresFolder, st.TargetFolder = in.IngestIfAnyTagsMatch, in.HighresFolder, in.TargetFolder
	st.TargetFolderRemoveSourcePrefix, st.RequireSidecar = in.TargetFolderRemoveSourcePrefix, in.RequireSidecar
	st.SidecarParser, st.SidecarFileName, st.Confidence = in.SidecarParser, in.SidecarFileName, in.Confidence
	st.SourceLastModified, st.AnalyticConfig = in.SourceLastModified, in.AnalyticConfig
	st.IsProxyOnlyIngestConfig, st.DefaultMetadata, st.DefaultTimedMetadata = in.IsProxyOnlyIngestConfig, in.DefaultMetadata, in.DefaultTimedMetadata
	st.VisibleTo, st.VisibleToGroupList, st.SkipProcessing = in.VisibleTo, in.VisibleToGroupList, in.SkipProcessing
	if in.EnableObjAcceleration != nil {
		st.EnableObjAcceleration = *in.EnableObjAcceleration
	}
	if in.DeleteEnabled != nil {
		st.DeleteEnabled = *in.DeleteEnabled
	}
	switch c.AccessType {
	case loupe.AccessKeyUser:
		sealed, err := r.Sources.Seal(in.SecretKey, sources.IngestSealContext(c.TenantID, c.ID))
		if err != nil {
			return nil, err
		}
		c.SecretSealed = sealed
	case loupe.AccessAssumeRole:
		if in.SecretKey != nil {
			return nil, loupe.Invalid("secretKey is for accessType key-user")
		}
	}
	return c, c.Validate()
}

// uploadLocation is a configuration as the default upload location (2.15).
func uploadLocation(c *loupe.IngestStorageConfig) *model.DefaultUploadLocation {
	return &model.DefaultUploadLocation{ID: c.ID, Name: c.Title, AreCredentialsSaved: c.AreCredentialsSaved(),
		Type: "objBucket", PathPrefix: c.SourceKeyPrefix, DeleteEnabled: c.DeleteEnabled, AccessType: c.AccessType,
		ExternalID: deref(c.ExternalID)}
}

// gatewayLocation is a gateway as an upload location (2.15).
func gatewayLocation(g *loupe.GatewayConfig) *model.GatewayLocation {
	return &model.GatewayLocation{ID: g.ID, ModifiedOn: g.ModifiedOn, Endpoint: g.Endpoint, BucketName: g.BucketName,
		AccessKey: g.AccessKey, DeleteEnabled: g.DeleteEnabled, GatewayID: g.ID, GatewayName: g.Name,
		LastObjServerKeysUploadedAt: g.LastObjServerKeysUploadedAt}
}

// ingestFileResult is what ingesting one object did, as the API answers it.
func ingestFileResult(res *ingest.Result) *model.IngestFileResult {
	return &model.IngestFileResult{ItemID: res.ItemID, Result: res.Outcome, TranscodingState: res.TranscodingState}
}
