package loupe

import (
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Storages and storage locations (spec 2.13, /prime/api/v1/storages,
// docs/storage-locations.md): the rules of their fields, and the rules of
// a bucket and the credentials that reach it, which ingest
// configurations and gateways (ingest.go) share. The store reads and
// writes them (db tags); their secret access keys are sealed
// (internal/platform/secretbox) and never leave the server.

// Storage is a tenant storage (spec 2.13).
type Storage struct {
	TenantID    string    `db:"tenant_id"`
	ID          string    `db:"id"`
	Name        string    `db:"name"`
	Private     bool      `db:"private"`
	Description string    `db:"description"`
	Owner       string    `db:"owner"`
	CreatedOn   time.Time `db:"created_on"`
}

// Limits on storages.
const (
	MaxStorageName        = 256
	MaxStorageDescription = 4096
	MaxStorageOwner       = 256
)

// Validate checks a storage about to be written. Returns EINVALID naming the
// field.
func (s *Storage) Validate() error {
	if err := RequiredText("name", s.Name, MaxStorageName); err != nil {
		return err
	}
	if utf8.RuneCountInString(s.Description) > MaxStorageDescription {
		return Invalid("description: at most %d characters", MaxStorageDescription)
	}
	if utf8.RuneCountInString(s.Owner) > MaxStorageOwner {
		return Invalid("owner: at most %d characters", MaxStorageOwner)
	}
	return nil
}

// StorageLocation is where a tenant's files may be kept.
type StorageLocation struct {
	TenantID   string  `db:"tenant_id"`
	ID         string  `db:"id"`
	StorageID  *string `db:"storage_id"`
	Name       string  `db:"name"`
	Type       string  `db:"type"`
	BucketName string  `db:"bucket_name"`
	PathPrefix string  `db:"path_prefix"`
	Endpoint   string  `db:"endpoint"`
	Region     string  `db:"region"`
	PathStyle  bool    `db:"path_style"`
	// AccessType is key-user (AccessKey and a sealed secret) or
	// assume-role (RoleIdentifier and ExternalID).
	AccessType     string  `db:"access_type"`
	AccessKey      *string `db:"access_key"`
	RoleIdentifier *string `db:"role_identifier"`
	ExternalID     *string `db:"external_id"`
	// SecretSealed is the sealed secret access key; nil when none is saved.
	SecretSealed []byte    `db:"secret_sealed" json:"-"`
	IsDefault    bool      `db:"is_default"`
	CreatedOn    time.Time `db:"created_on"`
	ModifiedOn   time.Time `db:"modified_on"`
}

// Storage location types and access types.
const (
	LocationTypeS3   = "s3"
	AccessKeyUser    = "key-user"
	AccessAssumeRole = "assume-role"
)

// Limits on storage locations.
const (
	MaxPathPrefix     = 512
	MaxEndpoint       = 2048
	MaxExternalID     = 1224 // AWS's bound
	MaxRoleIdentifier = 2048
	MaxAccessKey      = 128
	MaxSecretKey      = 256
)

var (
	// bucketNameRE is S3's bucket naming rule (3 to 63 of a-z 0-9 . -,
	// starting and ending with a letter or digit).
	bucketNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	regionRE     = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)
	accessKeyRE  = regexp.MustCompile(`^[A-Za-z0-9_+=/.@-]{1,128}$`)
	// externalIDRE is what AWS accepts as an external id.
	externalIDRE = regexp.MustCompile(`^[\w+=,.@:/-]+$`)
	roleRE       = regexp.MustCompile(`^arn:[a-z0-9-]+:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)
)

// ValidateSecretKey checks a secret access key's form (not whether it works:
// the probe does that). The message never contains the secret.
func ValidateSecretKey(secret string) error {
	if secret == "" {
		return Invalid("secretKey is required with accessType key-user")
	}
	if len(secret) > MaxSecretKey {
		return Invalid("secretKey: at most %d characters", MaxSecretKey)
	}
	for _, r := range secret {
		if r < 0x21 || r > 0x7e {
			return Invalid("secretKey: printable ASCII characters only, no spaces")
		}
	}
	return nil
}

// Validate checks a storage location about to be written and normalizes
// its prefix (no leading slash, one trailing slash unless empty). Returns
// EINVALID naming the field; the secret is checked by ValidateSecretKey.
func (l *StorageLocation) Validate() error {
	if err := RequiredText("name", l.Name, MaxStorageName); err != nil {
		return err
	}
	if l.StorageID != nil && !ValidID(*l.StorageID) {
		return Invalid("storageId %q does not exist", *l.StorageID)
	}
	if l.Type != LocationTypeS3 {
		return Invalid(`type must be "s3", got %q`, l.Type)
	}
	if err := validBucket("bucketName", l.BucketName); err != nil {
		return err
	}
	var err error
	if l.PathPrefix, err = validPrefix("pathPrefix", l.PathPrefix); err != nil {
		return err
	}
	if err := validEndpoint("endpoint", l.Endpoint, "empty"); err != nil {
		return err
	}
	if l.Region != "" && !regionRE.MatchString(l.Region) {
		return Invalid("region %q: 1 to 64 of a-z 0-9 -", l.Region)
	}
	switch l.AccessType {
	case AccessKeyUser:
		if !validAccessKey(l.AccessKey) {
			return Invalid("accessKey is required with accessType key-user (1 to %d of A-Z a-z 0-9 _ + = / . @ -)", MaxAccessKey)
		}
		if l.RoleIdentifier != nil || l.ExternalID != nil {
			return Invalid("roleIdentifier and externalId are for accessType assume-role")
		}
	case AccessAssumeRole:
		if !validRole(l.RoleIdentifier) {
			return Invalid("roleIdentifier is required with accessType assume-role: a role ARN (arn:aws:iam::<account>:role/<name>)")
		}
		if !validExternalID(l.ExternalID) {
			return Invalid("externalId is required with accessType assume-role (2 to %d of A-Z a-z 0-9 _ + = , . @ : / -)", MaxExternalID)
		}
		if l.AccessKey != nil || l.SecretSealed != nil {
			return Invalid("accessKey and secretKey are for accessType key-user")
		}
	default:
		return Invalid(`accessType must be "key-user" or "assume-role", got %q`, l.AccessType)
	}
	return nil
}

// GeneratedMediaLocation is a storage location with its generated-media
// settings.
type GeneratedMediaLocation struct {
	StorageLocation
	StorageProvider      string  `db:"storage_provider"`
	Backup               bool    `db:"backup"`
	DeleteEnabled        bool    `db:"delete_enabled"`
	AutoCreateItems      bool    `db:"auto_create_items"`
	UploadGeneratedMedia bool    `db:"upload_generated_media"`
	PlatformFolderID     *string `db:"platform_folder_id"`
	// EventsTarget is where the bucket's event notification sends events
	// (nil: the server had none configured when the location was made).
	EventsTarget *string `db:"events_target"`
}

// Validate checks a generated-media location about to be written: its
// storage location and its provider.
func (g *GeneratedMediaLocation) Validate() error {
	if err := g.StorageLocation.Validate(); err != nil {
		return err
	}
	if g.StorageProvider != StorageProviderObj {
		return Invalid(`storageProvider must be %q, got %q`, StorageProviderObj, g.StorageProvider)
	}
	return nil
}

// validBucket checks an S3 bucket name.
func validBucket(field, name string) error {
	if !bucketNameRE.MatchString(name) || strings.Contains(name, "..") {
		return Invalid("%s %q is not an S3 bucket name (3 to 63 of a-z 0-9 . -)", field, name)
	}
	return nil
}

// validPrefix normalizes a key prefix (no leading slash, one trailing
// slash unless empty) or answers why not.
func validPrefix(field, prefix string) (string, error) {
	p := strings.TrimLeft(prefix, "/")
	if p != "" && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	if utf8.RuneCountInString(p) > MaxPathPrefix {
		return "", Invalid("%s: at most %d characters", field, MaxPathPrefix)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if p != "" && (seg == "" || strings.HasPrefix(seg, ".") || strings.ContainsFunc(seg, unicode.IsControl) || strings.Contains(seg, `\`)) {
			return "", Invalid("%s %q: segments must be non-empty, not start with a dot, and hold no backslash or control character", field, prefix)
		}
	}
	return p, nil
}

// validEndpoint checks an S3 endpoint URL; none (forAWS: how the field
// says so, "empty" or "null") is AWS.
func validEndpoint(field, e, forAWS string) error {
	if e == "" {
		return nil
	}
	u, err := url.Parse(e)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		len(e) > MaxEndpoint || u.RawQuery != "" || u.Fragment != "" {
		return Invalid("%s %q is not an http(s) URL of an S3 service (no credentials, query or fragment); %s for AWS", field, e, forAWS)
	}
	return nil
}

// validAccessKey checks a key user's access key id.
func validAccessKey(k *string) bool { return k != nil && accessKeyRE.MatchString(*k) }

// validRole checks the ARN of a role to assume.
func validRole(arn *string) bool {
	return arn != nil && len(*arn) <= MaxRoleIdentifier && roleRE.MatchString(*arn)
}

// validExternalID checks the external id a role is assumed with.
func validExternalID(id *string) bool {
	return id != nil && len(*id) >= 2 && len(*id) <= MaxExternalID && externalIDRE.MatchString(*id)
}
