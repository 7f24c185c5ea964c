package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds the resumable uploads of items' originals (tus,
// internal/storage/upload; docs/uploads.md): their durable state — offset, parts,
// tail, hash state — their lock, and the item fields they write.

// Upload is one resumable upload of an item's original.
type Upload struct {
	TenantID    string     `db:"tenant_id"`
	ID          string     `db:"id"`
	ItemID      string     `db:"item_id"`
	CreatedBy   string     `db:"created_by"`
	Size        int64      `db:"size"`
	PartSize    int64      `db:"part_size"`
	Received    int64      `db:"received"`
	BlobKey     string     `db:"blob_key"`
	MultipartID string     `db:"multipart_id"`
	TailKey     string     `db:"tail_key"`
	TailSize    int64      `db:"tail_size"`
	HashState   []byte     `db:"hash_state"`
	Head        []byte     `db:"head"`
	FileName    string     `db:"file_name"`
	Metadata    loupe.JSON `db:"metadata"`
	CreatedItem bool       `db:"created_item"`
	State       string     `db:"state"`
	SHA256      string     `db:"sha256"`
	MediaType   string     `db:"media_type"`
	LockOwner   string     `db:"lock_owner"`
	Locked      bool       `db:"locked"`
	CreatedOn   time.Time  `db:"created_on"`
	ModifiedOn  time.Time  `db:"modified_on"`
	CompletedOn *time.Time `db:"completed_on"`
}

// NodeID implements Node.
func (u *Upload) NodeID() string { return u.ID }

// Parts is the number of whole parts stored (the tail excluded).
func (u *Upload) Parts() int { return int((u.Received - u.TailSize) / u.PartSize) }

// Upload states.
const (
	UploadUploading = "uploading"
	UploadComplete  = "complete"
)

// UploadPart is one stored part of an upload's multipart upload.
type UploadPart struct {
	Number int    `db:"number"`
	ETag   string `db:"etag"`
	Size   int64  `db:"size"`
}

// NewUpload is what CreateUpload needs. Either ItemID names an existing
// item or Item describes the one to create.
type NewUpload struct {
	ID        string
	ItemID    string
	Item      *loupe.CreateItemInput
	Size      int64
	PartSize  int64
	FileName  string
	Metadata  map[string]string
	HashState []byte
	// Key makes the blob key of the original from the item's id.
	Key func(itemID string) string
}

const uploadColumns = `u.tenant_id, u.id, u.item_id, u.created_by, u.size, u.part_size, u.received,
  u.blob_key, u.multipart_id, u.tail_key, u.tail_size, u.hash_state, u.head, u.file_name, u.metadata,
  u.created_item, u.state, u.sha256, u.media_type, u.lock_owner,
  (u.lock_token IS NOT NULL AND u.lock_expires > now()) AS locked,
  u.created_on, u.modified_on, u.completed_on`

const (
	itemForUploadSQL = `
SELECT (i.media_size IS NOT NULL OR i.media ? 'sourceFileLocation') AS has_media
FROM items i WHERE i.tenant_id = $1 AND i.id = $2 AND i.deleted_on IS NULL AND i.item_type <> 'folder'
FOR UPDATE`

	insertUploadSQL = `
INSERT INTO uploads (tenant_id, id, item_id, created_by, size, part_size, blob_key, hash_state,
                     file_name, metadata, created_item, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`

	uploadRequestedSQL = `
UPDATE items SET media = COALESCE(media, '{}'::jsonb) || $3::jsonb, modified_on = $4
WHERE tenant_id = $1 AND id = $2`

	uploadByIDSQL = `SELECT ` + uploadColumns + `
FROM uploads u JOIN items i ON i.tenant_id = u.tenant_id AND i.id = u.item_id AND i.deleted_on IS NULL
WHERE u.tenant_id = $1 AND u.id = $2`

	latestUploadsSQL = `
SELECT DISTINCT ON (u.item_id) ` + uploadColumns + `
FROM uploads u WHERE u.tenant_id = $1 AND u.item_id = ANY($2::uuid[])
ORDER BY u.item_id, u.created_on DESC, u.id DESC`
)

// ProgressInfo is an item's uploadProgressInfo.
func ProgressInfo(u *Upload, at time.Time) map[string]any {
	pct := 100.0
	if u.Size > 0 {
		pct = float64(u.Received*10000/u.Size) / 100
	}
	return map[string]any{
		"uploadId": u.ID, "bytesReceived": u.Received, "totalBytes": u.Size, "percent": pct,
		"state": u.State, "updatedAt": at.Format("2006-01-02T15:04:05.000Z07:00"),
	}
}

// CreateUpload records a new upload of an item's original, for the item
// named or one it creates, and marks the item as uploading. Returns
// ENOTFOUND for an unknown item (or a folder), ECONFLICT for an item that
// already has its original, and CreateItem's errors for a new item.
func (s *Store) CreateUpload(ctx context.Context, p *loupe.Principal, in *NewUpload) (*Upload, error) {
	var out *Upload
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		itemID, created := in.ItemID, false
		if in.Item != nil {
			it, err := createItem(ctx, tx, p, in.Item)
			if err != nil {
				return err
			}
			itemID, created = it.ID, true
		} else {
			if !loupe.ValidID(itemID) {
				return loupe.NotFound()
			}
			var hasMedia bool
			if err := tx.GetContext(ctx, &hasMedia, itemForUploadSQL, p.TenantID, itemID); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return loupe.NotFound()
				}
				return fmt.Errorf("store: unable to lock item for upload: %w", err)
			}
			if hasMedia {
				return loupe.Errorf(loupe.ECONFLICT, "item %s already has its original media", itemID)
			}
		}
		at := now()
		meta := in.Metadata
		if meta == nil {
			meta = map[string]string{}
		}
		if _, err := tx.ExecContext(ctx, insertUploadSQL, p.TenantID, in.ID, itemID, p.UserID, in.Size, in.PartSize,
			in.Key(itemID), in.HashState, in.FileName, loupe.JSONOf(meta), created, at); err != nil {
			return fmt.Errorf("store: unable to create upload: %w", err)
		}
		u := &Upload{TenantID: p.TenantID, ID: in.ID, ItemID: itemID, Size: in.Size, State: UploadUploading}
		doc := map[string]any{
			"uploadRequestedAt": at, "isExternalUpload": false, "itemState": "uploading",
			"uploadProgressInfo": ProgressInfo(u, at),
		}
		if _, err := tx.ExecContext(ctx, uploadRequestedSQL, p.TenantID, itemID, loupe.JSONOf(doc), at); err != nil {
			return fmt.Errorf("store: unable to mark item uploading: %w", err)
		}
		var err error
		out, err = getUpload(ctx, tx, p.TenantID, in.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if in.Item != nil {
		s.countUsage(p.TenantID, MetricItemsCreated, 1)
	}
	return out, nil
}

func getUpload(ctx context.Context, q sqlx.QueryerContext, tenantID, id string) (*Upload, error) {
	if !loupe.ValidID(id) || !loupe.ValidID(tenantID) {
		return nil, loupe.NotFound()
	}
	var u Upload
	if err := sqlx.GetContext(ctx, q, &u, uploadByIDSQL, tenantID, id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, loupe.NotFound()
		}
		return nil, fmt.Errorf("store: unable to fetch upload: %w", err)
	}
	return &u, nil
}

// GetUpload returns an upload of a live item of the tenant, or ENOTFOUND.
func (s *Store) GetUpload(ctx context.Context, tenantID, id string) (*Upload, error) {
	return getUpload(ctx, s.db, tenantID, id)
}

// LatestUploads returns, per item, its newest upload (none for items
// without one), in one query.
func (s *Store) LatestUploads(ctx context.Context, tenantID string, itemIDs []string) (map[string]*Upload, error) {
	out := make(map[string]*Upload, len(itemIDs))
	ids := validIDs(itemIDs)
	if len(ids) == 0 {
		return out, nil
	}
	var rows []*Upload
	if err := s.db.SelectContext(ctx, &rows, latestUploadsSQL, tenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to list uploads: %w", err)
	}
	for _, u := range rows {
		out[u.ItemID] = u
	}
	return out, nil
}

const setMultipartSQL = `
UPDATE uploads SET multipart_id = $3, modified_on = $4
WHERE tenant_id = $1 AND id = $2 AND multipart_id = ''`

// SetUploadMultipart records the store's multipart upload id of an upload
// that has none. Returns ECONFLICT when it has one already.
func (s *Store) SetUploadMultipart(ctx context.Context, tenantID, id, multipartID string) error {
	res, err := s.db.ExecContext(ctx, setMultipartSQL, tenantID, id, multipartID, now())
	if err != nil {
		return fmt.Errorf("store: unable to record multipart upload: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return loupe.Errorf(loupe.ECONFLICT, "upload %s already has a multipart upload", id)
	}
	return nil
}

// UploadCommit is bytes durably stored: a part (Part set; the tail is then
// empty) or a new tail, moving the upload from From to To bytes.
type UploadCommit struct {
	TenantID, ID string
	From, To     int64
	// Token is the lock's (the commit is refused without it).
	Token     string
	HashState []byte
	// Head replaces the stored first bytes when not nil.
	Head     []byte
	Part     *UploadPart
	TailKey  string
	TailSize int64
}

const (
	commitUploadSQL = `
UPDATE uploads SET received = $4, hash_state = $5, head = COALESCE($6, head), tail_key = $7, tail_size = $8,
                   modified_on = $9
WHERE tenant_id = $1 AND id = $2 AND received = $3 AND state = 'uploading' AND lock_token = $10::uuid`

	insertUploadPartSQL = `
INSERT INTO upload_parts (tenant_id, upload_id, number, etag, size, created_on)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id, upload_id, number) DO UPDATE SET etag = EXCLUDED.etag, size = EXCLUDED.size,
                                                        created_on = EXCLUDED.created_on`
)

// ErrUploadMoved is answered by CommitUpload when the upload is no longer
// where the commit starts, or its lock is no longer the committer's.
var ErrUploadMoved = loupe.Errorf(loupe.ECONFLICT, "the upload moved on or its lock was lost")

// CommitUpload records bytes stored, in one transaction.
func (s *Store) CommitUpload(ctx context.Context, c UploadCommit) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		var head any
		if c.Head != nil {
			head = c.Head
		}
		res, err := tx.ExecContext(ctx, commitUploadSQL, c.TenantID, c.ID, c.From, c.To, c.HashState, head,
			c.TailKey, c.TailSize, at, c.Token)
		if err != nil {
			return fmt.Errorf("store: unable to commit upload: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrUploadMoved
		}
		if c.Part != nil {
			if _, err := tx.ExecContext(ctx, insertUploadPartSQL, c.TenantID, c.ID, c.Part.Number, c.Part.ETag,
				c.Part.Size, at); err != nil {
				return fmt.Errorf("store: unable to record part: %w", err)
			}
		}
		return nil
	})
}

const uploadPartsSQL = `
SELECT number, etag, size FROM upload_parts WHERE tenant_id = $1 AND upload_id = $2 ORDER BY number`

// UploadParts lists an upload's parts in order.
func (s *Store) UploadParts(ctx context.Context, tenantID, id string) ([]UploadPart, error) {
	var out []UploadPart
	if err := s.db.SelectContext(ctx, &out, uploadPartsSQL, tenantID, id); err != nil {
		return nil, fmt.Errorf("store: unable to list parts: %w", err)
	}
	return out, nil
}

const uploadProgressSQL = `
UPDATE items SET media = COALESCE(media, '{}'::jsonb) || jsonb_build_object('uploadProgressInfo', $4::jsonb)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL
  AND COALESCE(media->'uploadProgressInfo'->>'uploadId', $3) = $3`

// SetUploadProgress writes an item's uploadProgressInfo for the upload (not
// its modifiedOn: progress is no change of the item).
func (s *Store) SetUploadProgress(ctx context.Context, u *Upload) error {
	if _, err := s.db.ExecContext(ctx, uploadProgressSQL, u.TenantID, u.ItemID, u.ID,
		loupe.JSONOf(ProgressInfo(u, now()))); err != nil {
		return fmt.Errorf("store: unable to write upload progress: %w", err)
	}
	return nil
}

// UploadCompletion is what a completed upload gives its item.
type UploadCompletion struct {
	TenantID, ID string
	SHA256       string
	MediaType    string
	// ItemType, when not empty, becomes the item's type if the upload made
	// the item.
	ItemType string
	// Location is the item's sourceFileLocation.
	Location string
}

const (
	uploadForUpdateSQL = `SELECT ` + uploadColumns + ` FROM uploads u WHERE u.tenant_id = $1 AND u.id = $2 FOR UPDATE`

	completeItemSQL = `
UPDATE items SET media_size = $3, media_type = $4,
                 original_file_name = CASE WHEN $5 <> '' THEN $5 ELSE original_file_name END,
                 item_type = CASE WHEN $6 AND $7 <> '' THEN $7 ELSE item_type END,
                 transcoding_state = 'queued',
                 media = COALESCE(media, '{}'::jsonb) || $8::jsonb, modified_on = $9
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	completeUploadSQL = `
UPDATE uploads SET state = 'complete', sha256 = $3, media_type = $4, completed_on = $5, modified_on = $5,
                   tail_key = '', tail_size = 0
WHERE tenant_id = $1 AND id = $2`
)

// CompleteUpload gives the item its original — size, sniffed type, file
// name, checksum, location — marks it uploaded and queued for processing,
// and asks for the processing (a process_item job, unique per item while
// one waits), all in one transaction. A second call for a completed upload
// changes nothing. Returns ENOTFOUND when the item is gone.
func (s *Store) CompleteUpload(ctx context.Context, c UploadCompletion) (*Upload, error) {
	var out *Upload
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var u Upload
		if err := tx.GetContext(ctx, &u, uploadForUpdateSQL, c.TenantID, c.ID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return loupe.NotFound()
			}
			return fmt.Errorf("store: unable to lock upload: %w", err)
		}
		if u.State == UploadComplete {
			out = &u
			return nil
		}
		if u.Received != u.Size {
			return loupe.Errorf(loupe.ECONFLICT, "upload %s has %d of %d bytes", u.ID, u.Received, u.Size)
		}
		var hasMedia bool
		if err := tx.GetContext(ctx, &hasMedia, itemForUploadSQL, c.TenantID, u.ItemID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return loupe.NotFound()
			}
			return fmt.Errorf("store: unable to lock item for upload: %w", err)
		}
		if hasMedia { // another upload of the item completed first
			return loupe.Errorf(loupe.ECONFLICT, "item %s already has its original media", u.ItemID)
		}
		at := now()
		u.State, u.SHA256, u.MediaType, u.CompletedOn = UploadComplete, c.SHA256, c.MediaType, &at
		doc := map[string]any{
			"itemState": "uploaded", "sourceFileLocation": c.Location, "mediaSha256": c.SHA256,
			"uploadProgressInfo": ProgressInfo(&u, at),
		}
		res, err := tx.ExecContext(ctx, completeItemSQL, c.TenantID, u.ItemID, u.Size, c.MediaType, u.FileName,
			u.CreatedItem, c.ItemType, loupe.JSONOf(doc), at)
		if err != nil {
			return fmt.Errorf("store: unable to complete item media: %w", err)
		}
		if err := oneRow(res); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, completeUploadSQL, c.TenantID, c.ID, c.SHA256, c.MediaType, at); err != nil {
			return fmt.Errorf("store: unable to complete upload: %w", err)
		}
		// The original is held by Loupe's store from now: metered.
		if key, ok := loupe.FileKey(c.Location); ok {
			if _, err := tx.ExecContext(ctx, closeStoredFileSQL, c.TenantID, key, at); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, insertStoredSetSQL, c.TenantID, loupe.NewID(), key, u.Size, at, 1); err != nil {
				return fmt.Errorf("store: unable to meter the original: %w", err)
			}
		}
		if _, err := s.enqueue(ctx, tx, jobs.ProcessArgs{TenantID: c.TenantID, ItemID: u.ItemID, Reason: "upload"},
			ProcessInsertOpts(jobs.QueueInteractive)); err != nil {
			return fmt.Errorf("store: unable to ask for processing: %w", err)
		}
		out = &u
		return emitTx(ctx, tx, c.TenantID, at, NewEvent{Type: loupe.EventUploadCompletion, ItemID: u.ItemID,
			ActorID: u.CreatedBy, Data: map[string]any{"uploadId": u.ID, "size": u.Size, "mediaType": c.MediaType}})
	})
	return out, err
}

const (
	deleteUploadSQL = `DELETE FROM uploads WHERE tenant_id = $1 AND id = $2 AND state = 'uploading' RETURNING item_id`

	// The item forgets the upload it was waiting for (when it was this one).
	uploadGoneSQL = `
UPDATE items SET media = media - 'uploadProgressInfo' - 'itemState' - 'uploadRequestedAt',
                 upload_lock_owner = CASE WHEN upload_lock_upload::text = $3 THEN NULL ELSE upload_lock_owner END,
                 upload_locked_on = CASE WHEN upload_lock_upload::text = $3 THEN NULL ELSE upload_locked_on END,
                 upload_lock_upload = CASE WHEN upload_lock_upload::text = $3 THEN NULL ELSE upload_lock_upload END
WHERE tenant_id = $1 AND id = $2 AND media->'uploadProgressInfo'->>'uploadId' = $3::text`
)

// DeleteUpload forgets an unfinished upload (tus termination) and its
// parts; the caller removes its blobs. Returns ENOTFOUND when there is no
// unfinished upload of that id.
func (s *Store) DeleteUpload(ctx context.Context, tenantID, id string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var itemID string
		if err := tx.GetContext(ctx, &itemID, deleteUploadSQL, tenantID, id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return loupe.NotFound()
			}
			return fmt.Errorf("store: unable to delete upload: %w", err)
		}
		if _, err := tx.ExecContext(ctx, uploadGoneSQL, tenantID, itemID, id); err != nil {
			return fmt.Errorf("store: unable to update item after upload: %w", err)
		}
		return nil
	})
}

// The upload lock. A request holds an upload's lock with a token and a
// lease it renews; a request that finds the lock held asks the holder to
// let go (unlock_requested) and waits. A lease not renewed — its node died
// — expires. Writing requests also hold the item's upload lock
// (uploadLockOwnerInstanceId), unless an external uploader holds it.

// Lock outcomes.
var (
	// ErrUploadBusy: another request holds the lock (it was asked to let go).
	ErrUploadBusy = errors.New("store: upload locked by another request")
	// ErrItemLockedExternally: the item's upload lock is an external uploader's.
	ErrItemLockedExternally = loupe.Errorf(loupe.ECONFLICT, "the item's upload lock is held by another uploader")
)

const (
	lockStateSQL = `
SELECT u.item_id, (u.lock_token IS NOT NULL AND u.lock_expires > now()) AS held
FROM uploads u JOIN items i ON i.tenant_id = u.tenant_id AND i.id = u.item_id AND i.deleted_on IS NULL
WHERE u.tenant_id = $1 AND u.id = $2 FOR UPDATE OF u`
	askUnlockSQL  = `UPDATE uploads SET unlock_requested = true WHERE tenant_id = $1 AND id = $2`
	itemLockSQL   = `SELECT upload_lock_owner, upload_lock_upload FROM items WHERE tenant_id = $1 AND id = $2 FOR UPDATE`
	takeItemLock  = `UPDATE items SET upload_lock_owner = $3, upload_locked_on = $4, upload_lock_upload = $5 WHERE tenant_id = $1 AND id = $2`
	takeUploadSQL = `
UPDATE uploads SET lock_owner = $3, lock_token = $4, lock_expires = now() + $5 * interval '1 millisecond',
                   unlock_requested = false
WHERE tenant_id = $1 AND id = $2`
	renewLockSQL = `
UPDATE uploads SET lock_expires = now() + $4 * interval '1 millisecond'
WHERE tenant_id = $1 AND id = $2 AND lock_token = $3 RETURNING unlock_requested`
	releaseUploadSQL = `
UPDATE uploads SET lock_owner = '', lock_token = NULL, lock_expires = NULL, unlock_requested = false
WHERE tenant_id = $1 AND id = $2 AND lock_token = $3 RETURNING item_id`
	releaseItemLockSQL = `
UPDATE items SET upload_lock_owner = NULL, upload_locked_on = NULL, upload_lock_upload = NULL
WHERE tenant_id = $1 AND id = $2 AND upload_lock_upload = $3 AND upload_lock_owner = $4`
	breakUploadLocksSQL = `
UPDATE uploads SET lock_owner = '', lock_token = NULL, lock_expires = NULL, unlock_requested = false
WHERE tenant_id = $1 AND item_id = $2 AND lock_token IS NOT NULL`
)

// LockUpload takes an upload's lock for owner (the node's instance id) with
// token, for lease; with item set, the item's upload lock too. Returns
// ENOTFOUND for no such upload of a live item, ErrUploadBusy when another
// request holds it (asked to let go), ErrItemLockedExternally.
func (s *Store) LockUpload(ctx context.Context, tenantID, id, owner, token string, lease time.Duration, item bool) error {
	if !loupe.ValidID(id) || !loupe.ValidID(tenantID) {
		return loupe.NotFound()
	}
	busy := false
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var st struct {
			ItemID string `db:"item_id"`
			Held   bool   `db:"held"`
		}
		if err := tx.GetContext(ctx, &st, lockStateSQL, tenantID, id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return loupe.NotFound()
			}
			return fmt.Errorf("store: unable to read upload lock: %w", err)
		}
		if st.Held {
			busy = true
			_, err := tx.ExecContext(ctx, askUnlockSQL, tenantID, id)
			return err
		}
		if item {
			var il struct {
				Owner  *string `db:"upload_lock_owner"`
				Upload *string `db:"upload_lock_upload"`
			}
			if err := tx.GetContext(ctx, &il, itemLockSQL, tenantID, st.ItemID); err != nil {
				return fmt.Errorf("store: unable to read item lock: %w", err)
			}
			if il.Owner != nil && il.Upload == nil {
				return ErrItemLockedExternally
			}
			if _, err := tx.ExecContext(ctx, takeItemLock, tenantID, st.ItemID, owner, now(), id); err != nil {
				return fmt.Errorf("store: unable to take item lock: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, takeUploadSQL, tenantID, id, owner, token, lease.Milliseconds()); err != nil {
			return fmt.Errorf("store: unable to take upload lock: %w", err)
		}
		return nil
	})
	if err == nil && busy {
		return ErrUploadBusy
	}
	return err
}

// RenewUploadLock extends the lease of the lock held with token. It answers
// whether the lock is still held and whether another request asked for it.
func (s *Store) RenewUploadLock(ctx context.Context, tenantID, id, token string, lease time.Duration) (held, asked bool, err error) {
	err = s.db.GetContext(ctx, &asked, renewLockSQL, tenantID, id, token, lease.Milliseconds())
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("store: unable to renew upload lock: %w", err)
	}
	return true, asked, nil
}

// UnlockUpload releases the lock held with token, and the item's upload
// lock when this upload and owner hold it.
func (s *Store) UnlockUpload(ctx context.Context, tenantID, id, owner, token string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		var itemID string
		if err := tx.GetContext(ctx, &itemID, releaseUploadSQL, tenantID, id, token); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil // broken meanwhile (DELETE …/upload)
			}
			return fmt.Errorf("store: unable to release upload lock: %w", err)
		}
		if _, err := tx.ExecContext(ctx, releaseItemLockSQL, tenantID, itemID, id, owner); err != nil {
			return fmt.Errorf("store: unable to release item lock: %w", err)
		}
		return nil
	})
}

// Offset is the bytes durably stored.
func (u *Upload) Offset() int64 { return u.Received }

// IsLocked reports whether a request holds the lock.
func (u *Upload) IsLocked() bool { return u.Locked }

// LockOwnerInstanceID is the node holding the lock, nil when none does.
func (u *Upload) LockOwnerInstanceID() *string {
	if !u.Locked || u.LockOwner == "" {
		return nil
	}
	return &u.LockOwner
}

// MediaTypeOrNil is the sniffed media type once complete.
func (u *Upload) MediaTypeOrNil() *string { return nonEmpty(u.MediaType) }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// SHA256OrNil is the file's checksum once complete.
func (u *Upload) SHA256OrNil() *string { return nonEmpty(u.SHA256) }
