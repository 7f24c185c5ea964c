package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// This file holds the tenant's ingest storage configurations (spec 2.14,
// /ingest/api/v1/ingestStorageConfigs): a bucket and prefix, the credentials
// that reach them (the secret sealed like a storage location's, never
// answered), what an ingest of their objects does, and the state of the
// configuration's scan (docs/ingest.md). Rows of type
// default_upload_location are the tenant's upload locations (2.15).

// IngestStorageConfig is one ingest storage configuration.
type IngestStorageConfig struct {
	TenantID         string  `db:"tenant_id"`
	ID               string  `db:"id"`
	Title            string  `db:"title"`
	IngestConfigType string  `db:"ingest_config_type"`
	IsDisabled       bool    `db:"is_disabled"`
	SourceBucket     string  `db:"source_bucket"`
	SourceKeyPrefix  string  `db:"source_key_prefix"`
	SourceEndpoint   *string `db:"source_endpoint"`
	// AccessType is key-user (AccessKey and a sealed secret) or
	// assume-role (AccessKey is the role's ARN, ExternalID its external id).
	AccessType string  `db:"access_type"`
	AccessKey  *string `db:"access_key"`
	ExternalID *string `db:"external_id"`
	// SecretSealed is the sealed secret access key; nil when none is saved.
	SecretSealed []byte    `db:"secret_sealed" json:"-"`
	CreatedBy    string    `db:"created_by"`
	CreatedOn    time.Time `db:"created_on"`
	ModifiedOn   time.Time `db:"modified_on"`

	ScanState      *string    `db:"scan_state"`
	ScanMessage    *string    `db:"scan_message"`
	ScanModifiedOn *time.Time `db:"scan_modified_on"`
	// ScanAfter is the last key a running scan has done: where it resumes.
	ScanAfter     string     `db:"scan_after"`
	ScanCountsDoc loupe.JSON `db:"scan_counts"`
	// ScanRun numbers the configuration's scans (jobs.ScanArgs.Run).
	ScanRun int `db:"scan_run"`

	// SettingsDoc is the settings column as read; decodeIngestSettings
	// fills IngestSettings from it.
	SettingsDoc    loupe.JSON `db:"settings"`
	IngestSettings `db:"-"`
}

// IngestSettings are the optional keys of 2.14, kept as one document.
type IngestSettings struct {
	CloudAccountID                 *string    `json:"cloudAccountId,omitempty"`
	IngestFileExtensions           *string    `json:"ingestFileExtensions,omitempty"`
	IngestFileTags                 []string   `json:"ingestFileTags,omitempty"`
	IngestIfAnyTagsMatch           *bool      `json:"ingestIfAnyTagsMatch,omitempty"`
	HighresFolder                  *string    `json:"highresFolder,omitempty"`
	TargetFolder                   *string    `json:"targetFolder,omitempty"`
	TargetFolderRemoveSourcePrefix *bool      `json:"targetFolderRemoveSourcePrefix,omitempty"`
	RequireSidecar                 *bool      `json:"requireSidecar,omitempty"`
	SidecarParser                  *string    `json:"sidecarParser,omitempty"`
	SidecarFileName                *string    `json:"sidecarFileName,omitempty"`
	Confidence                     *int       `json:"confidence,omitempty"`
	SourceLastModified             *time.Time `json:"sourceLastModified,omitempty"`
	AnalyticConfig                 loupe.JSON `json:"analyticConfig,omitempty"`
	EnableObjAcceleration          bool       `json:"enableObjAcceleration,omitempty"`
	IsProxyOnlyIngestConfig        *bool      `json:"isProxyOnlyIngestConfig,omitempty"`
	DefaultMetadata                loupe.JSON `json:"defaultMetadata,omitempty"`
	DefaultTimedMetadata           loupe.JSON `json:"defaultTimedMetadata,omitempty"`
	DeleteEnabled                  bool       `json:"deleteEnabled,omitempty"`
	VisibleTo                      loupe.JSON `json:"visibleTo,omitempty"`
	VisibleToGroupList             []string   `json:"visibleToGroupList,omitempty"`
	SkipProcessing                 *bool      `json:"skipProcessing,omitempty"`
}

// ScanStorageState is a configuration's scan as 2.14 answers it.
type ScanStorageState struct {
	Message    string    `json:"message"`
	ModifiedOn time.Time `json:"modifiedOn"`
	State      string    `json:"state"`
}

// ScanCounts are what a scan has done so far.
type ScanCounts struct {
	Listed      int `json:"listed"`
	Created     int `json:"created"`
	Versions    int `json:"versions"`
	Known       int `json:"known"`
	Filtered    int `json:"filtered"`
	NoSidecar   int `json:"noSidecar"`
	BadSidecar  int `json:"badSidecar"`
	Unreachable int `json:"unreachable"`
}

// Message is the counts as scanStorageState's message tells them.
func (c ScanCounts) Message() string {
	return fmt.Sprintf("%d objects listed: %d items created, %d new versions, %d already ingested, %d filtered out, "+
		"%d without sidecar, %d with an invalid sidecar, %d unreadable", c.Listed, c.Created, c.Versions, c.Known,
		c.Filtered, c.NoSidecar, c.BadSidecar, c.Unreachable)
}

// The scan states.
const (
	ScanQueued   = "queued"
	ScanScanning = "scanning"
	ScanComplete = "complete"
	ScanFailed   = "failed"
)

// The configuration types and the one storage provider.
const (
	IngestTypeMedia          = "ingest_media"
	IngestTypeUploadLocation = "default_upload_location"
	StorageProviderObj       = "obj_native"
)

// Limits on ingest configurations.
const (
	MaxIngestConfigs  = 1000
	MaxIngestTags     = 10
	maxIngestTagLen   = 256
	maxExtensionsList = 1024
)

// StorageProvider is always obj_native (an S3-compatible bucket).
func (c *IngestStorageConfig) StorageProvider() string { return StorageProviderObj }

// AreCredentialsSaved says whether credentials are saved: a sealed secret
// (key-user) or a role and its external id (assume-role).
func (c *IngestStorageConfig) AreCredentialsSaved() bool {
	if c.AccessType == AccessAssumeRole {
		return c.AccessKey != nil && c.ExternalID != nil
	}
	return c.SecretSealed != nil
}

// ScanStorageState is the scan's state, null before the first scan.
func (c *IngestStorageConfig) ScanStorageState() *ScanStorageState {
	if c.ScanState == nil {
		return nil
	}
	s := &ScanStorageState{State: *c.ScanState}
	if c.ScanMessage != nil {
		s.Message = *c.ScanMessage
	}
	if c.ScanModifiedOn != nil {
		s.ModifiedOn = *c.ScanModifiedOn
	}
	return s
}

// Counts are the scan's counts so far.
func (c *IngestStorageConfig) Counts() ScanCounts {
	var n ScanCounts
	if !c.ScanCountsDoc.IsNull() {
		_ = json.Unmarshal(c.ScanCountsDoc, &n) // written only by SaveScanPage
	}
	return n
}

// Extensions are the lower-case extensions (without dot) ingested; nil for
// all.
func (c *IngestStorageConfig) Extensions() map[string]bool {
	if c.IngestFileExtensions == nil || strings.TrimSpace(*c.IngestFileExtensions) == "*" {
		return nil
	}
	out := map[string]bool{}
	for _, e := range strings.Split(*c.IngestFileExtensions, ",") {
		if e = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(e), ".")); e != "" {
			out[e] = true
		}
	}
	return out
}

var (
	extensionRE = regexp.MustCompile(`^\.?[A-Za-z0-9_-]{1,16}$`)
	tagRE       = regexp.MustCompile(`^[\p{L}\p{N} _.:/+\-@]{1,128}(=[\p{L}\p{N} _.:/+\-@=]{0,256})?$`)
)

// validPrefix normalizes a key prefix as a storage location's path prefix
// (no leading slash, one trailing slash unless empty) or answers why not.
func validPrefix(field, p string) (string, error) {
	p = strings.TrimLeft(p, "/")
	if p != "" && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	if utf8.RuneCountInString(p) > MaxPathPrefix {
		return "", loupe.Invalid("%s: at most %d characters", field, MaxPathPrefix)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if p != "" && (seg == "" || strings.HasPrefix(seg, ".") || strings.ContainsFunc(seg, unicode.IsControl) || strings.Contains(seg, `\`)) {
			return "", loupe.Invalid("%s %q: segments must be non-empty, not start with a dot, and hold no backslash or control character", field, p)
		}
	}
	return p, nil
}

// ValidEndpoint checks an S3 endpoint URL (empty: AWS).
func ValidEndpoint(field, e string) error {
	if e == "" {
		return nil
	}
	u, err := url.Parse(e)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		len(e) > MaxEndpoint || u.RawQuery != "" || u.Fragment != "" {
		return loupe.Invalid("%s %q is not an http(s) URL of an S3 service (no credentials, query or fragment); null for AWS", field, e)
	}
	return nil
}

// Validate checks a configuration about to be written and normalizes its
// prefixes. Returns EINVALID naming the field. The secret is checked by
// ValidateSecretKey; the default metadata against its form on save.
func (c *IngestStorageConfig) Validate() error {
	if err := loupe.RequiredText("title", c.Title, MaxStorageName); err != nil {
		return err
	}
	if c.IngestConfigType != IngestTypeMedia && c.IngestConfigType != IngestTypeUploadLocation {
		return loupe.Invalid(`ingestConfigType must be "ingest_media" or "default_upload_location", got %q`, c.IngestConfigType)
	}
	if !bucketNameRE.MatchString(c.SourceBucket) || strings.Contains(c.SourceBucket, "..") {
		return loupe.Invalid("sourceBucket %q is not an S3 bucket name (3 to 63 of a-z 0-9 . -)", c.SourceBucket)
	}
	var err error
	if c.SourceKeyPrefix, err = validPrefix("sourceKeyPrefix", c.SourceKeyPrefix); err != nil {
		return err
	}
	if c.SourceEndpoint != nil {
		if err := ValidEndpoint("sourceEndpoint", *c.SourceEndpoint); err != nil {
			return err
		}
		if *c.SourceEndpoint == "" {
			c.SourceEndpoint = nil
		}
	}
	switch c.AccessType {
	case AccessKeyUser:
		if c.AccessKey == nil || !accessKeyRE.MatchString(*c.AccessKey) {
			return loupe.Invalid("accessKey is required with accessType key-user (1 to %d of A-Z a-z 0-9 _ + = / . @ -)", MaxAccessKey)
		}
		if c.ExternalID != nil {
			return loupe.Invalid("externalId is for accessType assume-role")
		}
	case AccessAssumeRole:
		if c.AccessKey == nil || len(*c.AccessKey) > MaxRoleIdentifier || !roleRE.MatchString(*c.AccessKey) {
			return loupe.Invalid("accessKey is required with accessType assume-role: the role's ARN (arn:aws:iam::<account>:role/<name>)")
		}
		if c.ExternalID == nil || len(*c.ExternalID) < 2 || len(*c.ExternalID) > MaxExternalID || !externalIDRE.MatchString(*c.ExternalID) {
			return loupe.Invalid("externalId is required with accessType assume-role (2 to %d of A-Z a-z 0-9 _ + = , . @ : / -)", MaxExternalID)
		}
		if c.SecretSealed != nil {
			return loupe.Invalid("secretKey is for accessType key-user")
		}
	default:
		return loupe.Invalid(`accessType must be "key-user" or "assume-role", got %q`, c.AccessType)
	}
	return c.IngestSettings.validate()
}

func (s *IngestSettings) validate() error {
	if s.CloudAccountID != nil && (len(*s.CloudAccountID) > 64 || !accessKeyRE.MatchString(*s.CloudAccountID)) {
		return loupe.Invalid("cloudAccountId: 1 to 64 of A-Z a-z 0-9 _ + = / . @ -")
	}
	if e := s.IngestFileExtensions; e != nil && strings.TrimSpace(*e) != "*" {
		if len(*e) > maxExtensionsList {
			return loupe.Invalid("ingestFileExtensions: at most %d characters", maxExtensionsList)
		}
		for _, x := range strings.Split(*e, ",") {
			if !extensionRE.MatchString(strings.TrimSpace(x)) {
				return loupe.Invalid(`ingestFileExtensions must be "*" or a comma-separated list of extensions such as "mp4,mov", got %q`, *e)
			}
		}
	}
	if len(s.IngestFileTags) > MaxIngestTags {
		return loupe.Invalid("ingestFileTags: at most %d tags (S3's limit per object)", MaxIngestTags)
	}
	for _, t := range s.IngestFileTags {
		if !tagRE.MatchString(t) {
			return loupe.Invalid(`ingestFileTags: each tag is "key" or "key=value" (S3 tag characters), got %q`, t)
		}
	}
	var err error
	if s.HighresFolder != nil {
		p, err := validPrefix("highresFolder", *s.HighresFolder)
		if err != nil {
			return err
		}
		if p == "" {
			s.HighresFolder = nil
		} else {
			s.HighresFolder = &p
		}
	}
	if s.TargetFolder != nil {
		names, err := loupe.FolderPathNames(*s.TargetFolder)
		if err != nil {
			return loupe.Invalid("targetFolder: %s", err.(*loupe.Error).Message)
		}
		p := "/" + strings.Join(names, "/")
		s.TargetFolder = &p
	}
	if s.SidecarFileName != nil {
		n := *s.SidecarFileName
		if n == "" || len(n) > 256 || strings.ContainsAny(n, `/\`) || strings.ContainsFunc(n, unicode.IsControl) || strings.HasPrefix(n, ".") {
			return loupe.Invalid("sidecarFileName: 1 to 256 characters, no slash, not starting with a dot; {name} and {base} stand for the object's file name with and without its extension")
		}
	}
	if s.SidecarParser != nil && *s.SidecarParser != "json" {
		return loupe.Invalid(`sidecarParser: "json" is the one parser, got %q`, *s.SidecarParser)
	}
	if s.Confidence != nil && (*s.Confidence < 0 || *s.Confidence > 100) {
		return loupe.Invalid("confidence: 0 to 100")
	}
	if s.AnalyticConfig, err = validAnalyticConfig(s.AnalyticConfig); err != nil {
		return err
	}
	for name, j := range map[string]loupe.JSON{"defaultMetadata": s.DefaultMetadata, "defaultTimedMetadata": s.DefaultTimedMetadata, "visibleTo": s.VisibleTo} {
		if !j.IsNull() && (len(j) == 0 || j[0] != '{') {
			return loupe.Invalid("%s must be an object or null", name)
		}
	}
	if !s.DefaultMetadata.IsNull() {
		if _, _, err := s.defaultMetadata(); err != nil {
			return err
		}
	}
	if len(s.VisibleToGroupList) > loupe.MaxGroupsInRule {
		return loupe.Invalid("visibleToGroupList: at most %d groups", loupe.MaxGroupsInRule)
	}
	return nil
}

// analyticSwitches are the booleans of an analyticConfig, all answered.
var analyticSwitches = []string{"textDetectionEnabled", "labelDetectionEnabled", "personDetectionEnabled",
	"celebrityDetectionEnabled", "transcriptionEnabled"}

// analyticExtras are the optional objects of an analyticConfig.
var analyticExtras = []string{"transcriptionConfig", "textDetectionSettings", "personDetectionConfig", "analyticPlugins"}

// validAnalyticConfig checks an analyticConfig and answers it with every
// switch present (false when not given).
func validAnalyticConfig(j loupe.JSON) (loupe.JSON, error) {
	m := map[string]json.RawMessage{}
	if !j.IsNull() {
		if err := json.Unmarshal(j, &m); err != nil || m == nil {
			return nil, loupe.Invalid("analyticConfig must be an object")
		}
	}
	out := map[string]any{}
	for _, k := range analyticSwitches {
		b := false
		if v, ok := m[k]; ok {
			if err := json.Unmarshal(v, &b); err != nil {
				return nil, loupe.Invalid("analyticConfig.%s must be a boolean", k)
			}
			delete(m, k)
		}
		out[k] = b
	}
	for _, k := range analyticExtras {
		if v, ok := m[k]; ok {
			out[k] = v
			delete(m, k)
		}
	}
	for k := range m {
		return nil, loupe.Invalid("analyticConfig.%s: unknown key (known: %s, %s)", k,
			strings.Join(analyticSwitches, ", "), strings.Join(analyticExtras, ", "))
	}
	return loupe.JSONOf(out), nil
}

// AnalyticSwitch reads one switch of the analytic config.
func (s *IngestSettings) AnalyticSwitch(name string) bool {
	var m map[string]any
	_ = json.Unmarshal(s.AnalyticConfig, &m)
	b, _ := m[name].(bool)
	return b
}

// defaultMetadata is the form id and form data of defaultMetadata
// ({formId?, formData?}).
func (s *IngestSettings) defaultMetadata() (string, map[string]json.RawMessage, error) {
	formID, data := "default", map[string]json.RawMessage{}
	if s.DefaultMetadata.IsNull() {
		return formID, data, nil
	}
	var dm struct {
		FormID   *string                    `json:"formId"`
		FormData map[string]json.RawMessage `json:"formData"`
	}
	dec := json.NewDecoder(strings.NewReader(string(s.DefaultMetadata)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&dm); err != nil {
		return "", nil, loupe.Invalid("defaultMetadata must be {formId?, formData?}")
	}
	if dm.FormID != nil {
		if !loupe.ValidFormID(*dm.FormID) {
			return "", nil, loupe.Invalid("invalid defaultMetadata.formId %q", *dm.FormID)
		}
		formID = *dm.FormID
	}
	for k, v := range dm.FormData {
		data[k] = v
	}
	return formID, data, nil
}

func decodeIngestSettings(cs ...*IngestStorageConfig) error {
	for _, c := range cs {
		c.IngestSettings = IngestSettings{}
		if c.SettingsDoc.IsNull() {
			continue
		}
		if err := json.Unmarshal(c.SettingsDoc, &c.IngestSettings); err != nil {
			return fmt.Errorf("store: ingest config %s has unreadable settings: %w", c.ID, err)
		}
	}
	return nil
}

const ingestConfigColumns = `tenant_id, id, title, ingest_config_type, is_disabled, source_bucket, source_key_prefix,
source_endpoint, access_type, access_key, external_id, secret_sealed, settings, created_by, created_on, modified_on,
scan_state, scan_message, scan_modified_on, scan_after, scan_counts, scan_run`

const (
	ingestConfigsSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs WHERE tenant_id = $1
ORDER BY created_on, id LIMIT $2`

	ingestConfigsOfTypeSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs
WHERE tenant_id = $1 AND ingest_config_type = $2 ORDER BY created_on, id LIMIT $3`

	ingestConfigSQL = `SELECT ` + ingestConfigColumns + ` FROM ingest_configs WHERE tenant_id = $1 AND id = $2`

	countIngestConfigsSQL = `SELECT count(*) FROM ingest_configs WHERE tenant_id = $1`

	lockIngestConfigsSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.ingest_configs:' || $1::text, 0))`

	insertIngestConfigSQL = `INSERT INTO ingest_configs (tenant_id, id, title, ingest_config_type, is_disabled,
source_bucket, source_key_prefix, source_endpoint, access_type, access_key, external_id, secret_sealed, settings, created_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING ` + ingestConfigColumns

	deleteIngestConfigSQL = `DELETE FROM ingest_configs WHERE tenant_id = $1 AND id = $2`

	// setScanStateSQL writes the scan's state; $4 (when not null) the
	// position and $5 the counts.
	setScanStateSQL = `UPDATE ingest_configs SET scan_state = $3, scan_message = $4, scan_modified_on = clock_timestamp(),
scan_after = COALESCE($5, scan_after), scan_counts = COALESCE($6::jsonb, scan_counts)
WHERE tenant_id = $1 AND id = $2`
)

// IngestConfigs returns the tenant's configurations, oldest first (of one
// type when typ is not empty).
func (s *Store) IngestConfigs(ctx context.Context, tenantID, typ string) ([]*IngestStorageConfig, error) {
	out := []*IngestStorageConfig{}
	var err error
	if typ == "" {
		err = s.selectPrepared(ctx, &out, ingestConfigsSQL, tenantID, MaxIngestConfigs)
	} else {
		err = s.selectPrepared(ctx, &out, ingestConfigsOfTypeSQL, tenantID, typ, MaxIngestConfigs)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to list ingest configs: %w", err)
	}
	return out, decodeIngestSettings(out...)
}

// IngestConfig returns one configuration. Returns ENOTFOUND when it is
// missing or of another tenant.
func (s *Store) IngestConfig(ctx context.Context, tenantID, id string) (*IngestStorageConfig, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out IngestStorageConfig
	if err := s.getPrepared(ctx, &out, ingestConfigSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch ingest config: %w")
	}
	return &out, decodeIngestSettings(&out)
}

// CreateIngestConfig adds c (its ID chosen by the caller, who sealed the
// secret for it). Its default metadata is checked against its form.
// Returns EINVALID for a bad configuration, ECONFLICT at MaxIngestConfigs.
func (s *Store) CreateIngestConfig(ctx context.Context, p *loupe.Principal, c *IngestStorageConfig) (*IngestStorageConfig, error) {
	if !loupe.ValidID(c.ID) {
		return nil, fmt.Errorf("store: ingest config without an id")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var out IngestStorageConfig
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockIngestConfigsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to lock ingest configs: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, countIngestConfigsSQL, p.TenantID); err != nil {
			return fmt.Errorf("store: unable to count ingest configs: %w", err)
		}
		if n >= MaxIngestConfigs {
			return loupe.Errorf(loupe.ECONFLICT, "the tenant has %d ingest configurations, the most it may have", MaxIngestConfigs)
		}
		if !c.DefaultMetadata.IsNull() {
			formID, data, _ := c.defaultMetadata()
			if _, err := newFormDataTx(ctx, tx, p.TenantID, formID, data); err != nil {
				var le *loupe.Error
				if errors.As(err, &le) {
					return loupe.Invalid("defaultMetadata: %s", le.Message)
				}
				return err
			}
		}
		return tx.GetContext(ctx, &out, insertIngestConfigSQL, p.TenantID, c.ID, c.Title, c.IngestConfigType,
			c.IsDisabled, c.SourceBucket, c.SourceKeyPrefix, c.SourceEndpoint, c.AccessType, c.AccessKey,
			c.ExternalID, c.SecretSealed, loupe.JSONOf(c.IngestSettings), p.UserID)
	})
	if err != nil {
		var le *loupe.Error
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, fmt.Errorf("store: unable to create ingest config: %w", err)
	}
	return &out, decodeIngestSettings(&out)
}

// DeleteIngestConfig removes a configuration (what it ingested stays).
// Returns ENOTFOUND for a missing id.
func (s *Store) DeleteIngestConfig(ctx context.Context, tenantID, id string) error {
	if !loupe.ValidID(id) {
		return loupe.NotFound()
	}
	res, err := s.db.ExecContext(ctx, deleteIngestConfigSQL, tenantID, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete ingest config: %w", err)
	}
	return oneRow(res)
}

// SetScanState records a scan's state and message; after (when not nil)
// moves its position and counts (when not nil) replaces its counts.
func (s *Store) SetScanState(ctx context.Context, tenantID, id, state, message string, after *string, counts *ScanCounts) error {
	return setScanState(ctx, s.db, tenantID, id, state, message, after, counts)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func setScanState(ctx context.Context, q execer, tenantID, id, state, message string, after *string, counts *ScanCounts) error {
	var c any
	if counts != nil {
		c = loupe.JSONOf(counts)
	}
	res, err := q.ExecContext(ctx, setScanStateSQL, tenantID, id, state, message, after, c)
	if err != nil {
		return fmt.Errorf("store: unable to set scan state: %w", err)
	}
	return oneRow(res)
}

// IsUploadLocation makes a configuration one of the upload locations
// (GraphQL union UploadLocation, spec 2.15).
func (*IngestStorageConfig) IsUploadLocation() {}
