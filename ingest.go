package loupe

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Ingest from object storage (docs/ingest.md): the tenant's ingest storage
// configurations (spec 2.14, /ingest/api/v1/ingestStorageConfigs; rows of
// type default_upload_location are its upload locations, 2.15) and edge
// gateways (/config/api/v1/configs/gateway), with the rules of their
// fields. A bucket's own rules are storages.go's. The store reads and
// writes them (db tags); secrets are sealed like a storage location's,
// never answered.

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
	ScanAfter     string `db:"scan_after"`
	ScanCountsDoc JSON   `db:"scan_counts"`
	// ScanRun numbers the configuration's scans (jobs.ScanArgs.Run).
	ScanRun int `db:"scan_run"`

	// SettingsDoc is the settings column as read; decodeIngestSettings
	// fills IngestSettings from it.
	SettingsDoc    JSON `db:"settings"`
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
	AnalyticConfig                 JSON       `json:"analyticConfig,omitempty"`
	EnableObjAcceleration          bool       `json:"enableObjAcceleration,omitempty"`
	IsProxyOnlyIngestConfig        *bool      `json:"isProxyOnlyIngestConfig,omitempty"`
	DefaultMetadata                JSON       `json:"defaultMetadata,omitempty"`
	DefaultTimedMetadata           JSON       `json:"defaultTimedMetadata,omitempty"`
	DeleteEnabled                  bool       `json:"deleteEnabled,omitempty"`
	VisibleTo                      JSON       `json:"visibleTo,omitempty"`
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
	MaxIngestTags     = 10
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

// Validate checks a configuration about to be written and normalizes its
// prefixes. Returns EINVALID naming the field. The secret is checked by
// ValidateSecretKey; the default metadata against its form on save.
func (c *IngestStorageConfig) Validate() error {
	if err := RequiredText("title", c.Title, MaxStorageName); err != nil {
		return err
	}
	if c.IngestConfigType != IngestTypeMedia && c.IngestConfigType != IngestTypeUploadLocation {
		return Invalid(`ingestConfigType must be "ingest_media" or "default_upload_location", got %q`, c.IngestConfigType)
	}
	if err := validBucket("sourceBucket", c.SourceBucket); err != nil {
		return err
	}
	var err error
	if c.SourceKeyPrefix, err = validPrefix("sourceKeyPrefix", c.SourceKeyPrefix); err != nil {
		return err
	}
	if c.SourceEndpoint != nil {
		if err := validEndpoint("sourceEndpoint", *c.SourceEndpoint, "null"); err != nil {
			return err
		}
		if *c.SourceEndpoint == "" {
			c.SourceEndpoint = nil
		}
	}
	switch c.AccessType {
	case AccessKeyUser:
		if !validAccessKey(c.AccessKey) {
			return Invalid("accessKey is required with accessType key-user (1 to %d of A-Z a-z 0-9 _ + = / . @ -)", MaxAccessKey)
		}
		if c.ExternalID != nil {
			return Invalid("externalId is for accessType assume-role")
		}
	case AccessAssumeRole:
		if !validRole(c.AccessKey) {
			return Invalid("accessKey is required with accessType assume-role: the role's ARN (arn:aws:iam::<account>:role/<name>)")
		}
		if !validExternalID(c.ExternalID) {
			return Invalid("externalId is required with accessType assume-role (2 to %d of A-Z a-z 0-9 _ + = , . @ : / -)", MaxExternalID)
		}
		if c.SecretSealed != nil {
			return Invalid("secretKey is for accessType key-user")
		}
	default:
		return Invalid(`accessType must be "key-user" or "assume-role", got %q`, c.AccessType)
	}
	return c.IngestSettings.validate()
}

func (s *IngestSettings) validate() error {
	if s.CloudAccountID != nil && (len(*s.CloudAccountID) > 64 || !accessKeyRE.MatchString(*s.CloudAccountID)) {
		return Invalid("cloudAccountId: 1 to 64 of A-Z a-z 0-9 _ + = / . @ -")
	}
	if e := s.IngestFileExtensions; e != nil && strings.TrimSpace(*e) != "*" {
		if len(*e) > maxExtensionsList {
			return Invalid("ingestFileExtensions: at most %d characters", maxExtensionsList)
		}
		for _, x := range strings.Split(*e, ",") {
			if !extensionRE.MatchString(strings.TrimSpace(x)) {
				return Invalid(`ingestFileExtensions must be "*" or a comma-separated list of extensions such as "mp4,mov", got %q`, *e)
			}
		}
	}
	if len(s.IngestFileTags) > MaxIngestTags {
		return Invalid("ingestFileTags: at most %d tags (S3's limit per object)", MaxIngestTags)
	}
	for _, t := range s.IngestFileTags {
		if !tagRE.MatchString(t) {
			return Invalid(`ingestFileTags: each tag is "key" or "key=value" (S3 tag characters), got %q`, t)
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
		names, err := FolderPathNames(*s.TargetFolder)
		if err != nil {
			return Invalid("targetFolder: %s", err.(*Error).Message)
		}
		p := "/" + strings.Join(names, "/")
		s.TargetFolder = &p
	}
	if s.SidecarFileName != nil {
		n := *s.SidecarFileName
		if n == "" || len(n) > 256 || strings.ContainsAny(n, `/\`) || strings.ContainsFunc(n, unicode.IsControl) || strings.HasPrefix(n, ".") {
			return Invalid("sidecarFileName: 1 to 256 characters, no slash, not starting with a dot; {name} and {base} stand for the object's file name with and without its extension")
		}
	}
	if s.SidecarParser != nil && *s.SidecarParser != "json" {
		return Invalid(`sidecarParser: "json" is the one parser, got %q`, *s.SidecarParser)
	}
	if s.Confidence != nil && (*s.Confidence < 0 || *s.Confidence > 100) {
		return Invalid("confidence: 0 to 100")
	}
	if s.AnalyticConfig, err = validAnalyticConfig(s.AnalyticConfig); err != nil {
		return err
	}
	for name, j := range map[string]JSON{"defaultMetadata": s.DefaultMetadata, "defaultTimedMetadata": s.DefaultTimedMetadata, "visibleTo": s.VisibleTo} {
		if !j.IsNull() && (len(j) == 0 || j[0] != '{') {
			return Invalid("%s must be an object or null", name)
		}
	}
	if !s.DefaultMetadata.IsNull() {
		if _, _, err := s.DefaultMetadataForm(); err != nil {
			return err
		}
	}
	if len(s.VisibleToGroupList) > MaxGroupsInRule {
		return Invalid("visibleToGroupList: at most %d groups", MaxGroupsInRule)
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
func validAnalyticConfig(j JSON) (JSON, error) {
	m := map[string]json.RawMessage{}
	if !j.IsNull() {
		if err := json.Unmarshal(j, &m); err != nil || m == nil {
			return nil, Invalid("analyticConfig must be an object")
		}
	}
	out := map[string]any{}
	for _, k := range analyticSwitches {
		b := false
		if v, ok := m[k]; ok {
			if err := json.Unmarshal(v, &b); err != nil {
				return nil, Invalid("analyticConfig.%s must be a boolean", k)
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
		return nil, Invalid("analyticConfig.%s: unknown key (known: %s, %s)", k,
			strings.Join(analyticSwitches, ", "), strings.Join(analyticExtras, ", "))
	}
	return JSONOf(out), nil
}

// AnalyticSwitch reads one switch of the analytic config.
func (s *IngestSettings) AnalyticSwitch(name string) bool {
	var m map[string]any
	_ = json.Unmarshal(s.AnalyticConfig, &m)
	b, _ := m[name].(bool)
	return b
}

// DefaultMetadataForm is the form id and form data of defaultMetadata
// ({formId?, formData?}).
func (s *IngestSettings) DefaultMetadataForm() (string, map[string]json.RawMessage, error) {
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
		return "", nil, Invalid("defaultMetadata must be {formId?, formData?}")
	}
	if dm.FormID != nil {
		if !ValidFormID(*dm.FormID) {
			return "", nil, Invalid("invalid defaultMetadata.formId %q", *dm.FormID)
		}
		formID = *dm.FormID
	}
	for k, v := range dm.FormData {
		data[k] = v
	}
	return formID, data, nil
}

// IsUploadLocation makes a configuration one of the upload locations
// (GraphQL union UploadLocation, spec 2.15).
func (*IngestStorageConfig) IsUploadLocation() {}

// GatewayConfig is one edge gateway.
type GatewayConfig struct {
	TenantID      string  `db:"tenant_id"`
	ID            string  `db:"id"`
	Name          string  `db:"name"`
	Endpoint      string  `db:"endpoint"`
	BucketName    string  `db:"bucket_name"`
	PathPrefix    string  `db:"path_prefix"`
	AccessKey     *string `db:"access_key"`
	SecretSealed  []byte  `db:"secret_sealed" json:"-"`
	DeleteEnabled bool    `db:"delete_enabled"`
	// LastObjServerKeysUploadedAt is when the gateway last reported a file.
	LastObjServerKeysUploadedAt *time.Time `db:"last_obj_server_keys_uploaded_at"`
	CreatedOn                   time.Time  `db:"created_on"`
	ModifiedOn                  time.Time  `db:"modified_on"`
}

// AreCredentialsSaved says whether a secret key is saved.
func (g *GatewayConfig) AreCredentialsSaved() bool { return g.SecretSealed != nil }

// Validate checks a gateway about to be written and normalizes its prefix.
func (g *GatewayConfig) Validate() error {
	if err := RequiredText("name", g.Name, MaxStorageName); err != nil {
		return err
	}
	if err := validBucket("bucketName", g.BucketName); err != nil {
		return err
	}
	var err error
	if g.PathPrefix, err = validPrefix("pathPrefix", g.PathPrefix); err != nil {
		return err
	}
	if err := validEndpoint("endpoint", g.Endpoint, "null"); err != nil {
		return err
	}
	if !validAccessKey(g.AccessKey) {
		return Invalid("accessKey is required (1 to %d of A-Z a-z 0-9 _ + = / . @ -)", MaxAccessKey)
	}
	return nil
}
