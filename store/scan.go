package store

import (
	"context"
	"database/sql"
)

// The hottest reads scan their rows by hand: sqlx maps columns to struct
// fields by reflection on every row (a fifth of a grid page's server CPU,
// with its allocations; a tenth of a folder content page's). Each dests method lists the fields in the order
// of its columns constant; scan_test.go holds each equal to what sqlx's
// mapping by name reads, so a column added to one and not the other fails.

// dests are an item's fields in itemColumns order.
func (i *Item) dests() []any {
	return []any{&i.TenantID, &i.ID, &i.ItemType, &i.Title, &i.OriginalFileName, &i.ExternalID, &i.CreatedBy,
		&i.CreatedOn, &i.ModifiedOn, &i.MediaCreatedOn, &i.MediaType, &i.MediaSize, &i.FrameCount,
		&i.MetadataFormID, &i.MetadataFormData, &i.MetadataVersion, &i.TechnicalMetadata,
		&i.GeoLocation, &i.CustomIconsDoc, &i.LanguageCode, &i.TranscodingState,
		&i.TranscriptionEnabled, &i.TranslationEnabled, &i.CelebrityDetectionEnabled,
		&i.LabelDetectionEnabled, &i.PersonDetectionEnabled, &i.TextDetectionEnabled,
		&i.CreateUnknownPersons, &i.HasRelations, &i.HasAttachments, &i.ArchivedOn, &i.DeletedOn, &i.MediaDoc,
		&i.MediaUsageDoc, &i.UploadLockOwnerInstanceID, &i.UploadLockedOn, &i.TranscriptLastUpdated,
		&i.FolderParentIDs}
}

// leanDests are a lean item's fields in itemLeanColumns order.
func (i *Item) leanDests() []any {
	return []any{&i.TenantID, &i.ID, &i.ItemType, &i.Title, &i.CreatedBy, &i.CreatedOn, &i.ModifiedOn,
		&i.HasRelations, &i.HasAttachments, &i.DeletedOn, &i.FolderParentIDs, &i.Lean}
}

// dests are a comment's fields in commentColumns order.
func (c *Comment) dests() []any {
	return []any{&c.TenantID, &c.ID, &c.ItemID, &c.Type, &c.ParentID, &c.Text, &c.AuthorID, &c.AssigneeID,
		&c.AssignedOn, &c.ContextDoc, &c.Resolved, &c.CreatedOn, &c.ModifiedOn, &c.TextEditedOn, &c.DeletedOn,
		&c.ReactionsDoc}
}

// bareDests are a bare comment's fields in commentBareColumns order.
func (c *Comment) bareDests() []any {
	return []any{&c.TenantID, &c.ID, &c.ItemID, &c.Type, &c.ParentID, &c.Text, &c.AuthorID, &c.Resolved, &c.CreatedOn}
}

// dests are a folder's fields in folderColumns order.
func (f *Folder) dests() []any {
	return []any{&f.TenantID, &f.ID, &f.Owner, &f.Name, &f.CreatedOn, &f.ItemType, &f.ParentID,
		&f.VisibleTo, &f.UpdatableBy, &f.MetadataFormID, &f.MetadataFormData, &f.SortKey, &f.HasSubfolder}
}

// dests are a content entry's fields in entryColumns order.
func (e *FolderEntry) dests() []any {
	return []any{&e.ID, &e.Owner, &e.ItemType, &e.Name, &e.CreatedOn, &e.VisibleTo, &e.UpdatableBy, &e.FolderParentIDs}
}

// selectScanned runs a prepared query and scans each row into a new T
// through dests (no rows: an empty slice).
func selectScanned[T any](ctx context.Context, s *Store, dests func(*T) []any, query string, args ...any) ([]*T, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return scanAll(rows, dests)
}

func scanAll[T any](rows *sql.Rows, dests func(*T) []any) ([]*T, error) {
	defer rows.Close()
	out := []*T{} // no rows: an empty list, not nil
	for rows.Next() {
		v := new(T)
		if err := rows.Scan(dests(v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// itemDests picks the dests of query's columns: lean or whole items.
func itemDests(lean bool) func(*Item) []any {
	if lean {
		return (*Item).leanDests
	}
	return (*Item).dests
}
