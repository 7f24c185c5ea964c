package sources

import (
	"context"
	"fmt"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// ProbeTimeout bounds one probe of a place, connect to the last answer.
const ProbeTimeout = 15 * time.Second

// Access is what reaches a bucket: where it is and its credentials.
type Access struct {
	TenantID                 string
	Endpoint, Region, Bucket string
	Prefix                   string
	PathStyle                bool
	// AccessType is key-user (AccessKey and the sealed secret) or
	// assume-role (RoleARN and ExternalID: STS is asked for the role's
	// credentials, signing in as the server).
	AccessType          string
	AccessKey           string
	RoleARN, ExternalID string
	Sealed, SealContext []byte
}

// LocationAccess reaches a storage location.
func LocationAccess(l *loupe.StorageLocation) Access {
	return Access{TenantID: l.TenantID, Endpoint: l.Endpoint, Region: l.Region, Bucket: l.BucketName, Prefix: l.PathPrefix,
		PathStyle: l.PathStyle, AccessType: l.AccessType, AccessKey: deref(l.AccessKey), RoleARN: deref(l.RoleIdentifier),
		ExternalID: deref(l.ExternalID), Sealed: l.SecretSealed, SealContext: LocationSealContext(l.TenantID, l.ID)}
}

// ConfigAccess reaches an ingest configuration's bucket (an assume-role
// configuration keeps the role's ARN as its accessKey).
func ConfigAccess(c *loupe.IngestStorageConfig) Access {
	return Access{TenantID: c.TenantID, Endpoint: deref(c.SourceEndpoint), Bucket: c.SourceBucket, Prefix: c.SourceKeyPrefix,
		PathStyle: c.SourceEndpoint != nil && *c.SourceEndpoint != "", AccessType: c.AccessType,
		AccessKey: deref(c.AccessKey), RoleARN: deref(c.AccessKey), ExternalID: deref(c.ExternalID),
		Sealed: c.SecretSealed, SealContext: IngestSealContext(c.TenantID, c.ID)}
}

// GatewayAccess reaches a gateway's bucket.
func GatewayAccess(g *loupe.GatewayConfig) Access {
	return Access{TenantID: g.TenantID, Endpoint: g.Endpoint, Bucket: g.BucketName, Prefix: g.PathPrefix,
		PathStyle: g.Endpoint != "", AccessType: loupe.AccessKeyUser, AccessKey: deref(g.AccessKey),
		Sealed: g.SecretSealed, SealContext: GatewaySealContext(g.TenantID, g.ID)}
}

// s3Config is the S3 configuration a reaches, its secret opened. A key-user
// place never falls back to the server's own credentials (the SDK's
// default chain): without a saved secret it answers an error.
func (s *Sources) s3Config(a Access, transfer bool) (blob.S3Config, error) {
	c := blob.S3Config{Endpoint: a.Endpoint, Region: a.Region, Bucket: a.Bucket, PathStyle: a.PathStyle,
		ProbePrefix: a.Prefix, HTTPClient: s.HTTPClient(transfer)}
	switch a.AccessType {
	case loupe.AccessKeyUser:
		secret, err := s.open(a.Sealed, a.SealContext)
		if err != nil {
			return c, err
		}
		c.AccessKeyID, c.SecretAccessKey = a.AccessKey, secret
	case loupe.AccessAssumeRole:
		c.RoleARN, c.ExternalID, c.RoleSessionName = a.RoleARN, a.ExternalID, "loupe-"+a.TenantID
	default:
		return c, fmt.Errorf("unknown accessType %q", a.AccessType)
	}
	return c, nil
}

// Bucket opens a's bucket for transfers (scans, copies, reads of
// originals), answering the secret too so that callers can mask it in
// what they report (BucketError).
func (s *Sources) Bucket(ctx context.Context, a Access) (*blob.S3, string, error) {
	c, err := s.s3Config(a, true)
	if err != nil {
		return nil, "", err
	}
	b, err := blob.NewS3(ctx, c)
	return b, c.SecretAccessKey, err
}

// ProbeBucket lists one key under a's prefix: a bucket Loupe only reads
// from (an ingest source) may be read-only, so nothing is written.
func (s *Sources) ProbeBucket(ctx context.Context, a Access) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	b, secret, err := s.Bucket(ctx, a)
	if err == nil {
		_, _, err = b.List(ctx, a.Prefix, "", 1)
	}
	if err != nil {
		return BucketError("Could not verify ingest storage: cannot list "+a.Bucket+"/"+a.Prefix+": ", err, secret)
	}
	return nil
}

// CheckLocation writes and deletes a probe object under storage location
// l's prefix with its credentials (blob.Checker) and answers the bucket,
// for more checks, and the secret, for masking. The caller bounds ctx
// (ProbeTimeout).
func (s *Sources) CheckLocation(ctx context.Context, l *loupe.StorageLocation) (*blob.S3, string, error) {
	c, err := s.s3Config(LocationAccess(l), false)
	if err != nil {
		return nil, "", err
	}
	b, err := blob.NewS3(ctx, c)
	if err == nil {
		err = b.Check(ctx)
	}
	return b, c.SecretAccessKey, err
}

// ProbeLocation is CheckLocation within ProbeTimeout, answering EINVALID
// that names the problem (and, as payload key, S3's error code).
func (s *Sources) ProbeLocation(ctx context.Context, l *loupe.StorageLocation) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	if _, secret, err := s.CheckLocation(ctx, l); err != nil {
		return BucketError("Could not verify storage location: ", err, secret)
	}
	return nil
}

// OpenLocation opens storage location l for transfers. EINVALID when its
// credentials cannot be opened.
func (s *Sources) OpenLocation(ctx context.Context, l *loupe.StorageLocation) (*blob.S3, error) {
	c, err := s.s3Config(LocationAccess(l), true)
	if err != nil {
		return nil, loupe.Invalid("storage location %s cannot be opened: %s", l.ID, err.Error())
	}
	b, err := blob.NewS3(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("storage location %s: %s", l.ID, MaskSecret(err.Error(), c.SecretAccessKey))
	}
	return b, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
