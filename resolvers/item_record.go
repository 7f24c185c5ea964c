package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// itemRecord writes spec 2.2's item record: the ItemRecord fragment of
// rest/operations/items.graphql, field for field in its order (jsonw.go
// says why records are written by hand), from the same item and the same
// resolvers the fragment's fields use.
func (r *itemResolver) itemRecord(ctx context.Context, it *store.Item, readable *bool) (loupe.JSON, error) {
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
	w := make(jsonw, 0, 2048+len(it.MetadataFormData)+len(it.MediaDoc)+len(it.TechnicalMetadata))
	w = w.key("id", true).str(it.ID).key("title", false).str(it.Title).
		key("originalFileName", false).str(it.OriginalFileName).key("createdBy", false).str(it.CreatedBy).
		key("createdOn", false).time(it.CreatedOn).key("modifiedOn", false).time(it.ModifiedOn).
		key("mediaCreatedOn", false).optTime(it.MediaCreatedOn).key("itemType", false).str(it.ItemType).
		key("mediaType", false).optStr(it.MediaType).key("mediaSize", false).optInt(it.MediaSize).
		key("frameCount", false).optInt(it.FrameCount)
	w = w.key("metadata", false).key("formId", true).str(md.FormID).key("formData", false).raw(md.FormData)
	w = append(w, '}')
	w = w.key("metadataVersion", false).int(it.MetadataVersion).
		key("technicalMetadata", false).raw(it.TechnicalMetadata).key("geoLocation", false).raw(it.GeoLocation)
	icons := it.CustomIcons()
	w = w.key("customIcons", false).key("pos1", true).raw(icons.Pos1).key("pos2", false).raw(icons.Pos2).
		key("pos3", false).raw(icons.Pos3).key("pos4", false).raw(icons.Pos4).key("pos5", false).raw(icons.Pos5).
		key("pos6", false).raw(icons.Pos6).key("pos7", false).raw(icons.Pos7).key("pos8", false).raw(icons.Pos8)
	w = append(w, '}')
	w = w.key("folderParents", false).strs(parents).key("hasRelations", false).bool(it.HasRelations).
		key("hasArchiveRelation", false).bool(it.HasArchiveRelation()).key("ancestryLink", false).str(it.AncestryLink())
	w = append(w.key("attachments", false), '[')
	for i, a := range atts {
		url, err := r.Attachment().DownloadURL(ctx, a)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			w = append(w, ',')
		}
		w = w.key("fileName", true).str(a.FileName).key("description", false).str(a.Description).
			key("downloadUrl", false).str(url).key("type", false).str(a.Type).key("role", false).str(a.Role)
		w = append(w, '}')
	}
	w = append(w, ']')
	w = w.key("itemState", false).optStr(it.ItemState).key("transcodingState", false).str(it.TranscodingState).
		key("transcodingBy", false).optStr(it.TranscodingBy).key("transcodingService", false).optStr(it.TranscodingService).
		key("progressInfo", false).raw(it.ProgressInfo).key("transcriptionState", false).optStr(it.TranscriptionState).
		key("transcriptionProgress", false).optFloat(it.TranscriptionProgress).
		key("transcriptionBy", false).optStr(it.TranscriptionBy).key("transcriptionService", false).optStr(it.TranscriptionService).
		key("transcriptionChannels", false).raw(it.TranscriptionChannels).
		key("transcriptionEnabled", false).bool(it.TranscriptionEnabled).key("translationBy", false).optStr(it.TranslationBy).
		key("translationEnabled", false).bool(it.TranslationEnabled).key("translationLanguage", false).optStr(it.TranslationLanguage).
		key("transcriptLastUpdated", false).optTime(it.TranscriptLastUpdated).
		key("transcriptOffsetMs", false).optInt(it.TranscriptOffsetMs).key("languageCode", false).str(it.LanguageCode).
		key("celebrityDetectionEnabled", false).bool(it.CelebrityDetectionEnabled).
		key("labelDetectionEnabled", false).bool(it.LabelDetectionEnabled).
		key("personDetectionEnabled", false).bool(it.PersonDetectionEnabled).
		key("textDetectionEnabled", false).bool(it.TextDetectionEnabled).
		key("createUnknownPersons", false).bool(it.CreateUnknownPersons).key("detectedPersons", false).raw(it.DetectedPersons)
	w = w.key("proxy", false).optStr(it.Proxy).key("proxySize", false).optInt(it.ProxySize).
		key("hasProxy", false).bool(it.HasProxy()).key("highRes", false).optStr(it.HighRes).
		key("hasExternalHighres", false).bool(it.HasExternalHighres).key("editProxyFormat", false).optStr(it.EditProxyFormat).
		key("webProxyLocation", false).optStr(it.WebProxyLocation).key("proxyAudioTrackUrls", false).raw(it.ProxyAudioTrackUrls).
		key("thumbnail", false).optStr(it.Thumbnail).key("thumbnailInfo", false).raw(it.ThumbnailInfo).
		key("thumbnailStrip", false).optStr(it.ThumbnailStrip).
		key("generatedContentLocation", false).optStr(it.GeneratedContentLocation).
		key("sourceFileLocation", false).optStr(it.SourceFileLocation)
	w = w.key("vttUrl", false).optStr(it.VttURL).key("srtUrl", false).optStr(it.SrtURL).
		key("translationVttUrl", false).optStr(it.TranslationVttURL).key("translationSrtUrl", false).optStr(it.TranslationSrtURL).
		key("timedTranscriptUrl", false).optStr(timed).
		key("timedTranslatedTranscriptUrl", false).optStr(it.TimedTranslatedTranscriptURL)
	w = w.key("ingestDestinationPath", false).optStr(it.IngestDestinationPath).
		key("ingestSkipProcessing", false).optBool(it.IngestSkipProcessing).
		key("ingestSourceFullPath", false).optStr(it.IngestSourceFullPath).key("ingestSourceKey", false).optStr(it.IngestSourceKey).
		key("ingestSourceObjBucket", false).optStr(it.IngestSourceObjBucket).
		key("ingestSourceStorageId", false).optStr(it.IngestSourceStorageID).
		key("isExternalUpload", false).bool(it.IsExternalUpload).
		key("uploadLockOwnerInstanceId", false).optStr(it.UploadLockOwnerInstanceID).
		key("uploadProgressInfo", false).raw(it.UploadProgressInfo).key("uploadRequestedAt", false).optTime(it.UploadRequestedAt)
	return loupe.JSON(append(w, '}')), nil
}
