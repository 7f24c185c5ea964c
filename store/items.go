package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loupe-mam/loupe"
)

// Item is a media item, folder or person (spec 2.1).
type Item struct {
	// Lean is set on an item read with itemLeanColumns only.
	Lean             bool       `db:"lean"`
	TenantID         string     `db:"tenant_id"`
	ID               string     `db:"id"`
	ItemType         string     `db:"item_type"`
	Title            string     `db:"title"`
	OriginalFileName string     `db:"original_file_name"`
	ExternalID       *string    `db:"external_id"`
	CreatedBy        string     `db:"created_by"`
	CreatedOn        time.Time  `db:"created_on"`
	ModifiedOn       time.Time  `db:"modified_on"`
	MediaCreatedOn   *time.Time `db:"media_created_on"`
	MediaType        *string    `db:"media_type"`
	MediaSize        *int64     `db:"media_size"`
	FrameCount       *int64     `db:"frame_count"`

	MetadataFormID    string     `db:"metadata_form_id"`
	MetadataFormData  loupe.JSON `db:"metadata_form_data"`
	MetadataVersion   int        `db:"metadata_version"`
	TechnicalMetadata loupe.JSON `db:"technical_metadata"`
	GeoLocation       loupe.JSON `db:"geo_location"`
	CustomIconsDoc    loupe.JSON `db:"custom_icons"`

	LanguageCode              string `db:"language_code"`
	TranscodingState          string `db:"transcoding_state"`
	TranscriptionEnabled      bool   `db:"transcription_enabled"`
	TranslationEnabled        bool   `db:"translation_enabled"`
	CelebrityDetectionEnabled bool   `db:"celebrity_detection_enabled"`
	LabelDetectionEnabled     bool   `db:"label_detection_enabled"`
	PersonDetectionEnabled    bool   `db:"person_detection_enabled"`
	TextDetectionEnabled      bool   `db:"text_detection_enabled"`
	CreateUnknownPersons      bool   `db:"create_unknown_persons"`
	HasRelations              bool   `db:"has_relations"`
	// HasAttachments spares the attachments query for items without any.
	HasAttachments bool `db:"has_attachments"`

	ArchivedOn *time.Time `db:"archived_on"`
	DeletedOn  *time.Time `db:"deleted_on"`

	MediaUsageDoc             loupe.JSON `db:"media_usage"`
	UploadLockOwnerInstanceID *string    `db:"upload_lock_owner"`
	UploadLockedOn            *time.Time `db:"upload_locked_on"`
	TranscriptLastUpdated     *time.Time `db:"transcript_last_updated"`

	FolderParentIDs IDs `db:"folder_parents"`

	// MediaDoc is the media column as read; decodeMedia fills ItemMedia
	// from it. (ItemMedia itself has no Scan method: promoted to Item, it
	// would make sqlx scan a whole row into it.)
	MediaDoc  loupe.JSON `db:"media"`
	ItemMedia `db:"-"`
}

// docBytes is what an item's stored documents weigh (a list page's memory
// budget counts it).
func (i *Item) docBytes() int {
	return len(i.MetadataFormData) + len(i.TechnicalMetadata) + len(i.GeoLocation) + len(i.CustomIconsDoc) +
		len(i.MediaUsageDoc) + len(i.MediaDoc) + len(i.Title)
}

// ItemMedia is the part of an item that the processing and ingest pipelines
// write: proxies, thumbnails, progress, subtitle links, ingest provenance.
// It is stored as one document because it is read whole and written by
// pipelines, never filtered on.
type ItemMedia struct {
	ItemState             *string    `json:"itemState,omitempty"`
	TranscodingBy         *string    `json:"transcodingBy,omitempty"`
	TranscodingService    *string    `json:"transcodingService,omitempty"`
	ProgressInfo          loupe.JSON `json:"progressInfo,omitempty"`
	TranscriptionState    *string    `json:"transcriptionState,omitempty"`
	TranscriptionProgress *float64   `json:"transcriptionProgress,omitempty"`
	TranscriptionBy       *string    `json:"transcriptionBy,omitempty"`
	TranscriptionService  *string    `json:"transcriptionService,omitempty"`
	TranscriptionChannels loupe.JSON `json:"transcriptionChannels,omitempty"`
	TranslationBy         *string    `json:"translationBy,omitempty"`
	TranslationLanguage   *string    `json:"translationLanguage,omitempty"`
	TranscriptOffsetMs    *int64     `json:"transcriptOffsetMs,omitempty"`
	DetectedPersons       loupe.JSON `json:"detectedPersons,omitempty"`

	Proxy               *string    `json:"proxy,omitempty"`
	ProxySize           *int64     `json:"proxySize,omitempty"`
	HighRes             *string    `json:"highRes,omitempty"`
	HasExternalHighres  bool       `json:"hasExternalHighres,omitempty"`
	EditProxyFormat     *string    `json:"editProxyFormat,omitempty"`
	WebProxyLocation    *string    `json:"webProxyLocation,omitempty"`
	ProxyAudioTrackUrls loupe.JSON `json:"proxyAudioTrackUrls,omitempty"`
	Thumbnail           *string    `json:"thumbnail,omitempty"`
	ThumbnailInfo       loupe.JSON `json:"thumbnailInfo,omitempty"`
	// UserThumbnail is the poster a user chose (UserThumbnail); while it is
	// set, it is the item's thumbnail, whatever processing wrote above.
	UserThumbnail            *UserThumbnail `json:"userThumbnail,omitempty"`
	ThumbnailStrip           *string        `json:"thumbnailStrip,omitempty"`
	GeneratedContentLocation *string        `json:"generatedContentLocation,omitempty"`
	SourceFileLocation       *string        `json:"sourceFileLocation,omitempty"`
	// MediaMigration is the state of the last move of the original
	// (storage_media_migration.go).
	MediaMigration loupe.JSON `json:"mediaMigration,omitempty"`
	// MediaSHA256 is the hex SHA-256 of the original, computed as it was
	// uploaded (docs/uploads.md).
	MediaSHA256 *string `json:"mediaSha256,omitempty"`

	// Generated is what processing made (media_processing.go); its keys are
	// answered as signed links in the fields above.
	Generated *GeneratedMedia `json:"generated,omitempty"`
	// LivePlaylist and LiveThumbnail are a recording's growing HLS playlist
	// and latest thumbnail while it records (live_recorder.go): the item's
	// proxy and thumbnail until processing has made its own.
	LivePlaylist  *string `json:"livePlaylist,omitempty"`
	LiveThumbnail *string `json:"liveThumbnail,omitempty"`

	VttURL                       *string `json:"vttUrl,omitempty"`
	SrtURL                       *string `json:"srtUrl,omitempty"`
	TranslationVttURL            *string `json:"translationVttUrl,omitempty"`
	TranslationSrtURL            *string `json:"translationSrtUrl,omitempty"`
	TimedTranslatedTranscriptURL *string `json:"timedTranslatedTranscriptUrl,omitempty"`

	IngestDestinationPath *string    `json:"ingestDestinationPath,omitempty"`
	IngestSkipProcessing  *bool      `json:"ingestSkipProcessing,omitempty"`
	IngestSourceFullPath  *string    `json:"ingestSourceFullPath,omitempty"`
	IngestSourceKey       *string    `json:"ingestSourceKey,omitempty"`
	IngestSourceObjBucket *string    `json:"ingestSourceObjBucket,omitempty"`
	IngestSourceStorageID *string    `json:"ingestSourceStorageId,omitempty"`
	IsExternalUpload      bool       `json:"isExternalUpload,omitempty"`
	UploadProgressInfo    loupe.JSON `json:"uploadProgressInfo,omitempty"`
	UploadRequestedAt     *time.Time `json:"uploadRequestedAt,omitempty"`
}

// decodeMedia fills ItemMedia from the media column of the items read.
func decodeMedia(items ...*Item) error {
	for _, it := range items {
		it.ItemMedia = ItemMedia{}
		if it.MediaDoc.IsNull() {
			continue
		}
		if err := json.Unmarshal(it.MediaDoc, &it.ItemMedia); err != nil {
			return fmt.Errorf("store: item %s has unreadable media state: %w", it.ID, err)
		}
	}
	return nil
}

// NodeID implements Node.
func (i *Item) NodeID() string { return i.ID }

// FolderParents is the ids of the item's folders, in the order given.
func (i *Item) FolderParents() []string {
	if i.FolderParentIDs == nil {
		return []string{}
	}
	return i.FolderParentIDs
}

// Metadata is the item's form and its values.
func (i *Item) Metadata() ItemMetadata {
	return ItemMetadata{FormID: i.MetadataFormID, FormData: i.MetadataFormData}
}

// HasProxy reports whether a proxy has been made.
func (i *Item) HasProxy() bool {
	return i.Proxy != nil || i.Generated.File("proxy") != ""
}

// HasArchiveRelation reports whether the item is archived.
func (i *Item) HasArchiveRelation() bool { return i.ArchivedOn != nil }

// AncestryLink is the path of the item's ancestry resource.
func (i *Item) AncestryLink() string { return "/api/v1/items/" + i.ID + "/ancestry" }

// CustomIcons are the icons at the eight positions.
func (i *Item) CustomIcons() CustomIcons {
	var c CustomIcons
	if !i.CustomIconsDoc.IsNull() {
		_ = json.Unmarshal(i.CustomIconsDoc, &c) // written only through CustomIcons
	}
	return c
}

// VersionState is EXISTS for a live item, IN_RECYCLE_BIN for a deleted one.
func (i *Item) VersionState() loupe.VersionState {
	if i.DeletedOn != nil {
		return loupe.VersionInRecycleBin
	}
	return loupe.VersionExists
}

// IsUploadLocked reports whether an upload holds the item's lock.
func (i *Item) IsUploadLocked() bool { return i.UploadLockedOn != nil }

// MediaUsage is when and by which workflow the media was last used.
func (i *Item) MediaUsage() *MediaUsage {
	if i.MediaUsageDoc.IsNull() {
		return nil
	}
	var u MediaUsage
	if json.Unmarshal(i.MediaUsageDoc, &u) != nil {
		return nil
	}
	return &u
}

// ItemMetadata is an item's form id and form data.
type ItemMetadata struct {
	FormID   string     `json:"formId"`
	FormData loupe.JSON `json:"formData"`
}

// CustomIcons holds an icon value or null at each of the eight positions (spec 2.6).
type CustomIcons struct {
	Pos1 loupe.JSON `json:"pos1"`
	Pos2 loupe.JSON `json:"pos2"`
	Pos3 loupe.JSON `json:"pos3"`
	Pos4 loupe.JSON `json:"pos4"`
	Pos5 loupe.JSON `json:"pos5"`
	Pos6 loupe.JSON `json:"pos6"`
	Pos7 loupe.JSON `json:"pos7"`
	Pos8 loupe.JSON `json:"pos8"`
}

// itemFields is the Item's field table (store_fields.go): the columns of
// items aliased i, in select order. The lean set is what a list whose
// selection asks only for the lean GraphQL fields (ItemLeanGQL, plus the
// resolvers resolvers.leanItemFields adds) reads instead of the whole
// record — no JSON documents. Its folder ids answer its folders
// (resolvers.itemFolders). A lean Item has Lean set; it never goes into a
// cache other fields could be served from.
var itemFields = []column[Item]{
	{SQL: "i.tenant_id", Ptr: func(i *Item) any { return &i.TenantID }, In: inBoth},
	{SQL: "i.id", GQL: "id", Ptr: func(i *Item) any { return &i.ID }, In: inBoth},
	{SQL: "i.item_type", GQL: "itemType", Ptr: func(i *Item) any { return &i.ItemType }, In: inBoth},
	{SQL: "i.title", GQL: "title", Ptr: func(i *Item) any { return &i.Title }, In: inBoth},
	{SQL: "i.original_file_name", GQL: "originalFileName", Ptr: func(i *Item) any { return &i.OriginalFileName }, In: inWhole},
	{SQL: "i.external_id", Ptr: func(i *Item) any { return &i.ExternalID }, In: inWhole},
	{SQL: "i.created_by", GQL: "createdBy", Ptr: func(i *Item) any { return &i.CreatedBy }, In: inBoth},
	{SQL: "i.created_on", GQL: "createdOn", Ptr: func(i *Item) any { return &i.CreatedOn }, In: inBoth},
	{SQL: "i.modified_on", GQL: "modifiedOn", Ptr: func(i *Item) any { return &i.ModifiedOn }, In: inBoth},
	{SQL: "i.media_created_on", GQL: "mediaCreatedOn", Ptr: func(i *Item) any { return &i.MediaCreatedOn }, In: inWhole},
	{SQL: "i.media_type", GQL: "mediaType", Ptr: func(i *Item) any { return &i.MediaType }, In: inWhole},
	{SQL: "i.media_size", GQL: "mediaSize", Ptr: func(i *Item) any { return &i.MediaSize }, In: inWhole},
	{SQL: "i.frame_count", GQL: "frameCount", Ptr: func(i *Item) any { return &i.FrameCount }, In: inWhole},
	{SQL: "i.metadata_form_id", Ptr: func(i *Item) any { return &i.MetadataFormID }, In: inWhole},
	{SQL: "i.metadata_form_data", Ptr: func(i *Item) any { return &i.MetadataFormData }, In: inWhole},
	{SQL: "i.metadata_version", GQL: "metadataVersion", Ptr: func(i *Item) any { return &i.MetadataVersion }, In: inWhole},
	{SQL: "i.technical_metadata", GQL: "technicalMetadata", Ptr: func(i *Item) any { return &i.TechnicalMetadata }, In: inWhole},
	{SQL: "i.geo_location", GQL: "geoLocation", Ptr: func(i *Item) any { return &i.GeoLocation }, In: inWhole},
	{SQL: "i.custom_icons", Ptr: func(i *Item) any { return &i.CustomIconsDoc }, In: inWhole},
	{SQL: "i.language_code", GQL: "languageCode", Ptr: func(i *Item) any { return &i.LanguageCode }, In: inWhole},
	{SQL: "i.transcoding_state", GQL: "transcodingState", Ptr: func(i *Item) any { return &i.TranscodingState }, In: inWhole},
	{SQL: "i.transcription_enabled", GQL: "transcriptionEnabled", Ptr: func(i *Item) any { return &i.TranscriptionEnabled }, In: inWhole},
	{SQL: "i.translation_enabled", GQL: "translationEnabled", Ptr: func(i *Item) any { return &i.TranslationEnabled }, In: inWhole},
	{SQL: "i.celebrity_detection_enabled", GQL: "celebrityDetectionEnabled", Ptr: func(i *Item) any { return &i.CelebrityDetectionEnabled }, In: inWhole},
	{SQL: "i.label_detection_enabled", GQL: "labelDetectionEnabled", Ptr: func(i *Item) any { return &i.LabelDetectionEnabled }, In: inWhole},
	{SQL: "i.person_detection_enabled", GQL: "personDetectionEnabled", Ptr: func(i *Item) any { return &i.PersonDetectionEnabled }, In: inWhole},
	{SQL: "i.text_detection_enabled", GQL: "textDetectionEnabled", Ptr: func(i *Item) any { return &i.TextDetectionEnabled }, In: inWhole},
	{SQL: "i.create_unknown_persons", GQL: "createUnknownPersons", Ptr: func(i *Item) any { return &i.CreateUnknownPersons }, In: inWhole},
	// hasRelations is left unnamed: named, a lean row would serve it, and a
	// mutation's relations { item { hasRelations } } would then read its
	// items one by one (TestRelationsPayloadResolvesItemsInOneStatement).
	{SQL: "i.has_relations", Ptr: func(i *Item) any { return &i.HasRelations }, In: inBoth},
	{SQL: "i.has_attachments", Ptr: func(i *Item) any { return &i.HasAttachments }, In: inBoth},
	{SQL: "i.archived_on", GQL: "archivedOn", Ptr: func(i *Item) any { return &i.ArchivedOn }, In: inWhole},
	{SQL: "i.deleted_on", Ptr: func(i *Item) any { return &i.DeletedOn }, In: inBoth},
	{SQL: "i.media", Ptr: func(i *Item) any { return &i.MediaDoc }, In: inWhole},
	{SQL: "i.media_usage", Ptr: func(i *Item) any { return &i.MediaUsageDoc }, In: inWhole},
	{SQL: "i.upload_lock_owner", GQL: "uploadLockOwnerInstanceId", Ptr: func(i *Item) any { return &i.UploadLockOwnerInstanceID }, In: inWhole},
	{SQL: "i.upload_locked_on", Ptr: func(i *Item) any { return &i.UploadLockedOn }, In: inWhole},
	{SQL: "i.transcript_last_updated", GQL: "transcriptLastUpdated", Ptr: func(i *Item) any { return &i.TranscriptLastUpdated }, In: inWhole},
	// The folder ids answer folderParents and folders through resolvers
	// (visibility filters them).
	{SQL: "i.folder_ids AS folder_parents", Ptr: func(i *Item) any { return &i.FolderParentIDs }, In: inBoth},
	{SQL: "true AS lean", Ptr: func(i *Item) any { return &i.Lean }, In: inLean},
}

var (
	itemWhole = fieldsOf(itemFields, inWhole)
	itemLean  = fieldsOf(itemFields, inLean)

	// itemColumns selects an Item from items aliased i.
	itemColumns = itemWhole.Columns
	// itemLeanColumns select a lean Item (itemFields).
	itemLeanColumns = itemLean.Columns
)

// ItemLeanGQL are the GraphQL fields of Item a lean row answers from its
// columns; resolvers adds those it serves by the item's id alone.
var ItemLeanGQL = itemLean.GQL

var (
	itemByIDSQL = `SELECT ` + itemColumns + `
FROM items i WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL`

	// itemAnyStateSQL also finds items in the recycle bin.
	itemAnyStateSQL = `SELECT ` + itemColumns + `
FROM items i WHERE i.tenant_id = $1 AND i.id = $2`
)

var itemsByIDsSQL = `SELECT ` + itemColumns + `
FROM items i WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.deleted_on IS NULL AND ` + visibleItem

var itemsByIDsLeanSQL = `SELECT ` + itemLeanColumns + `
FROM items i WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.deleted_on IS NULL AND ` + visibleItem

// visibleItem filters items aliased i to those the principal at $3 with
// the tokens $4 may see.
var visibleItem = visibleSQL("i", 3, 4)

// visibleItemByIDSQL is itemByIDSQL for a principal.
var visibleItemByIDSQL = itemByIDSQL + ` AND ` + visibleItem

// Item returns one live item of the principal's tenant that the principal
// may see. Returns ENOTFOUND if it does not exist, is deleted, belongs to
// another tenant or is not visible.
func (s *Store) Item(ctx context.Context, p *loupe.Principal, id string) (*Item, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	st, err := s.prepared(ctx, visibleItemByIDSQL)
	if err != nil {
		return nil, err
	}
	var it Item
	if err := st.QueryRowContext(ctx, p.TenantID, id, p.UserID, aclTokens(p)).Scan(it.dests()...); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch item %s: %w", id)
	}
	return &it, decodeMedia(&it)
}

func getItem(ctx context.Context, q queryer, query, tenantID, id string, more ...any) (*Item, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var it Item
	if err := q.GetContext(ctx, &it, query, append([]any{tenantID, id}, more...)...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, loupe.NotFound()
		}
		return nil, fmt.Errorf("store: unable to fetch item %s: %w", id, err)
	}
	return &it, decodeMedia(&it)
}

// ItemsByIDs returns the live items among ids that the principal may see,
// keyed by id, in one query.
func (s *Store) ItemsByIDs(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*Item, error) {
	return s.itemsByIDs(ctx, p, ids, false)
}

// ItemsByIDsLean is ItemsByIDs reading lean items (itemLeanColumns).
func (s *Store) ItemsByIDsLean(ctx context.Context, p *loupe.Principal, ids []string) (map[string]*Item, error) {
	return s.itemsByIDs(ctx, p, ids, true)
}

func (s *Store) itemsByIDs(ctx context.Context, p *loupe.Principal, ids []string, lean bool) (map[string]*Item, error) {
	out := make(map[string]*Item, len(ids))
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	query := itemsByIDsSQL
	if lean {
		query = itemsByIDsLeanSQL
	}
	items, err := selectScanned(ctx, s, itemDests(lean), query, p.TenantID, stringArray(ids), p.UserID, aclTokens(p))
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch items: %w", err)
	}
	if err := decodeMedia(items...); err != nil {
		return nil, err
	}
	for _, it := range items {
		out[it.ID] = it
	}
	return out, nil
}

// queryer is what both *sqlx.DB and *sqlx.Tx offer.
type queryer interface {
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
