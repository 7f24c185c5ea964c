package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loupe-mam/loupe"
)

// Attachment is a file attached to an item (spec 2.4). The blob itself lives
// in blob storage under BlobKey.
type Attachment struct {
	TenantID    string    `db:"tenant_id"`
	ItemID      string    `db:"item_id"`
	FileName    string    `db:"file_name"`
	Type        string    `db:"type"`
	Role        string    `db:"role"`
	Language    string    `db:"language"`
	Description string    `db:"description"`
	UserID      string    `db:"user_id"`
	BlobKey     string    `db:"blob_key"`
	ModifiedOn  time.Time `db:"modified_on"`
}

// The spec's messages for attachment writes (section 7).
const (
	MsgAttachmentItemNotFound = "Could not find given item in database"
	MsgAttachmentNotFound     = "Could not find given attachment in database"
)

const (
	// MaxPrecheckNames bounds the file names one precheck asks about.
	MaxPrecheckNames   = 1000
	attachmentColumns  = `tenant_id, item_id, file_name, type, role, language, description, user_id, blob_key, modified_on`
	attachmentsOfItems = `SELECT ` + attachmentColumns + `
FROM attachments WHERE tenant_id = $1 AND item_id = ANY($2::uuid[])
ORDER BY item_id, file_name`
)

// UserThumbnail is the poster a user chose as the item's thumbnail: an
// attachment of type poster and role thumbnail, confirmed by an update
// (UpdateAttachment), as integrations set a poster frame. The item's
// thumbnail is its file while it is set — before processing makes one, and
// after: the user's choice wins over what processing writes to the media
// document's thumbnail and thumbnailInfo, which stay as they are beside it.
// It goes when the attachment stops being a poster thumbnail, is deleted,
// or is replaced (its file is).
type UserThumbnail struct {
	// Key is the blob key of the attachment's file.
	Key      string    `json:"key"`
	FileName string    `json:"fileName"`
	UserID   string    `json:"userId"`
	ChosenOn time.Time `json:"chosenOn"`
}

// IsPosterThumbnail reports whether an attachment is one a user chooses as
// the item's thumbnail by confirming it.
func (a *Attachment) IsPosterThumbnail() bool {
	return a.Type == "poster" && a.Role == "thumbnail"
}

// errItemForAttachment is the spec's 404 for attachment writes.
func errItemForAttachment() *loupe.Error {
	return &loupe.Error{Kind: loupe.ENOTFOUND, Message: MsgAttachmentItemNotFound}
}

func errAttachmentNotFound() *loupe.Error {
	return &loupe.Error{Kind: loupe.ENOTFOUND, Message: MsgAttachmentNotFound}
}

// AttachmentsOfItems returns, per item id, the item's attachments by file
// name, in one query.
func (s *Store) AttachmentsOfItems(ctx context.Context, tenantID string, itemIDs []string) (map[string][]*Attachment, error) {
	out := make(map[string][]*Attachment, len(itemIDs))
	itemIDs = validIDs(itemIDs)
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []*Attachment
	if err := s.selectPrepared(ctx, &rows, attachmentsOfItems, tenantID, stringArray(itemIDs)); err != nil {
		return nil, fmt.Errorf("store: unable to fetch attachments: %w", err)
	}
	for _, a := range rows {
		out[a.ItemID] = append(out[a.ItemID], a)
	}
	return out, nil
}

// SQL shared by the writes of an item's files (attachments, thumbnails,
// transcripts): lock the live item, then stamp it as changed.

const (
	attachmentForUpdateSQL = `SELECT ` + attachmentColumns + `
FROM attachments WHERE tenant_id = $1 AND item_id = $2 AND file_name = $3 FOR UPDATE`

	// A replaced attachment is a new file: what was known of the old
	// upload (size, type, time) goes.
	upsertAttachmentSQL = `
INSERT INTO attachments (tenant_id, item_id, file_name, type, role, language, description, user_id, blob_key, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (tenant_id, item_id, file_name) DO UPDATE SET
    type = EXCLUDED.type, role = EXCLUDED.role, language = EXCLUDED.language,
    description = EXCLUDED.description, user_id = EXCLUDED.user_id, blob_key = EXCLUDED.blob_key,
    modified_on = EXCLUDED.modified_on, size_bytes = NULL, content_type = NULL, uploaded_on = NULL
RETURNING ` + attachmentColumns

	updateAttachmentSQL = `
UPDATE attachments SET file_name = $4, type = $5, role = $6, language = $7, description = $8,
    user_id = $9, modified_on = $10
WHERE tenant_id = $1 AND item_id = $2 AND file_name = $3
RETURNING ` + attachmentColumns

	deleteAttachmentSQL = `
DELETE FROM attachments WHERE tenant_id = $1 AND item_id = $2 AND file_name = $3 RETURNING blob_key`

	// touchItemFilesSQL stamps the item as changed by a write of its
	// attachments, and forgets the user's thumbnail when the file it
	// names ($4) is gone.
	touchItemFilesSQL = `
UPDATE items SET modified_on = $3,
    media = CASE WHEN media->'userThumbnail'->>'key' = $4 THEN media - 'userThumbnail' ELSE media END
WHERE tenant_id = $1 AND id = $2`

	// touchItemUpdatedAttachmentSQL stamps the item as changed by an
	// attachment update: the attachment ($4 its file) is now the user's
	// thumbnail when $5 is set, else it is no longer.
	touchItemUpdatedAttachmentSQL = `
UPDATE items SET modified_on = $3,
    media = CASE WHEN $5::jsonb IS NOT NULL THEN jsonb_set(media, '{userThumbnail}', $5::jsonb)
                 WHEN media->'userThumbnail'->>'key' = $4 THEN media - 'userThumbnail'
                 ELSE media END
WHERE tenant_id = $1 AND id = $2`

	// precheckSQL answers one row for a live item (none for a missing one)
	// with those of the names it has attachments for.
	precheckSQL = `
SELECT coalesce(array_agg(a.file_name) FILTER (WHERE a.file_name IS NOT NULL), '{}') AS names
FROM items i
LEFT JOIN attachments a ON a.tenant_id = i.tenant_id AND a.item_id = i.id AND a.file_name = ANY($3::text[])
WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL
GROUP BY i.id`
)

// CreateAttachment registers an attachment of a live item whose file will be
// uploaded under blobKey, replacing one of the same file name. It returns
// the attachment and the blob key of the one it replaced ("" when new),
// whose file the caller deletes once this has committed.
// Returns ENOTFOUND (MsgAttachmentItemNotFound) for an unknown item and
// EINVALID for a bad file name, language or description.
func (s *Store) CreateAttachment(ctx context.Context, p *loupe.Principal, in *loupe.CreateAttachmentInput, blobKey string) (*Attachment, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	var (
		out    Attachment
		oldKey string
	)
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveItem(ctx, tx, p.TenantID, in.ItemID, errItemForAttachment()); err != nil {
			return err
		}
		var old Attachment
		switch err := tx.GetContext(ctx, &old, attachmentForUpdateSQL, p.TenantID, in.ItemID, in.FileName); {
		case err == nil:
			oldKey = old.BlobKey
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("store: unable to fetch attachment: %w", err)
		}
		at := now()
		if err := tx.GetContext(ctx, &out, upsertAttachmentSQL, p.TenantID, in.ItemID, in.FileName,
			string(in.Type), string(in.Role), strOrEmpty(in.Language), strOrEmpty(in.Description), p.UserID, blobKey, at); err != nil {
			return fmt.Errorf("store: unable to write attachment: %w", err)
		}
		// A replaced file that was the user's thumbnail is gone.
		if err := touchItemFiles(ctx, tx, p.TenantID, in.ItemID, at, oldKey); err != nil {
			return err
		}
		return emitTx(ctx, tx, p.TenantID, at, itemChange(in.ItemID, p.UserID, []loupe.ItemPart{loupe.PartAttachments},
			"fileName", in.FileName, "attachment", "created"))
	})
	if err != nil {
		return nil, "", err
	}
	return &out, oldKey, nil
}

// UpdateAttachment changes an attachment's fields (nil ones stay) and
// records the principal as its writer. Renaming keeps the file.
// Returns ENOTFOUND with MsgAttachmentItemNotFound for an unknown item and
// MsgAttachmentNotFound for an unknown attachment, ECONFLICT when the new
// file name is taken, EINVALID for bad values.
func (s *Store) UpdateAttachment(ctx context.Context, p *loupe.Principal, in *loupe.UpdateAttachmentInput) (*Attachment, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var out Attachment
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveItem(ctx, tx, p.TenantID, in.ItemID, errItemForAttachment()); err != nil {
			return err
		}
		var cur Attachment
		if err := tx.GetContext(ctx, &cur, attachmentForUpdateSQL, p.TenantID, in.ItemID, in.FileName); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errAttachmentNotFound()
			}
			return fmt.Errorf("store: unable to fetch attachment: %w", err)
		}
		name := cur.FileName
		if in.NewFileName != nil {
			name = *in.NewFileName
		}
		typ, role := cur.Type, cur.Role
		if in.Type != nil {
			typ = string(*in.Type)
		}
		if in.Role != nil {
			role = string(*in.Role)
		}
		lang, desc := cur.Language, cur.Description
		if in.Language != nil {
			lang = *in.Language
		}
		if in.Description != nil {
			desc = *in.Description
		}
		at := now()
		err := tx.GetContext(ctx, &out, updateAttachmentSQL, p.TenantID, in.ItemID, in.FileName,
			name, typ, role, lang, desc, p.UserID, at)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23505" {
			return loupe.Errorf(loupe.ECONFLICT, "the item already has an attachment named %q", name)
		}
		if err != nil {
			return fmt.Errorf("store: unable to update attachment: %w", err)
		}
		// Confirming a poster thumbnail makes it the item's thumbnail.
		var chosen loupe.JSON
		if out.IsPosterThumbnail() {
			chosen = loupe.JSONOf(UserThumbnail{Key: out.BlobKey, FileName: out.FileName, UserID: p.UserID, ChosenOn: at})
		}
		if _, err := tx.ExecContext(ctx, touchItemUpdatedAttachmentSQL, p.TenantID, in.ItemID, at, out.BlobKey, chosen); err != nil {
			return fmt.Errorf("store: unable to touch item %s: %w", in.ItemID, err)
		}
		parts := []loupe.ItemPart{loupe.PartAttachments}
		if chosen != nil {
			parts = append(parts, loupe.PartThumbnail)
		}
		return emitTx(ctx, tx, p.TenantID, at, itemChange(in.ItemID, p.UserID, parts,
			"fileName", out.FileName, "attachment", "updated"))
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteAttachment removes an attachment and returns the blob key of its
// file, which the caller deletes once this has committed.
// Returns ENOTFOUND with MsgAttachmentItemNotFound for an unknown item and
// MsgAttachmentNotFound for an unknown attachment.
func (s *Store) DeleteAttachment(ctx context.Context, tenantID, itemID, fileName string) (string, error) {
	var key string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockLiveItem(ctx, tx, tenantID, itemID, errItemForAttachment()); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &key, deleteAttachmentSQL, tenantID, itemID, fileName); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errAttachmentNotFound()
			}
			return fmt.Errorf("store: unable to delete attachment: %w", err)
		}
		at := now()
		if err := touchItemFiles(ctx, tx, tenantID, itemID, at, key); err != nil {
			return err
		}
		return emitTx(ctx, tx, tenantID, at, itemChange(itemID, "", []loupe.ItemPart{loupe.PartAttachments},
			"fileName", fileName, "attachment", "deleted"))
	})
	return key, err
}

// AttachmentsPrecheck answers which of fileNames a live item already has
// attachments for, in the order asked, each once.
// Returns ENOTFOUND (MsgAttachmentItemNotFound) for an unknown item and
// EINVALID for more than MaxPrecheckNames names.
func (s *Store) AttachmentsPrecheck(ctx context.Context, tenantID, itemID string, fileNames []string) ([]string, error) {
	if len(fileNames) > MaxPrecheckNames {
		return nil, loupe.Invalid("give at most %d fileNames", MaxPrecheckNames)
	}
	if !loupe.ValidID(itemID) {
		return nil, errItemForAttachment()
	}
	var found pq.StringArray
	if err := s.getPrepared(ctx, &found, precheckSQL, tenantID, itemID, pq.StringArray(fileNames)); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errItemForAttachment()
		}
		return nil, fmt.Errorf("store: unable to check attachments: %w", err)
	}
	has := make(map[string]bool, len(found))
	for _, n := range found {
		has[n] = true
	}
	out := []string{}
	for _, n := range fileNames {
		if has[n] {
			out = append(out, n)
			delete(has, n)
		}
	}
	return out, nil
}

// touchItemFiles stamps the item as changed by a write of its attachments;
// goneKey ("" for none) is the blob key of a file the write removed.
func touchItemFiles(ctx context.Context, tx *sqlx.Tx, tenantID, itemID string, at time.Time, goneKey string) error {
	if _, err := tx.ExecContext(ctx, touchItemFilesSQL, tenantID, itemID, at, goneKey); err != nil {
		return fmt.Errorf("store: unable to touch item %s: %w", itemID, err)
	}
	return nil
}

func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
