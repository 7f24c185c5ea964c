package loupe

import "strings"

// Where an item's original lies: its sourceFileLocation names one of
// (docs/storage.md)
//
//	loupe://files/<key>                      Loupe's own file store (uploads)
//	loupe://locations/<locationId>/<key>     a storage location of the tenant (migrateMediaLocation)
//	s3://<bucket>/<key>                      an ingest source's bucket (ingested in place;
//	                                         ingestSourceStorageId names the configuration)
//
// internal/storage/sources opens each; this file only spells them.
const (
	FilesScheme     = "loupe://files/"
	LocationsScheme = "loupe://locations/"
	BucketScheme    = "s3://"
)

// FileLocation is the sourceFileLocation of key in Loupe's own file store.
func FileLocation(key string) string { return FilesScheme + key }

// FileKey is the key in Loupe's own file store that loc names (false: loc
// is elsewhere).
func FileKey(loc string) (string, bool) { return strings.CutPrefix(loc, FilesScheme) }

// StorageLocationFile is the sourceFileLocation of key in the tenant's
// storage location id.
func StorageLocationFile(id, key string) string { return LocationsScheme + id + "/" + key }

// ItemFilesPrefix is where an item's files (attachments, transcripts,
// originals) live in Loupe's file store.
func ItemFilesPrefix(tenantID, itemID string) string {
	return tenantID + "/items/" + itemID + "/"
}
