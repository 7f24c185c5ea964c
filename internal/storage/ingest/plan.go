package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// Plan is how an ingest configuration (or a gateway) turns the objects
// of its bucket into items.
type Plan struct {
	Source         store.IngestSource
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

func ConfigPlan(c *loupe.IngestStorageConfig) *Plan {
	pl := &Plan{Source: store.IngestSource{ConfigID: &c.ID, Bucket: c.SourceBucket,
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
		pl.target, _ = loupe.FolderPathNames(*c.TargetFolder)
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

// GatewayPlan is how gateway g ingests one object now: in place, with the
// default form, into targetFolder (when given, the object's own folders
// below it, the gateway's prefix removed).
func GatewayPlan(g *loupe.GatewayConfig, skipProcessing bool, targetFolder *string) (*Plan, error) {
	pl := &Plan{Source: store.IngestSource{Bucket: g.BucketName, SkipProcessing: skipProcessing},
		storageID: g.ID, prefix: g.PathPrefix, formID: "default", formData: map[string]json.RawMessage{}, switches: map[string]bool{}}
	if targetFolder != nil {
		var err error
		if pl.target, err = loupe.FolderPathNames(*targetFolder); err != nil {
			return nil, loupe.Invalid("targetFolder: %s", err.(*loupe.Error).Message)
		}
		pl.removePrefix = true
	}
	return pl, nil
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
func (pl *Plan) filter(key string) skipReason {
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
func (pl *Plan) sidecarKey(key string) string {
	dir, name := path.Split(key)
	base := strings.TrimSuffix(name, path.Ext(name))
	return dir + strings.NewReplacer("{name}", name, "{base}", base).Replace(pl.sidecarName)
}

// maxSidecar bounds a sidecar read.
const maxSidecar = 1 << 20

// check makes the per-object requests a plan needs (tags, sidecar) and
// answers the object's metadata (nil: the default).
func (pl *Plan) check(ctx context.Context, s3 *blob.S3, key string) (skipReason, *sidecar, error) {
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
	"heif": "image/heif", "avif": "image/avif", "svg": "image/svg+xml", "svgz": "image/svg+xml", "jxl": "image/jxl",
	"jp2": "image/jp2", "j2k": "image/jp2", "apng": "image/apng", "exr": "image/x-exr", "psd": "image/vnd.adobe.photoshop",
	"bmp": "image/bmp", "m2ts": "video/mp2t", "m2t": "video/mp2t",
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
func (pl *Plan) object(o blob.Object, sc *sidecar) *store.IngestObject {
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
	full := pl.Source.Bucket + "/" + o.Key
	loc := loupe.BucketScheme + full
	media := store.ItemMedia{SourceFileLocation: &loc, IngestSourceFullPath: &full, IngestSourceKey: ptr(o.Key),
		IngestSourceObjBucket: ptr(pl.Source.Bucket), IngestSourceStorageID: ptr(pl.storageID)}
	if pl.highres != "" {
		rel := strings.TrimPrefix(o.Key, pl.prefix)
		h := loupe.BucketScheme + pl.Source.Bucket + "/" + pl.highres + rel
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
			if names, err := loupe.FolderPathNames(dirs); err == nil && len(pl.target)+len(names) <= 64 {
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
func (pl *Plan) pageObjects(ctx context.Context, s3 *blob.S3, page []blob.Object, n *loupe.ScanCounts) ([]*store.IngestObject, error) {
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr[T any](v T) *T { return &v }
