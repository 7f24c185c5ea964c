package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/store"
)

// itemRecord is spec 2.2's item record: the ItemRecord fragment of
// rest/operations/items.graphql, field for field in its order (records.go
// says why it is written by hand).
type itemRecord struct {
	ID                           string             `json:"id"`
	Title                        string             `json:"title"`
	OriginalFileName             string             `json:"originalFileName"`
	CreatedBy                    string             `json:"createdBy"`
	CreatedOn                    dateTime           `json:"createdOn"`
	ModifiedOn                   dateTime           `json:"modifiedOn"`
	MediaCreatedOn               *dateTime          `json:"mediaCreatedOn"`
	ItemType                     string             `json:"itemType"`
	MediaType                    *string            `json:"mediaType"`
	MediaSize                    *int64             `json:"mediaSize"`
	FrameCount                   *int64             `json:"frameCount"`
	Metadata                     store.ItemMetadata `json:"metadata"`
	MetadataVersion              int                `json:"metadataVersion"`
	TechnicalMetadata            store.JSON         `json:"technicalMetadata"`
	GeoLocation                  store.JSON         `json:"geoLocation"`
	CustomIcons                  store.CustomIcons  `json:"customIcons"`
	FolderParents                []string           `json:"folderParents"`
	HasRelations                 bool               `json:"hasRelations"`
	HasArchiveRelation           bool               `json:"hasArchiveRelation"`
	AncestryLink                 string             `json:"ancestryLink"`
	Attachments                  []recordAttachment `json:"attachments"`
	ItemState                    *string            `json:"itemState"`
	TranscodingState             string             `json:"transcodingState"`
	TranscodingBy                *string            `json:"transcodingBy"`
	TranscodingService           *string            `json:"transcodingService"`
	ProgressInfo                 store.JSON         `json:"progressInfo"`
	TranscriptionState           *string            `json:"transcriptionState"`
	TranscriptionProgress        *float64           `json:"transcriptionProgress"`
	TranscriptionBy              *string            `json:"transcriptionBy"`
	TranscriptionService         *string            `json:"transcriptionService"`
	TranscriptionChannels        store.JSON         `json:"transcriptionChannels"`
	TranscriptionEnabled         bool               `json:"transcriptionEnabled"`
	TranslationBy                *string            `json:"translationBy"`
	TranslationEnabled           bool               `json:"translationEnabled"`
	TranslationLanguage          *string            `json:"translationLanguage"`
	TranscriptLastUpdated        *dateTime          `json:"transcriptLastUpdated"`
	TranscriptOffsetMs           *int64             `json:"transcriptOffsetMs"`
	LanguageCode                 string             `json:"languageCode"`
	CelebrityDetectionEnabled    bool               `json:"celebrityDetectionEnabled"`
	LabelDetectionEnabled        bool               `json:"labelDetectionEnabled"`
	PersonDetectionEnabled       bool               `json:"personDetectionEnabled"`
	TextDetectionEnabled         bool               `json:"textDetectionEnabled"`
	CreateUnknownPersons         bool               `json:"createUnknownPersons"`
	DetectedPersons              store.JSON         `json:"detectedPersons"`
	Proxy                        *string            `json:"proxy"`
	ProxySize                    *int64             `json:"proxySize"`
	HasProxy                     bool               `json:"hasProxy"`
	HighRes                      *string            `json:"highRes"`
	HasExternalHighres           bool               `json:"hasExternalHighres"`
	EditProxyFormat              *string            `json:"editProxyFormat"`
	WebProxyLocation             *string            `json:"webProxyLocation"`
	ProxyAudioTrackUrls          store.JSON         `json:"proxyAudioTrackUrls"`
	Thumbnail                    *string            `json:"thumbnail"`
	ThumbnailInfo                store.JSON         `json:"thumbnailInfo"`
	ThumbnailStrip               *string            `json:"thumbnailStrip"`
	GeneratedContentLocation     *string            `json:"generatedContentLocation"`
	SourceFileLocation           *string            `json:"sourceFileLocation"`
	VttURL                       *string            `json:"vttUrl"`
	SrtURL                       *string            `json:"srtUrl"`
	TranslationVttURL            *string            `json:"translationVttUrl"`
	TranslationSrtURL            *string            `json:"translationSrtUrl"`
	TimedTranscriptURL           *string            `json:"timedTranscriptUrl"`
	TimedTranslatedTranscriptURL *string            `json:"timedTranslatedTranscriptUrl"`
	IngestDestinationPath        *string            `json:"ingestDestinationPath"`
	IngestSkipProcessing         *bool              `json:"ingestSkipProcessing"`
	IngestSourceFullPath         *string            `json:"ingestSourceFullPath"`
	IngestSourceKey              *string            `json:"ingestSourceKey"`
	IngestSourceObjBucket        *string            `json:"ingestSourceObjBucket"`
	IngestSourceStorageID        *string            `json:"ingestSourceStorageId"`
	IsExternalUpload             bool               `json:"isExternalUpload"`
	UploadLockOwnerInstanceID    *string            `json:"uploadLockOwnerInstanceId"`
	UploadProgressInfo           store.JSON         `json:"uploadProgressInfo"`
	UploadRequestedAt            *dateTime          `json:"uploadRequestedAt"`
}

// recordAttachment is an attachment as the record lists it.
type recordAttachment struct {
	FileName    string `json:"fileName"`
	Description string `json:"description"`
	DownloadURL string `json:"downloadUrl"`
	Type        string `json:"type"`
	Role        string `json:"role"`
}

// itemRecord builds an item's record from the resolvers of its fields.
func (r *itemResolver) itemRecord(ctx context.Context, it *store.Item, readable *bool) (store.JSON, error) {
	parents, err := r.FolderParents(ctx, it)
	if err != nil {
		return nil, err
	}
	atts, err := r.Attachments(ctx, it, nil)
	if err != nil {
		return nil, err
	}
	md := it.Metadata()
	if md.FormData, err = r.ItemMetadata().FormData(ctx, &md, readable); err != nil {
		return nil, err
	}
	timed, err := r.TimedTranscriptURL(ctx, it)
	if err != nil {
		return nil, err
	}
	rec := itemRecord{
		ID: it.ID, Title: it.Title, OriginalFileName: it.OriginalFileName, CreatedBy: it.CreatedBy,
		CreatedOn: dateTime(it.CreatedOn), ModifiedOn: dateTime(it.ModifiedOn), MediaCreatedOn: optTime(it.MediaCreatedOn),
		ItemType: it.ItemType, MediaType: it.MediaType, MediaSize: it.MediaSize, FrameCount: it.FrameCount,
		Metadata: md, MetadataVersion: it.MetadataVersion, TechnicalMetadata: it.TechnicalMetadata,
		GeoLocation: it.GeoLocation, CustomIcons: it.CustomIcons(), FolderParents: orEmpty(parents),
		HasRelations: it.HasRelations, HasArchiveRelation: it.HasArchiveRelation(), AncestryLink: it.AncestryLink(),
		Attachments: make([]recordAttachment, len(atts)),
		ItemState:   it.ItemState, TranscodingState: it.TranscodingState, TranscodingBy: it.TranscodingBy,
		TranscodingService: it.TranscodingService, ProgressInfo: it.ProgressInfo,
		TranscriptionState: it.TranscriptionState, TranscriptionProgress: it.TranscriptionProgress,
		TranscriptionBy: it.TranscriptionBy, TranscriptionService: it.TranscriptionService,
		TranscriptionChannels: it.TranscriptionChannels, TranscriptionEnabled: it.TranscriptionEnabled,
		TranslationBy: it.TranslationBy, TranslationEnabled: it.TranslationEnabled,
		TranslationLanguage: it.TranslationLanguage, TranscriptLastUpdated: optTime(it.TranscriptLastUpdated),
		TranscriptOffsetMs: it.TranscriptOffsetMs, LanguageCode: it.LanguageCode,
		CelebrityDetectionEnabled: it.CelebrityDetectionEnabled, LabelDetectionEnabled: it.LabelDetectionEnabled,
		PersonDetectionEnabled: it.PersonDetectionEnabled, TextDetectionEnabled: it.TextDetectionEnabled,
		CreateUnknownPersons: it.CreateUnknownPersons, DetectedPersons: it.DetectedPersons,
		Proxy: it.Proxy, ProxySize: it.ProxySize, HasProxy: it.HasProxy(), HighRes: it.HighRes,
		HasExternalHighres: it.HasExternalHighres, EditProxyFormat: it.EditProxyFormat,
		WebProxyLocation: it.WebProxyLocation, ProxyAudioTrackUrls: it.ProxyAudioTrackUrls,
		Thumbnail: it.Thumbnail, ThumbnailInfo: it.ThumbnailInfo, ThumbnailStrip: it.ThumbnailStrip,
		GeneratedContentLocation: it.GeneratedContentLocation, SourceFileLocation: it.SourceFileLocation,
		VttURL: it.VttURL, SrtURL: it.SrtURL, TranslationVttURL: it.TranslationVttURL,
		TranslationSrtURL: it.TranslationSrtURL, TimedTranscriptURL: timed,
		TimedTranslatedTranscriptURL: it.TimedTranslatedTranscriptURL,
		IngestDestinationPath:        it.IngestDestinationPath, IngestSkipProcessing: it.IngestSkipProcessing,
		IngestSourceFullPath: it.IngestSourceFullPath, IngestSourceKey: it.IngestSourceKey,
		IngestSourceObjBucket: it.IngestSourceObjBucket, IngestSourceStorageID: it.IngestSourceStorageID,
		IsExternalUpload: it.IsExternalUpload, UploadLockOwnerInstanceID: it.UploadLockOwnerInstanceID,
		UploadProgressInfo: it.UploadProgressInfo, UploadRequestedAt: optTime(it.UploadRequestedAt),
	}
	for i, a := range atts {
		url, err := r.Attachment().DownloadURL(ctx, a)
		if err != nil {
			return nil, err
		}
		rec.Attachments[i] = recordAttachment{FileName: a.FileName, Description: a.Description, DownloadURL: url, Type: a.Type, Role: a.Role}
	}
	return encodeRecord(rec)
}
