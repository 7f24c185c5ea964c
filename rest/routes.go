package rest

import (
	"net/http"

	"github.com/loupe-mam/loupe"
)

// Route is one path of the spec: which stored operation runs, how the request
// fills its variables, and which part of its data is the response.
type Route struct {
	Method string
	// Path is the spec's path. A path parameter has one spelling: the
	// spec also lists some paths with {id} for {itemId}, which the same
	// route answers (the router does not read names) and the OpenAPI
	// document, which takes them for one path, does not list twice.
	Path string
	// Op names the operation in Document; Field is the dotted path in its
	// data that is the response body ("" for the whole data object).
	Op    string
	Field string
	Bind  Binder
	// Status is the success status (200 when zero).
	Status int
	// BadBody replaces the answer to a body that is not JSON, where the
	// spec prescribes another one.
	BadBody *loupe.Error
	// NoBody is the answer to a request without a body where the spec
	// prescribes one (its binder answers it; the hostile suite reads it).
	NoBody *loupe.Error
	// Invalid replaces the message of every 400 the route answers, where
	// the spec prescribes one message for any invalid request; the
	// specific problem moves to developerMessage.
	Invalid string
	// InvalidEcho is Invalid followed by the request body as received (its
	// first maxEcho bytes), where the spec's message quotes the body.
	InvalidEcho string
	// Variant serves the request instead when its When matches (a query
	// parameter that selects another operation on the same path).
	Variant *Variant
	// Shape rewrites the answer where the spec's shape is one GraphQL
	// cannot have (an object keyed by ids).
	Shape Shape
	// NotInSpec marks a path an issue asked for that the spec's endpoint
	// list lacks (the reason is in the comment on the route).
	NotInSpec bool
}

// Variant is another operation on a route's path, served when the query
// parameter Query has the value Value.
type Variant struct {
	Query, Value string
	Op           string
	Field        string
	Bind         Binder
}

// msgMalformed is the spec's answer to a bad bookmark or bookmark folders write.
const msgMalformed = "Malformed request"

// The spec's answers to an invalid storage location create, update and
// delete (section 7: "Request body is not a valid storage creation /
// update / deletion payload", one message per operation).
const (
	msgBadStorageCreate = "Request body is not a valid storage creation payload"
	msgBadStorageUpdate = "Request body is not a valid storage update payload"
	msgBadStorageDelete = "Request body is not a valid storage deletion payload"
)

// item binds the item id of the path.
var item = path("itemId", "id")

// Routes is the REST interface: every spec path Loupe serves, and the only
// place a spec path is written. The router, the 404 behaviour and the
// coverage test all read it.
var Routes = []Route{
	// Items (4.1).
	{Method: "GET", Path: "/api/v1/items", Op: "pollItems", Field: "itemChanges",
		Bind: all(queryStringOr("since", "", "since", "1970-01-01T00:00:00Z"),
			queryInt("size", "", "first"), queryString("nextToken", "", "after"),
			queryBool("readableMetadataFields", "", "readable"))},
	{Method: "POST", Path: "/api/v1/items", Op: "createItem", Field: "createItem.item",
		Bind: bodyAs("input")},
	{Method: "GET", Path: "/api/v1/items/{itemId}", Op: "getItem", Field: "item.record",
		Bind: all(item, queryBool("readableMetadataFields", "", "readable"))},
	{Method: "DELETE", Path: "/api/v1/items/{itemId}", Op: "deleteItem", Field: "deleteItem", Bind: item},
	{Method: "POST", Path: "/api/v1/items/{itemId}/undelete", Op: "undeleteItem", Field: "undeleteItem", Bind: item},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/archive", Op: "toggleArchive", Field: "toggleArchive", Bind: item},
	{Method: "GET", Path: "/api/v1/items/{itemId}/ancestry",
		Op: "getAncestry", Field: "item.ancestry", Bind: item},
	// Not in the spec's endpoint list: a signed link to the item's
	// original (issue 27; docs/uploads.md, "Downloading the original").
	{Method: "GET", Path: "/api/v1/items/{itemId}/original", Op: "getOriginalDownload", Field: "originalDownload",
		Bind: item, NotInSpec: true},

	// Attachments (2.4).
	{Method: "GET", Path: "/api/v1/items/{itemId}/attachments",
		Op: "listAttachments", Field: "item.attachments",
		Bind: all(item, queryString("attachment", "", "fileName"))},
	{Method: "POST", Path: "/api/v1/items/{itemId}/attachments", Op: "createAttachment", Field: "createAttachment.uploadUrl",
		Bind: all(bodyAs("input"), pathInto("itemId", "input", "itemId")),
		Variant: &Variant{
			Query: "isPrecheck", Value: "true",
			Op: "attachmentsPrecheck", Field: "attachmentsPrecheck", Bind: all(item, precheckBody),
		}},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/attachments", Op: "updateAttachment", Field: "updateAttachment",
		Bind: all(bodyAs("input"), pathInto("itemId", "input", "itemId"))},
	// Not in the spec's endpoint list, but how integrations of the original
	// service delete an attachment, and clear a file name before writing it
	// again (issue 19): {fileName, type?} in the body — or the whole create
	// payload, which their forceOverwrite sends (attachmentDeleteBody); it
	// answers the deleted file name as a JSON string, which they type it as.
	{Method: "DELETE", Path: "/api/v1/items/{itemId}/attachments", Op: "deleteAttachment",
		Field: "deleteAttachment.fileName", NotInSpec: true,
		Bind: all(attachmentDeleteBody, pathInto("itemId", "input", "itemId"))},

	// Comments (2.5).
	{Method: "GET", Path: "/api/v1/items/{itemId}/comments",
		Op: "listComments", Field: "item.comments",
		Bind: all(item, queryInt("size", "", "size"), queryString("mScrollId", "", "mScrollId"))},
	{Method: "POST", Path: "/api/v1/items/{itemId}/comments", Op: "createComment", Field: "createComment",
		Bind: all(bodyAs("input"), pathInto("itemId", "input", "itemId"))},

	// Custom icons (2.6).
	{Method: "GET", Path: "/api/v1/items/{itemId}/customIcons",
		Op: "getCustomIcons", Field: "item", Bind: item},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/customIcons", Op: "setCustomIcons", Field: "setCustomIcons",
		Bind: all(customIconsBody(false), pathInto("itemId", "input", "itemId")), BadBody: typeError},
	{Method: "PATCH", Path: "/api/v1/items/{itemId}/customIcons", Op: "setCustomIcons", Field: "setCustomIcons",
		Bind: all(customIconsBody(true), pathInto("itemId", "input", "itemId")), BadBody: typeError},

	// Media usage and location.
	{Method: "POST", Path: "/api/v1/items/{itemId}/mediaUsage", Op: "updateMediaUsage", Field: "updateMediaUsage",
		Bind: all(bodyAs("input"), pathInto("itemId", "input", "itemId"))},
	{Method: "POST", Path: "/api/v1/process", Op: "processItem", Field: "processItem",
		Bind: requiredBodyAs("input"), Invalid: MsgInvalidSyntax},
	{Method: "POST", Path: "/api/v1/items/{itemId}/migrateMediaLocation", Op: "migrateMediaLocation",
		Field: "migrateMediaLocation", Bind: all(optionalBodyAs("input"), pathInto("itemId", "input", "itemId"))},

	// Relations.
	{Method: "GET", Path: "/api/v1/items/{itemId}/relations",
		Op: "listRelations", Field: "item", Bind: item},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/relations/{relationType}", Op: "setRelations", Field: "setRelations",
		Bind: all(relatedIDsBody, pathInto("itemId", "input", "itemId"), pathInto("relationType", "input", "relationType"))},
	{Method: "DELETE", Path: "/api/v1/items/{itemId}/relations/{relationType}/{relatedItemId}", Op: "deleteRelation",
		Field: "deleteRelation", Bind: all(pathInto("itemId", "input", "itemId"),
			pathInto("relationType", "input", "relationType"), pathInto("relatedItemId", "input", "relatedItemId")),
		Invalid: MsgInvalidSyntax},

	// Thumbnails.
	{Method: "GET", Path: "/api/v1/items/{itemId}/thumbnail/{position}", Op: "getThumbnail", Field: "thumbnailAt",
		Bind: all(item, path("position", "position"))},
	{Method: "GET", Path: "/api/v1/items/{itemId}/thumbnails/urls", Op: "listThumbnailUrls", Field: "item.thumbnails",
		Bind: all(item, queryInt("index", "", "index"), queryInt("size", "", "size"))},

	// Timed metadata and transcript.
	{Method: "GET", Path: "/api/v1/items/{itemId}/timedMetadata",
		Op: "getTimedMetadata", Field: "item", Bind: item},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/timedMetadata", Op: "updateTimedMetadata", Field: "updateTimedMetadata",
		Bind: all(timedMetadataBody, pathInto("itemId", "input", "itemId"))},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/transcript", Op: "updateTranscript", Field: "updateTranscript",
		Bind: all(bodyAs("input"), pathInto("itemId", "input", "itemId")), Invalid: MsgInvalidSyntax},

	// Upload lock.
	{Method: "GET", Path: "/api/v1/items/{itemId}/upload", Op: "getUploadLock", Field: "item", Bind: item},
	{Method: "DELETE", Path: "/api/v1/items/{itemId}/upload", Op: "unlockUpload", Field: "unlockUpload", Bind: item},

	// Versions (2.7).
	{Method: "GET", Path: "/api/v1/items/{itemId}/version", Op: "getVersion", Field: "item.version", Bind: item},
	{Method: "GET", Path: "/api/v1/items/{itemId}/versionsHistory", Op: "getVersionsHistory", Field: "item", Bind: item},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/versionsHistory", Op: "renameVersion", Field: "renameVersion",
		Bind: all(bodyAs("input"), pathInto("itemId", "input", "itemId"))},

	// External ids (2.8) and metadata.
	{Method: "GET", Path: "/api/v1/itemsByExternalId", Op: "itemsByExternalId", Field: "",
		Bind: queryList("externalIds", "externalIds", "externalId")},
	{Method: "PATCH", Path: "/api/v1/itemMetadata/{id}", Op: "updateItemMetadata", Field: "updateItemMetadata.item",
		Bind: all(bodyKeyInto("metadataDelta", "input", "metadataDelta"), pathInto("id", "input", "id"),
			queryInt("requiredMetadataVersion", "input", "requiredMetadataVersion"),
			queryBool("readableMetadataFields", "", "readable"))},

	// Folders (2.10, 4.2).
	{Method: "GET", Path: "/api/v1/folders/{folderId}", Op: "getFolder", Field: "folder", Bind: path("folderId", "id")},
	{Method: "POST", Path: "/api/v1/folders/{folderId}", Op: "updateFolder", Field: "updateFolder",
		Bind: all(folderUpdateBody, pathInto("folderId", "input", "id"))},
	{Method: "DELETE", Path: "/api/v1/folders/{folderId}", Op: "deleteFolder", Field: "deleteFolder",
		Bind: path("folderId", "id")},
	{Method: "GET", Path: "/api/v1/folders/{folderId}/content", Op: "getFolderContent", Field: "folderContent.record",
		Bind: all(path("folderId", "id"), queryInt("from", "", "from"), queryInt("size", "", "size"),
			queryEnum("sort", "sort", "name", "createdOn"), queryEnum("order", "order", "asc", "desc"),
			queryString("nextToken", "", "after"))},
	{Method: "GET", Path: "/api/v1/folders/{folderId}/metadata", Op: "getFolderMetadata", Field: "folder",
		Bind: path("folderId", "id")},
	{Method: "PUT", Path: "/api/v1/folders/{folderId}/metadata", Op: "setFolderMetadata", Field: "setFolderMetadata",
		Bind: all(bodyKeyInto("metadata", "input", "metadata"), pathInto("folderId", "input", "id")), BadBody: typeError},
	{Method: "POST", Path: "/api/v1/folders/ancestry", Op: "folderAncestry", Field: "folderAncestry",
		Bind: idsBody, BadBody: typeError, Shape: KeyedByID{"paths"}},
	{Method: "POST", Path: "/api/v1/folders/path", Op: "createFolderPath", Field: "createFolderPath",
		Bind: bodyAs("input"), BadBody: typeError},

	// Bookmarks and bookmark folders (2.11). The spec answers every bad
	// bookmark update or folders write with one message.
	{Method: "GET", Path: "/config/api/v1/bookmarks", Op: "listBookmarks", Field: "bookmarks"},
	{Method: "POST", Path: "/config/api/v1/bookmarks", Op: "createBookmark", Field: "createBookmark", Bind: bodyAs("input")},
	{Method: "PUT", Path: "/config/api/v1/bookmarks", Op: "replaceBookmarks", Field: "replaceBookmarks",
		Bind: bodyArrayAs("input")},
	{Method: "GET", Path: "/config/api/v1/bookmarks/{bookmarkId}", Op: "getBookmark", Field: "bookmark",
		Bind: path("bookmarkId", "id")},
	{Method: "PUT", Path: "/config/api/v1/bookmarks/{bookmarkId}", Op: "updateBookmark", Field: "updateBookmark",
		Bind: all(bodyAs("input"), path("bookmarkId", "id")), Invalid: msgMalformed},
	{Method: "DELETE", Path: "/config/api/v1/bookmarks/{bookmarkId}", Op: "deleteBookmark", Field: "deleteBookmark",
		Bind: path("bookmarkId", "id")},
	{Method: "GET", Path: "/config/api/v1/bookmarkFolders", Op: "getBookmarkFolders", Field: "bookmarkFolders"},
	{Method: "PUT", Path: "/config/api/v1/bookmarkFolders", Op: "setBookmarkFolders", Field: "setBookmarkFolders",
		Bind: bodyKeyInto("folders", "", "folders"), Invalid: msgMalformed},

	// Tenant storages (2.13) and storage locations (docs/storage-locations.md).
	// A bad storage update is the spec's invalid syntax; every bad storage
	// location write one of its three messages, the problem (a failed probe
	// too) in developerMessage.
	{Method: "GET", Path: "/config/api/v1/storages", Op: "listStorages", Field: "storages"},
	{Method: "POST", Path: "/config/api/v1/storages", Op: "createStorage", Field: "createStorage", Bind: bodyAs("input")},
	{Method: "PUT", Path: "/config/api/v1/storages/{storageId}", Op: "updateStorage", Field: "updateStorage",
		Bind: all(bodyAs("input"), path("storageId", "id")), Invalid: MsgInvalidSyntax},
	{Method: "DELETE", Path: "/config/api/v1/storages/{storageId}", Op: "deleteStorage", Field: "deleteStorage",
		Bind: path("storageId", "id")},
	{Method: "GET", Path: "/prime/api/v1/storages", Op: "listStorageLocations", Field: "storageLocations"},
	{Method: "POST", Path: "/prime/api/v1/storages", Op: "createStorageLocation", Field: "createStorageLocation",
		Bind: requiredBodyAs("input"), Invalid: msgBadStorageCreate},
	{Method: "PUT", Path: "/prime/api/v1/storages", Op: "updateStorageLocation", Field: "updateStorageLocation",
		Bind: requiredBodyAs("input"), Invalid: msgBadStorageUpdate},
	{Method: "DELETE", Path: "/prime/api/v1/storages", Op: "deleteStorageLocation", Field: "deleteStorageLocation",
		Bind: requiredBodyAs("input"), Invalid: msgBadStorageDelete},

	// Ingest from object storage (2.14, 2.15, 4.1, 4.3; docs/ingest.md).
	// Creating a configuration without a body is the spec's 500 "Expected
	// body"; an ingestFile naming an item that is not one is its 400
	// "Wrong item id" (the resolver's message).
	{Method: "GET", Path: "/ingest/api/v1/ingestStorageConfigs", Op: "listIngestStorageConfigs", Field: "ingestStorageConfigs"},
	{Method: "POST", Path: "/ingest/api/v1/ingestStorageConfigs", Op: "createIngestStorageConfig",
		Field: "createIngestStorageConfig", Bind: expectedBody("input"), NoBody: errExpectedBody},
	// Not in the spec's endpoint list: one configuration (to watch its
	// scanStorageState), its delete, and asking for its scan (issue 15).
	{Method: "GET", Path: "/ingest/api/v1/ingestStorageConfigs/{id}", Op: "getIngestStorageConfig",
		Field: "ingestStorageConfig", Bind: path("id", "id"), NotInSpec: true},
	{Method: "DELETE", Path: "/ingest/api/v1/ingestStorageConfigs/{id}", Op: "deleteIngestStorageConfig",
		Field: "deleteIngestStorageConfig", Bind: path("id", "id"), NotInSpec: true},
	{Method: "POST", Path: "/ingest/api/v1/ingestStorageConfigs/{id}/scan", Op: "scanIngestStorageConfig",
		Field: "scanIngestStorageConfig", Bind: path("id", "id"), NotInSpec: true},
	{Method: "GET", Path: "/config/api/v1/config/uploadLocations", Op: "listUploadLocations", Field: "uploadLocations"},
	{Method: "GET", Path: "/config/api/v1/config/defaultUploadLocation", Op: "getDefaultUploadLocation",
		Field: "defaultUploadLocation"},
	{Method: "GET", Path: "/config/api/v1/configs/gateway", Op: "listGatewayConfigs", Field: "gatewayConfigs",
		Bind: all(queryInt("i", "", "index"), queryInt("index", "", "index"), queryInt("s", "", "size"),
			queryInt("size", "", "size"))},
	{Method: "POST", Path: "/config/api/v1/configs/gateway", Op: "createGatewayConfig", Field: "createGatewayConfig",
		Bind: bodyAs("input")},
	{Method: "DELETE", Path: "/config/api/v1/configs/gateway/{id}", Op: "deleteGatewayConfig", Field: "deleteGatewayConfig",
		Bind: path("id", "id")},
	{Method: "POST", Path: "/ingest/api/v1/ingestFile", Op: "ingestFile", Field: "ingestFile", Bind: bodyAs("input")},
	{Method: "PUT", Path: "/auxiliary/api/v1/gatewayIngestFile/{gatewayId}", Op: "gatewayIngestFile",
		Field: "gatewayIngestFile", Bind: all(bodyAs("input"), path("gatewayId", "gatewayId"))},

	// User settings, status and persons (2.17, 2.18).
	{Method: "GET", Path: "/auxiliary/api/v1/userSettings", Op: "getUserSettings", Field: "viewer.settings"},
	{Method: "PUT", Path: "/auxiliary/api/v1/userSettings", Op: "updateUserSettings", Field: "updateUserSettings",
		Bind: bodyAs("input")},
	{Method: "GET", Path: "/auth/api/v1/user/status", Op: "getUserStatus", Field: "userStatus"},
	{Method: "POST", Path: "/api/v1/persons", Op: "createPerson", Field: "createPerson", Bind: bodyAs("input")},

	// Metadata definition forms and option lists (2.22, 2.23, 4.8). A
	// definition read can be written back: its modifiedOn is dropped.
	{Method: "GET", Path: "/api/v1/mdfs", Op: "listMdfs", Field: "mdfs",
		Shape: OmitNullInCollection{[]string{"flavor", "color", "icon", "rule", "usageRules"}}},
	{Method: "POST", Path: "/api/v1/mdfs", Op: "createMdf", Field: "createMdf.mdf", Bind: definitionBody},
	{Method: "GET", Path: "/api/v1/mdfs/{mdfId}", Op: "getMdf", Field: "mdf", Bind: path("mdfId", "id")},
	{Method: "PUT", Path: "/api/v1/mdfs/{mdfId}", Op: "updateMdf", Field: "updateMdf.mdf",
		Bind: all(definitionBody, pathInto("mdfId", "input", "id"))},
	{Method: "DELETE", Path: "/api/v1/mdfs/{mdfId}", Op: "deleteMdf", Field: "deleteMdf.id", Bind: path("mdfId", "id")},
	{Method: "GET", Path: "/api/v1/optionLists", Op: "listOptionLists", Field: "optionLists"},
	{Method: "POST", Path: "/api/v1/optionLists", Op: "createOptionList", Field: "createOptionList.optionList",
		Bind: definitionBody},
	{Method: "PUT", Path: "/api/v1/optionLists/{optionListId}", Op: "updateOptionList",
		Field: "updateOptionList.optionList", Bind: all(definitionBody, pathInto("optionListId", "input", "id"))},
	{Method: "DELETE", Path: "/api/v1/optionLists/{optionListId}", Op: "deleteOptionList", Field: "deleteOptionList",
		Bind: path("optionListId", "id")},

	// Audit (2.9) and search.
	{Method: "GET", Path: "/auxiliary/api/v1/itemAnalyticsSearch", Op: "itemAnalyticsSearch", Field: "itemAnalytics",
		Bind: all(
			queryString("itemId", "filter", "itemId"),
			checked(queryString("actionType", "filter", "actionType"),
				func(v string) error { _, err := loupe.ParseAuditAction(v); return err }),
			queryString("executedBy", "filter", "executedBy"),
			queryString("since", "filter", "since"),
			queryString("until", "filter", "until"),
			queryInt("from", "", "from"),
			queryInt("size", "", "size"),
		)},
	// Tenant administration (2.12, 2.24–2.26). Every user of the tenant
	// reads its configuration and transcription languages; writing them and
	// the usage figures are admins' (docs/tenant-config.md, docs/usage.md).
	{Method: "GET", Path: "/config/api/v1/config", Op: "getTenantConfig", Field: "tenantConfig"},
	{Method: "POST", Path: "/config/api/v1/config", Op: "updateTenantConfig", Field: "updateTenantConfig",
		Bind: bodyAs("input")},
	{Method: "GET", Path: "/config/api/v1/config/transcriptionLanguageSettings", Op: "getTranscriptionLanguageSettings",
		Field: "transcriptionLanguageSettings"},
	{Method: "POST", Path: "/config/api/v1/config/transcriptionLanguageSettings", Op: "setTranscriptionLanguageSettings",
		Field: "setTranscriptionLanguageSettings", Bind: transcriptionLanguagesBody, InvalidEcho: msgMalformedLanguages},
	{Method: "GET", Path: "/config/api/v1/systemConfig/transcriptionLanguageSettings",
		Op: "getSystemTranscriptionLanguageSettings", Field: "systemTranscriptionLanguageSettings"},
	{Method: "GET", Path: "/api/v1/metering", Op: "getMetering", Field: "metering",
		Bind: all(queryInt("startDay", "", "startDay"), queryInt("endDay", "", "endDay"),
			queryOptionalList("", "tenantIds", "tenantIds", "tenantId"))},
	{Method: "GET", Path: "/api/v1/stats", Op: "getStats", Field: "stats",
		Bind: queryEnum("dateRange", "dateRange", "ALL", "LAST_24_HOURS", "LAST_7_DAYS", "LAST_30_DAYS", "LAST_365_DAYS")},
	{Method: "GET", Path: "/auxiliary/api/v1/systemActivity", Op: "getSystemActivity", Field: "systemActivity",
		Bind: all(queryInt("size", "", "first"), queryString("nextToken", "", "after"),
			queryOptionalList("filter", "types", "type", "types"),
			queryString("since", "filter", "since"), queryString("until", "filter", "until"))},
	// Notifications of the caller (2.28, 4.6; docs/events.md). One
	// notification by id, or marked, is no path of the spec's (404): read
	// state is the user setting dismissedNotifications.
	{Method: "GET", Path: "/prime/api/v1/notifications", Op: "listNotifications", Field: "notifications",
		Bind: all(queryInt("size", "", "first"), queryString("nextToken", "", "after"))},
	{Method: "POST", Path: "/prime/api/v1/notifications", Op: "sendNotification", Field: "sendNotification",
		Bind: requiredBodyAs("input")},
	// Presets (2.20, 4.5, 2.28; docs/render.md). A record read can be
	// written back: its read-only keys are dropped. One preset by id stays
	// a 404 (section 7).
	{Method: "GET", Path: "/prime/api/v1/presets", Op: "listPresets", Field: "presets",
		Bind: all(queryInt("i", "", "index"), queryInt("index", "", "index"), queryInt("s", "", "size"),
			queryInt("size", "", "size"))},
	{Method: "POST", Path: "/prime/api/v1/presets", Op: "createPreset", Field: "createPreset", Bind: presetBody},
	{Method: "PUT", Path: "/prime/api/v1/presets/{presetId}", Op: "updatePreset", Field: "updatePreset",
		Bind: all(presetBody, path("presetId", "id"))},
	{Method: "DELETE", Path: "/prime/api/v1/presets/{presetId}", Op: "deletePreset", Field: "deletePreset",
		Bind: path("presetId", "id")},

	// Render sequences (4.5; docs/render.md): a target that is not a
	// valid RenderSequenceTarget is the spec's 400 (the resolver's message).
	{Method: "POST", Path: "/prime/api/v1/renderSequenceRequests", Op: "createRenderSequenceRequest",
		Field: "createRenderSequenceRequest", Bind: requiredBodyAs("input")},

	// Replication and transfers (4.5, 2.28 {sources}; docs/replication.md).
	// PUT replaces the tenant's set of sources ({sources}; run: ids to run
	// now) and without a body is the spec's 400. Transfers page by
	// nextToken, filtered by state, sourceId, itemId and media. The absent
	// paths of section 7 (/api/v1/replication, /prime/api/v1/transfers, …)
	// are not in this table: they stay 404.
	{Method: "GET", Path: "/prime/api/v1/replication", Op: "getReplication", Field: "replication"},
	{Method: "PUT", Path: "/prime/api/v1/replication", Op: "putReplication", Field: "putReplication",
		Bind:   bodyOr("input", func() error { return loupe.Invalid(loupe.MsgMissingReplicationBody) }),
		NoBody: loupe.Invalid(loupe.MsgMissingReplicationBody)},
	{Method: "GET", Path: "/auxiliary/api/v1/transfers", Op: "listTransfers", Field: "transfers",
		Bind: all(queryInt("size", "", "first"), queryString("nextToken", "", "after"),
			queryOptionalList("filter", "state", "state"), queryString("sourceId", "filter", "sourceId"),
			queryString("itemId", "filter", "itemId"), queryString("media", "filter", "media"))},

	// Live pipelines (2.21, 4.6; docs/live.md): the read is REST's, the
	// writes GraphQL's. /prime/api/v1/live, …/live/sources and
	// …/live/series/{id} stay 404 (section 7).
	{Method: "GET", Path: "/prime/api/v1/live/pipelines", Op: "listLivePipelines", Field: "livePipelines"},
	{Method: "GET", Path: "/prime/api/v1/live/scheduled", Op: "listScheduledRecordings", Field: "scheduledRecordings",
		Bind: all(checked(queryString("from", "", "from"), loupe.CheckPeriodParam("from")),
			checked(queryString("to", "", "to"), loupe.CheckPeriodParam("to")))},
	{Method: "GET", Path: "/prime/api/v1/live/scheduled/{id}", Op: "getScheduledRecording", Field: "scheduledRecording",
		Bind: path("id", "id")},

	// Shares (4.5, 2.28; docs/shares.md). One share by id stays a 404 (section
	// 7); revoking is GraphQL's revokeShare.
	{Method: "GET", Path: "/prime/api/v1/shares", Op: "listShares", Field: "shares",
		Bind: all(queryInt("size", "", "first"), queryString("nextToken", "", "after"))},
	{Method: "POST", Path: "/prime/api/v1/shares", Op: "createShare", Field: "createShare",
		Bind: requiredBodyAs("input"), Invalid: loupe.MsgInvalidShare},
	// Webhooks (docs/events.md): no spec path; under the configuration's,
	// the tenant's admins'.
	{Method: "GET", Path: "/config/api/v1/config/webhooks", Op: "listWebhooks", Field: "webhooks", NotInSpec: true},
	{Method: "POST", Path: "/config/api/v1/config/webhooks", Op: "createWebhook", Field: "createWebhook",
		Bind: requiredBodyAs("input"), NotInSpec: true},
	{Method: "GET", Path: "/config/api/v1/config/webhooks/{webhookId}", Op: "getWebhook", Field: "webhook",
		Bind: path("webhookId", "id"), NotInSpec: true},
	{Method: "PUT", Path: "/config/api/v1/config/webhooks/{webhookId}", Op: "updateWebhook", Field: "updateWebhook",
		Bind: all(path("webhookId", "id"), requiredBodyAs("input")), NotInSpec: true},
	{Method: "DELETE", Path: "/config/api/v1/config/webhooks/{webhookId}", Op: "deleteWebhook", Field: "deleteWebhook",
		Bind: path("webhookId", "id"), NotInSpec: true},
	{Method: "POST", Path: "/config/api/v1/config/webhooks/{webhookId}/rotateSecret", Op: "rotateWebhookSecret",
		Field: "rotateWebhookSecret", Bind: path("webhookId", "id"), NotInSpec: true},
	{Method: "GET", Path: "/config/api/v1/config/webhooks/{webhookId}/deliveries", Op: "listWebhookDeliveries",
		Field: "webhookDeliveries", Bind: all(path("webhookId", "webhookId"), queryInt("size", "", "first"),
			queryString("nextToken", "", "after")), NotInSpec: true},
	{Method: "POST", Path: "/config/api/v1/config/webhooks/{webhookId}/deliveries/{deliveryId}/replay",
		Op: "replayWebhookDelivery", Field: "replayWebhookDelivery",
		Bind: all(path("webhookId", "webhookId"), path("deliveryId", "deliveryId")), NotInSpec: true},
	// API keys, security settings and the system scope (2.19, 2.27, 4.7,
	// section 5; docs/security.md).
	{Method: "GET", Path: "/auth/api/v1/keys", Op: "listApiKeys", Field: "apiKeys"},
	{Method: "POST", Path: "/auth/api/v1/keys", Op: "createApiKey", Field: "createApiKey", Bind: bodyAs("input")},
	{Method: "DELETE", Path: "/auth/api/v1/keys/{keyId}", Op: "deleteApiKey", Field: "deleteApiKey",
		Bind: path("keyId", "keyId")},
	{Method: "GET", Path: "/auth/api/v1/security", Op: "getSecuritySettings", Field: "securitySettings"},
	{Method: "PUT", Path: "/auth/api/v1/security", Op: "updateSecuritySettings", Field: "updateSecuritySettings",
		Bind: requiredBodyAs("input")},
	{Method: "GET", Path: "/config/api/v1/tenantIds", Op: "tenantIds", Field: "tenantIds"},
	{Method: "GET", Path: "/ingest/api/v1/generatedMediaLocations", Op: "listGeneratedMediaLocations", Field: "generatedMediaLocations"},
	{Method: "POST", Path: "/ingest/api/v1/generatedMediaLocations", Op: "createGeneratedMediaLocation",
		Field: "createGeneratedMediaLocation", Bind: requiredBodyAs("input")},
	{Method: "GET", Path: "/api/v1/storageManagers", Op: "storageManagers", Field: "storageManagers"},

	// Search is named by the spec's limits (section 8: "search hits") and
	// required by the items issue, but is missing from endpoints.tsv.
	// Its filters and facets are Loupe's (docs/search.md): list filters
	// repeated or comma separated, one metadata field value.
	{Method: "GET", Path: "/api/v1/search", Op: "search", Field: "search", NotInSpec: true,
		Bind: all(queryString("searchString", "", "searchString"), queryString("folderId", "", "folderId"),
			queryBool("includeSubfolders", "", "includeSubfolders"), queryBool("includeFolders", "", "includeFolders"),
			queryInt("from", "", "from"), queryInt("itemsPerPage", "", "itemsPerPage"),
			queryOptionalList("filter", "itemTypes", "itemType", "itemTypes"),
			queryOptionalList("filter", "transcodingStates", "transcodingState", "transcodingStates"),
			queryString("createdFrom", "filter", "createdFrom"), queryString("createdTo", "filter", "createdTo"),
			queryString("metadataField", "filter", "metadataField"), queryString("metadataValue", "filter", "metadataValue"),
			queryBool("facets", "", "facets"), queryString("facetField", "", "facetField"))},
}

func (rt Route) status() int {
	if rt.Status == 0 {
		return http.StatusOK
	}
	return rt.Status
}

// when is whether the variant serves r.
func (v *Variant) when(r *http.Request) bool { return r.URL.Query().Get(v.Query) == v.Value }
