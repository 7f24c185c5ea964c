package resolvers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/aws/smithy-go"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// This file answers ingest from object storage (docs/ingest.md): ingest
// storage configurations (spec 2.14), gateway configs, upload locations
// (2.15) and one object ingested now; ingest_scan.go scans a configuration.
// Only admins read or write configurations and gateways (they name buckets
// and access keys) and ingest; every user reads the upload locations.

// MsgWrongItemID is the spec's 400 to an ingestFile naming an item that is
// not a live item of the tenant (section 7).
const MsgWrongItemID = "Wrong item id"

// ingestSealContext binds a configuration's sealed secret to its row.
func ingestSealContext(tenantID, id string) []byte {
	return []byte("ingest_configs/" + tenantID + "/" + id)
}

// gatewaySealContext binds a gateway's sealed secret to its row.
func gatewaySealContext(tenantID, id string) []byte {
	return []byte("gateway_configs/" + tenantID + "/" + id)
}

// seal checks a secret and seals it for ctxt.
func (r *Resolver) seal(secret *string, ctxt []byte) ([]byte, error) {
	if secret == nil {
		return nil, loupe.Invalid("secretKey is required with accessType key-user")
	}
	if err := store.ValidateSecretKey(*secret); err != nil {
		return nil, err
	}
	if r.Credentials == nil {
		return nil, loupe.Invalid("this server has no credentials key (LOUPE_CREDENTIALS_KEY), so it cannot keep a secret key")
	}
	return r.Credentials.Seal([]byte(*secret), ctxt), nil
}

// bucketAccess is what reaches an ingest bucket.
type bucketAccess struct {
	endpoint, bucket, prefix string
	accessType, accessKey    string
	externalID               string
	sealed                   []byte
	sealCtx                  []byte
	tenantID                 string
}

func configAccess(c *store.IngestStorageConfig) bucketAccess {
	return bucketAccess{endpoint: deref(c.SourceEndpoint), bucket: c.SourceBucket, prefix: c.SourceKeyPrefix,
		accessType: c.AccessType, accessKey: deref(c.AccessKey), externalID: deref(c.ExternalID),
		sealed: c.SecretSealed, sealCtx: ingestSealContext(c.TenantID, c.ID), tenantID: c.TenantID}
}

func gatewayAccess(g *store.GatewayConfig) bucketAccess {
	return bucketAccess{endpoint: g.Endpoint, bucket: g.BucketName, prefix: g.PathPrefix,
		accessType: store.AccessKeyUser, accessKey: deref(g.AccessKey), sealed: g.SecretSealed,
		sealCtx: gatewaySealContext(g.TenantID, g.ID), tenantID: g.TenantID}
}

// bucket opens the bucket with its credentials. Errors never hold the
// secret. An assume-role configuration asks STS (AWS's) for the role's
// credentials, signing in as the server: where no STS is reachable the
// first request fails with the SDK's error.
func (r *Resolver) bucket(ctx context.Context, a bucketAccess) (*blob.S3, string, error) {
	c := blob.S3Config{Endpoint: a.endpoint, Bucket: a.bucket, PathStyle: a.endpoint != "",
		ProbePrefix: a.prefix, HTTPClient: r.bucketHTTPClient(true)}
	switch a.accessType {
	case store.AccessKeyUser:
		if a.sealed == nil {
			return nil, "", errors.New("no secret key is saved")
		}
		if r.Credentials == nil {
			return nil, "", errors.New("this server has no credentials key (LOUPE_CREDENTIALS_KEY) to open the saved secret key")
		}
		secret, err := r.Credentials.Open(a.sealed, a.sealCtx)
		if err != nil {
			return nil, "", errors.New("the saved secret key does not open with this server's credentials key")
		}
		c.AccessKeyID, c.SecretAccessKey = a.accessKey, string(secret)
	case store.AccessAssumeRole:
		c.RoleARN, c.ExternalID, c.RoleSessionName = a.accessKey, a.externalID, "loupe-"+a.tenantID
	default:
		return nil, "", fmt.Errorf("unknown accessType %q", a.accessType)
	}
	s3, err := blob.NewS3(ctx, c)
	if err != nil {
		return nil, c.SecretAccessKey, err
	}
	return s3, c.SecretAccessKey, nil
}

// bucketError is err as a client may read it: the secret masked, S3's
// error code as payload key.
func bucketError(prefix string, err error, secret string) *loupe.Error {
	out := &loupe.Error{Kind: loupe.EINVALID, Message: prefix + maskSecret(err.Error(), secret)}
	if code := s3ErrorCode(err); code != "" {
		out.Payload = map[string]any{"key": code}
	}
	return out
}

// maskSecret is msg with secret blanked out (an SDK error may quote a
// request).
func maskSecret(msg, secret string) string {
	if secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, secret, "[secret]")
}

// s3ErrorCode is the S3 error code err carries ("" when none).
func s3ErrorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// probeBucket lists one key under the prefix with the credentials: a
// configuration may be read-only, so nothing is written.
func (r *Resolver) probeBucket(ctx context.Context, a bucketAccess) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	s3, secret, err := r.bucket(ctx, a)
	if err == nil {
		_, _, err = s3.List(ctx, a.prefix, "", 1)
	}
	if err != nil {
		return bucketError("Could not verify ingest storage: cannot list "+a.bucket+"/"+a.prefix+": ", err, secret)
	}
	return nil
}

// newIngestConfig is the configuration a create input describes.
func (r *Resolver) newIngestConfig(p *loupe.Principal, in *model.IngestStorageConfigInput) (*store.IngestStorageConfig, error) {
	c := &store.IngestStorageConfig{TenantID: p.TenantID, ID: loupe.NewID(), IngestConfigType: store.IngestTypeMedia,
		AccessType: store.AccessKeyUser, CreatedBy: p.UserID}
	if in.StorageProvider != nil && *in.StorageProvider != store.StorageProviderObj {
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
	case store.AccessKeyUser:
		sealed, err := r.seal(in.SecretKey, ingestSealContext(c.TenantID, c.ID))
		if err != nil {
			return nil, err
		}
		c.SecretSealed = sealed
	case store.AccessAssumeRole:
		if in.SecretKey != nil {
			return nil, loupe.Invalid("secretKey is for accessType key-user")
		}
	}
	return c, c.Validate()
}

// uploadLocation is a configuration as the default upload location (2.15).
func uploadLocation(c *store.IngestStorageConfig) *model.DefaultUploadLocation {
	return &model.DefaultUploadLocation{ID: c.ID, Name: c.Title, AreCredentialsSaved: c.AreCredentialsSaved(),
		Type: "objBucket", PathPrefix: c.SourceKeyPrefix, DeleteEnabled: c.DeleteEnabled, AccessType: c.AccessType,
		ExternalID: deref(c.ExternalID)}
}

// gatewayLocation is a gateway as an upload location (2.15).
func gatewayLocation(g *store.GatewayConfig) *model.GatewayLocation {
	return &model.GatewayLocation{ID: g.ID, ModifiedOn: g.ModifiedOn, Endpoint: g.Endpoint, BucketName: g.BucketName,
		AccessKey: g.AccessKey, DeleteEnabled: g.DeleteEnabled, GatewayID: g.ID, GatewayName: g.Name,
		LastObjServerKeysUploadedAt: g.LastObjServerKeysUploadedAt}
}

// ingestPlan is how a configuration (or a gateway) turns objects into
// items.
type ingestPlan struct {
	src            store.IngestSource
	storageID      string
	prefix         string
	extensions     map[string]bool
	highres        string
	target         []string
	removePrefix   bool
	requireSidecar bool
	sidecarName    string
	tags           []string
	anyTag         bool
	formID         string
	formData       map[string]json.RawMessage
	switches       map[string]bool
}

func configPlan(c *store.IngestStorageConfig) *ingestPlan {
	pl := &ingestPlan{src: store.IngestSource{ConfigID: &c.ID, Bucket: c.SourceBucket,
		SkipProcessing: c.SkipProcessing != nil && *c.SkipProcessing},
		storageID: c.ID, prefix: c.SourceKeyPrefix, extensions: c.Extensions(), highres: deref(c.HighresFolder),
		removePrefix:   c.TargetFolderRemoveSourcePrefix != nil && *c.TargetFolderRemoveSourcePrefix,
		requireSidecar: c.RequireSidecar != nil && *c.RequireSidecar, sidecarName: "{name}.json",
		tags: c.IngestFileTags, anyTag: c.IngestIfAnyTagsMatch != nil && *c.IngestIfAnyTagsMatch,
		switches: map[string]bool{}}
	if c.SidecarFileName != nil {
		pl.sidecarName = *c.SidecarFileName
	}
	if c.TargetFolder != nil {
		pl.target, _ = store.FolderPathNames(*c.TargetFolder)
	}
	pl.formID, pl.formData = "default", map[string]json.RawMessage{}
	if !c.DefaultMetadata.IsNull() {
		var dm struct {
			FormID   *string                    `json:"formId"`
			FormData map[string]json.RawMessage `json:"formData"`
		}
		_ = json.Unmarshal(c.DefaultMetadata, &dm) // checked on save
		if dm.FormID != nil {
			pl.formID = *dm.FormID
		}
		for k, v := range dm.FormData {
			pl.formData[k] = v
		}
	}
	for _, k := range []string{"textDetectionEnabled", "labelDetectionEnabled", "personDetectionEnabled",
		"celebrityDetectionEnabled", "transcriptionEnabled"} {
		pl.switches[k] = c.AnalyticSwitch(k)
	}
	return pl
}

// Why an object listed is not ingested.
type skipReason int

const (
	ingestIt skipReason = iota
	skipFiltered
	skipNoSidecar
	skipBadSidecar
	skipUnreadable
)

// filter is the checks that need no request: the key itself.
func (pl *ingestPlan) filter(key string) skipReason {
	if strings.HasSuffix(key, "/") {
		return skipFiltered // a "folder" placeholder
	}
	if pl.highres != "" && strings.HasPrefix(key, pl.highres) {
		return skipFiltered
	}
	base := path.Base(key)
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(base), "."))
	if pl.requireSidecar && strings.HasSuffix(base, ".json") {
		return skipFiltered // a sidecar
	}
	if pl.extensions != nil && !pl.extensions[ext] {
		return skipFiltered
	}
	return ingestIt
}

// sidecarKey is the key of the object's sidecar.
func (pl *ingestPlan) sidecarKey(key string) string {
	dir, name := path.Split(key)
	base := strings.TrimSuffix(name, path.Ext(name))
	return dir + strings.NewReplacer("{name}", name, "{base}", base).Replace(pl.sidecarName)
}

// maxSidecar bounds a sidecar read.
const maxSidecar = 1 << 20

// check makes the per-object requests a plan needs (tags, sidecar) and
// answers the object's metadata (nil: the default).
func (pl *ingestPlan) check(ctx context.Context, s3 *blob.S3, key string) (skipReason, *sidecar, error) {
	if len(pl.tags) > 0 {
		tags, err := s3.Tags(ctx, key)
		if err != nil {
			if errors.Is(err, blob.ErrNotFound) {
				return skipUnreadable, nil, nil
			}
			return 0, nil, err
		}
		if !tagsMatch(pl.tags, tags, pl.anyTag) {
			return skipFiltered, nil, nil
		}
	}
	if !pl.requireSidecar {
		return ingestIt, nil, nil
	}
	rc, _, _, err := s3.Open(ctx, pl.sidecarKey(key))
	if errors.Is(err, blob.ErrNotFound) {
		return skipNoSidecar, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxSidecar+1))
	if err != nil {
		return 0, nil, err
	}
	var sc sidecar
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if len(b) > maxSidecar || dec.Decode(&sc) != nil {
		return skipBadSidecar, nil, nil
	}
	if sc.Metadata != nil {
		if sc.FormID == nil {
			sc.FormID = sc.Metadata.FormID
		}
		if sc.FormData == nil {
			sc.FormData = sc.Metadata.FormData
		}
	}
	return ingestIt, &sc, nil
}

// sidecar is a JSON sidecar: {title?, formId?, formData?} or
// {title?, metadata: {formId?, formData?}}.
type sidecar struct {
	Title    *string                    `json:"title"`
	FormID   *string                    `json:"formId"`
	FormData map[string]json.RawMessage `json:"formData"`
	Metadata *struct {
		FormID   *string                    `json:"formId"`
		FormData map[string]json.RawMessage `json:"formData"`
	} `json:"metadata"`
}

// tagsMatch: want holds key or key=value; any (else all) must be on the
// object.
func tagsMatch(want []string, have map[string]string, anyTag bool) bool {
	for _, w := range want {
		k, v, hasValue := strings.Cut(w, "=")
		got, ok := have[k]
		ok = ok && (!hasValue || got == v)
		if ok && anyTag {
			return true
		}
		if !ok && !anyTag {
			return false
		}
	}
	return !anyTag
}

// mediaTypes are the types of the usual media extensions (the system's
// table, mime.TypeByExtension, answers the others).
var mediaTypes = map[string]string{
	"mp4": "video/mp4", "mov": "video/quicktime", "mxf": "application/mxf", "m4v": "video/x-m4v", "mkv": "video/x-matroska",
	"avi": "video/x-msvideo", "webm": "video/webm", "mpg": "video/mpeg", "mpeg": "video/mpeg", "ts": "video/mp2t",
	"mts": "video/mp2t", "wmv": "video/x-ms-wmv", "flv": "video/x-flv", "3gp": "video/3gpp",
	"mp3": "audio/mpeg", "wav": "audio/wav", "aac": "audio/aac", "m4a": "audio/mp4", "flac": "audio/flac",
	"ogg": "audio/ogg", "aif": "audio/aiff", "aiff": "audio/aiff",
	"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "tif": "image/tiff",
	"tiff": "image/tiff", "webp": "image/webp", "heic": "image/heic", "dng": "image/x-adobe-dng",
	"pdf": "application/pdf", "txt": "text/plain", "srt": "application/x-subrip", "vtt": "text/vtt",
}

// mediaTypeOf is the media type of a key's extension and the item type it
// makes: video, audio, image, else file.
func mediaTypeOf(key string) (mediaType, itemType string) {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(key), "."))
	mt := mediaTypes[ext]
	if mt == "" && ext != "" {
		mt, _, _ = strings.Cut(mime.TypeByExtension("."+ext), ";")
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	switch {
	case strings.HasPrefix(mt, "video/") || mt == "application/mxf":
		return mt, "video"
	case strings.HasPrefix(mt, "audio/"):
		return mt, "audio"
	case strings.HasPrefix(mt, "image/"):
		return mt, "image"
	}
	return mt, "file"
}

// object is the ingest of one object: its item's input and media.
func (pl *ingestPlan) object(o blob.Object, sc *sidecar) *store.IngestObject {
	name := path.Base(o.Key)
	mt, itemType := mediaTypeOf(o.Key)
	formID, data := pl.formID, make(map[string]json.RawMessage, len(pl.formData))
	for k, v := range pl.formData {
		data[k] = v
	}
	title := name
	if sc != nil {
		if sc.FormID != nil {
			formID = *sc.FormID
		}
		for k, v := range sc.FormData {
			data[k] = v
		}
		if sc.Title != nil {
			title = *sc.Title
		}
	}
	sw := func(k string) *bool { b := pl.switches[k]; return &b }
	in := loupe.CreateItemInput{Title: &title, ItemType: itemType, OriginalFileName: &name, MediaType: &mt,
		Metadata:             &loupe.ItemMetadataInput{FormID: &formID, FormData: loupe.JSONOf(data)},
		TranscriptionEnabled: sw("transcriptionEnabled"), CelebrityDetectionEnabled: sw("celebrityDetectionEnabled"),
		LabelDetectionEnabled: sw("labelDetectionEnabled"), PersonDetectionEnabled: sw("personDetectionEnabled"),
		TextDetectionEnabled: sw("textDetectionEnabled")}
	full := pl.src.Bucket + "/" + o.Key
	loc := "s3://" + full
	media := store.ItemMedia{SourceFileLocation: &loc, IngestSourceFullPath: &full, IngestSourceKey: ptr(o.Key),
		IngestSourceObjBucket: ptr(pl.src.Bucket), IngestSourceStorageID: ptr(pl.storageID)}
	if pl.highres != "" {
		rel := strings.TrimPrefix(o.Key, pl.prefix)
		h := "s3://" + pl.src.Bucket + "/" + pl.highres + rel
		media.HighRes, media.HasExternalHighres = &h, true
	}
	obj := &store.IngestObject{Key: o.Key, ETag: o.ETag, Size: o.Size, ModTime: o.ModTime, Input: in, Media: media}
	if len(pl.target) > 0 {
		dirs := path.Dir(o.Key)
		if pl.removePrefix {
			dirs = path.Dir(strings.TrimPrefix(o.Key, pl.prefix))
		}
		folders := pl.target
		if dirs != "." && dirs != "/" {
			if names, err := store.FolderPathNames(dirs); err == nil && len(pl.target)+len(names) <= 64 {
				folders = append(append([]string{}, pl.target...), names...)
			}
		}
		obj.FolderPath = folders
		dest := "/" + strings.Join(folders, "/")
		obj.Media.IngestDestinationPath = &dest
	}
	return obj
}

// ingestChecks is how many per-object requests (tags, sidecars) run at once.
const ingestChecks = 8

// pageObjects turns a listed page into the objects to ingest, counting
// what it leaves out.
func (pl *ingestPlan) pageObjects(ctx context.Context, s3 *blob.S3, page []blob.Object, n *store.ScanCounts) ([]*store.IngestObject, error) {
	type slot struct {
		o      blob.Object
		reason skipReason
		sc     *sidecar
		err    error
	}
	slots := make([]*slot, 0, len(page))
	for _, o := range page {
		n.Listed++
		if pl.filter(o.Key) != ingestIt {
			n.Filtered++
			continue
		}
		slots = append(slots, &slot{o: o})
	}
	if len(pl.tags) > 0 || pl.requireSidecar {
		var wg sync.WaitGroup
		sem := make(chan struct{}, ingestChecks)
		for _, s := range slots {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				s.reason, s.sc, s.err = pl.check(ctx, s3, s.o.Key)
			}()
		}
		wg.Wait()
	}
	out := make([]*store.IngestObject, 0, len(slots))
	for _, s := range slots {
		if s.err != nil {
			return nil, s.err
		}
		switch s.reason {
		case skipFiltered:
			n.Filtered++
		case skipNoSidecar:
			n.NoSidecar++
		case skipBadSidecar:
			n.BadSidecar++
		case skipUnreadable:
			n.Unreachable++
		default:
			out = append(out, pl.object(s.o, s.sc))
		}
	}
	return out, nil
}

// ingestOne ingests one object of a plan's bucket now, as p.
func (r *Resolver) ingestOne(ctx context.Context, p *loupe.Principal, a bucketAccess, pl *ingestPlan, key, itemID string) (*model.IngestFileResult, error) {
	if key == "" || len(key) > blob.MaxKeyLen {
		return nil, loupe.Invalid("key is required: the object's key in the bucket (at most %d bytes)", blob.MaxKeyLen)
	}
	if itemID != "" {
		it, err := r.Store.Item(ctx, p, itemID)
		if loupe.ErrorKind(err) == loupe.ENOTFOUND || (err == nil && it.ItemType == "folder") {
			return nil, loupe.Invalid(MsgWrongItemID)
		}
		if err != nil {
			return nil, err
		}
	}
	s3, secret, err := r.bucket(ctx, a)
	if err != nil {
		return nil, bucketError("Could not read the bucket: ", err, secret)
	}
	o, err := s3.Stat(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, loupe.Invalid("there is no object %q in bucket %s", key, a.bucket)
	}
	if err != nil {
		return nil, bucketError("Could not read the object: ", err, secret)
	}
	o.Key = key
	var n store.ScanCounts
	objs, err := pl.pageObjects(ctx, s3, []blob.Object{o}, &n)
	if err != nil {
		return nil, bucketError("Could not read the object's sidecar or tags: ", err, secret)
	}
	if len(objs) == 0 {
		return nil, loupe.Invalid("the object %q is not ingested by this configuration: %s", key, strings.ToLower(strings.SplitN(n.Message(), ": ", 2)[1]))
	}
	objs[0].ItemID = itemID
	res, err := r.Store.IngestObjects(ctx, p, pl.src, objs, nil, map[string]string{})
	if err != nil {
		if loupe.ErrorKind(err) == loupe.ENOTFOUND {
			return nil, loupe.Invalid(MsgWrongItemID)
		}
		return nil, err
	}
	if e := res.Errors[0]; e != nil {
		return nil, e
	}
	out := &model.IngestFileResult{ItemID: res.ItemIDs[0], Result: "known", TranscodingState: "queued"}
	switch {
	case res.Created == 1:
		out.Result = "created"
	case res.Versions == 1:
		out.Result = "version"
	}
	if pl.src.SkipProcessing {
		out.TranscodingState = "skipped"
	}
	if out.Result == "known" {
		it, err := r.Store.Item(ctx, p, out.ItemID)
		if err == nil {
			out.TranscodingState = it.TranscodingState
		}
	}
	return out, nil
}
