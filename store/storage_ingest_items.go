package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/mdf"
)

// This file turns objects of a bucket into items (docs/ingest.md): a page of
// a scan, or one object ingested now, in one transaction with everything
// that goes with it — the items (made by the rules of CreateItem, in
// multi-row statements: createItemsBulkTx), their first versions, folders,
// create audit records, the processing jobs, the ingested_objects rows that
// make an ingest idempotent (bucket + key + ETag) and the scan's position.

// IngestObject is one object to ingest and what its item gets.
type IngestObject struct {
	Key     string
	ETag    string
	Size    int64
	ModTime time.Time
	// Input is the item to create (title, type, metadata, media type,
	// analysis switches); its FolderParents are set from FolderPath.
	Input loupe.CreateItemInput
	// FolderPath names the Loupe folders the item goes in (nil: none).
	FolderPath []string
	// Media is the item's media document (ingest provenance, source
	// location, high-res); transcodingState is set here.
	Media ItemMedia
	// ItemID, when set, is the item this object becomes a new version of
	// (an ingestFile naming its item).
	ItemID string
}

// IngestSource is where the objects are and how they are ingested.
type IngestSource struct {
	// ConfigID is the ingest configuration (nil for a gateway's file).
	ConfigID       *string
	Bucket         string
	SkipProcessing bool
}

// ScanPosition is written with a scan's page: where the scan is and what
// it has counted, the page's own counts of created, new versions and
// known objects added by IngestObjects.
type ScanPosition struct {
	ConfigID string
	After    string
	Counts   loupe.ScanCounts
}

// IngestResult is what an ingest did, and the item of each object (by
// index: "" for one whose metadata its form refused).
type IngestResult struct {
	Created, Versions, Known, Refused int
	ItemIDs                           []string
	// Errors holds, per refused object, why (by index).
	Errors map[int]error
}

const (
	lockIngestBucketSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.ingest:' || $1::text || '/' || $2::text, 0))`

	// ingestedSQL finds what earlier ingests made of the keys: the newest
	// row per key whose item is live, and whether this ETag is known.
	ingestedSQL = `
SELECT o.key, o.etag, o.item_id::text, i.deleted_on IS NULL AS live
FROM ingested_objects o JOIN items i ON i.tenant_id = o.tenant_id AND i.id = o.item_id
WHERE o.tenant_id = $1 AND o.bucket = $2 AND o.key = ANY($3::text[])
ORDER BY o.ingested_on`

	insertIngestedSQL = `
INSERT INTO ingested_objects (tenant_id, bucket, key, etag, config_id, item_id, size, ingested_on)
SELECT $1, $2, r.key, r.etag, $3, r.item_id, r.size, $4
FROM unnest($5::text[], $6::text[], $7::uuid[], $8::bigint[]) AS r(key, etag, item_id, size)
ON CONFLICT DO NOTHING`

	// newVersionSQL adds a version named after the count so far.
	newVersionSQL = `
INSERT INTO item_versions (tenant_id, item_id, id, name, created_by, created_on)
SELECT $1, $2, $3, 'Version ' || (count(*) + 1), $4, $5 FROM item_versions WHERE tenant_id = $1 AND item_id = $2`

	// newMediaSQL points an item at its object's new version.
	newMediaSQL = `
UPDATE items SET media = media || $3::jsonb, media_size = $4, transcoding_state = $5, modified_on = $6
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL`

	liveItemSQL = `SELECT EXISTS (SELECT 1 FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND item_type <> 'folder')`
)

// IngestObjects ingests objs of src as p (the configuration's creator, or
// the caller of ingestFile) in one transaction, with pos (when not nil)
// written in it. Objects already ingested (same bucket, key and ETag) are
// known and left alone; a new ETag of a key ingested before becomes a new
// version of its item (while it is live). An object whose metadata its
// form refuses is skipped (Refused, Errors).
// Returns ENOTFOUND for an ItemID that is not a live item of the tenant.
func (s *Store) IngestObjects(ctx context.Context, p *loupe.Principal, src IngestSource, objs []*IngestObject, pos *ScanPosition, folders map[string]string) (*IngestResult, error) {
	var res *IngestResult
	var made map[string]string
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		made = map[string]string{}
		res, err = s.ingestTx(ctx, tx, p, src, objs, folders, made)
		if err != nil {
			return err
		}
		if pos != nil {
			pos.Counts.Created += res.Created
			pos.Counts.Versions += res.Versions
			pos.Counts.Known += res.Known
			pos.Counts.BadSidecar += res.Refused
			return setScanState(ctx, tx, p.TenantID, pos.ConfigID, loupe.ScanScanning, pos.Counts.Message(), &pos.After, &pos.Counts)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Folders made in the transaction are known once it committed.
	for k, v := range made {
		folders[k] = v
	}
	s.countUsage(p.TenantID, MetricItemsCreated, res.Created)
	return res, nil
}

func (s *Store) ingestTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, src IngestSource, objs []*IngestObject, folders, made map[string]string) (*IngestResult, error) {
	res := &IngestResult{ItemIDs: make([]string, len(objs)), Errors: map[int]error{}}
	if len(objs) == 0 {
		return res, nil
	}
	if _, err := tx.ExecContext(ctx, lockIngestBucketSQL, p.TenantID, src.Bucket); err != nil {
		return nil, fmt.Errorf("store: unable to lock ingest: %w", err)
	}
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	var rows []struct {
		Key    string `db:"key"`
		ETag   string `db:"etag"`
		ItemID string `db:"item_id"`
		Live   bool   `db:"live"`
	}
	if err := tx.SelectContext(ctx, &rows, ingestedSQL, p.TenantID, src.Bucket, pq.StringArray(keys)); err != nil {
		return nil, fmt.Errorf("store: unable to look up ingested objects: %w", err)
	}
	known := map[[2]string]string{}
	liveItem := map[string]string{} // key → newest live item
	for _, r := range rows {
		known[[2]string{r.Key, r.ETag}] = r.ItemID
		if r.Live {
			liveItem[r.Key] = r.ItemID
		} else {
			delete(liveItem, r.Key)
		}
	}
	at := now()
	state := "queued"
	if src.SkipProcessing {
		state = "skipped"
	}
	var fresh []int
	var versions []int
	seen := map[[2]string]bool{}
	for i, o := range objs {
		k := [2]string{o.Key, o.ETag}
		if id, ok := known[k]; ok {
			res.ItemIDs[i] = id
			res.Known++
			continue
		}
		if seen[k] {
			res.Known++
			continue
		}
		seen[k] = true
		o.Media.IngestSkipProcessing = &src.SkipProcessing
		if o.ItemID != "" {
			var live bool
			if !loupe.ValidID(o.ItemID) {
				return nil, loupe.NotFound()
			}
			if err := tx.GetContext(ctx, &live, liveItemSQL, p.TenantID, o.ItemID); err != nil {
				return nil, fmt.Errorf("store: unable to check item: %w", err)
			}
			if !live {
				return nil, loupe.NotFound()
			}
			versions = append(versions, i)
			continue
		}
		if id, ok := liveItem[o.Key]; ok {
			o.ItemID = id
			versions = append(versions, i)
			continue
		}
		fresh = append(fresh, i)
	}
	// Folders: one path made once (the caller's cache spans pages).
	for _, i := range fresh {
		o := objs[i]
		if len(o.FolderPath) == 0 {
			continue
		}
		path := pathKey(o.FolderPath)
		id, ok := folders[path]
		if !ok {
			id, ok = made[path]
		}
		if !ok {
			ids, created, err := folderPathTx(ctx, tx, p, o.FolderPath)
			if err != nil {
				return nil, err
			}
			_ = created // folders are not the ingest's items
			id = ids[len(ids)-1]
			made[path] = id
		}
		o.Input.FolderParents = []string{id}
	}
	ins := make([]*IngestObject, 0, len(fresh))
	for _, i := range fresh {
		ins = append(ins, objs[i])
	}
	ids, errs, err := createItemsBulkTx(ctx, tx, p, ins, state, at)
	if err != nil {
		return nil, err
	}
	var jobArgs []river.InsertManyParams
	var oKeys, oETags, oItems []string
	var oSizes []int64
	for n, i := range fresh {
		if errs[n] != nil {
			res.Errors[i] = errs[n]
			res.Refused++
			continue
		}
		res.ItemIDs[i] = ids[n]
		res.Created++
		oKeys, oETags, oItems, oSizes = append(oKeys, objs[i].Key), append(oETags, objs[i].ETag), append(oItems, ids[n]), append(oSizes, objs[i].Size)
		jobArgs = append(jobArgs, processJob(p.TenantID, ids[n]))
	}
	for _, i := range versions {
		o := objs[i]
		if _, err := tx.ExecContext(ctx, newVersionSQL, p.TenantID, o.ItemID, loupe.NewID(), p.UserID, at); err != nil {
			return nil, fmt.Errorf("store: unable to add version: %w", err)
		}
		if _, err := tx.ExecContext(ctx, newMediaSQL, p.TenantID, o.ItemID, loupe.JSONOf(o.Media), o.Size, state, at); err != nil {
			return nil, fmt.Errorf("store: unable to update item media: %w", err)
		}
		res.ItemIDs[i] = o.ItemID
		res.Versions++
		oKeys, oETags, oItems, oSizes = append(oKeys, o.Key), append(oETags, o.ETag), append(oItems, o.ItemID), append(oSizes, o.Size)
		jobArgs = append(jobArgs, processJob(p.TenantID, o.ItemID))
	}
	if len(oKeys) > 0 {
		if _, err := tx.ExecContext(ctx, insertIngestedSQL, p.TenantID, src.Bucket, src.ConfigID, at,
			pq.StringArray(oKeys), pq.StringArray(oETags), pq.StringArray(oItems), pq.Int64Array(oSizes)); err != nil {
			return nil, fmt.Errorf("store: unable to record ingested objects: %w", err)
		}
	}
	if !src.SkipProcessing && len(jobArgs) > 0 {
		if err := s.enqueueMany(ctx, tx, jobArgs); err != nil {
			return nil, fmt.Errorf("store: unable to ask for processing: %w", err)
		}
	}
	return res, nil
}

// processJob is the processing an ingested object asks for.
func processJob(tenantID, itemID string) river.InsertManyParams {
	return river.InsertManyParams{Args: jobs.ProcessArgs{TenantID: tenantID, ItemID: itemID, Reason: "ingest"},
		InsertOpts: ProcessInsertOpts(jobs.QueueBulk)}
}

func pathKey(names []string) string {
	b, _ := json.Marshal(names)
	return string(b)
}

// createItemsBulkTx creates the items of objs by CreateItem's rules
// (CreateItemInput.NewItem, the forms' checks, the first version, the folders,
// the create audit record) in multi-row statements: the ingest's bulk
// path, held equal to createItem by TestBulkItemsEqualCreateItem. Each
// object's FolderParents must be live folders (the caller made them). An
// object whose input is refused gets its error (by index) and no item.
func createItemsBulkTx(ctx context.Context, tx *sqlx.Tx, p *loupe.Principal, objs []*IngestObject, state string, at time.Time) ([]string, []error, error) {
	ids := make([]string, len(objs))
	errs := make([]error, len(objs))
	news := make([]*loupe.NewItem, len(objs))
	byForm := map[string][]int{}
	for i, o := range objs {
		n, err := o.Input.NewItem()
		if err != nil {
			errs[i] = err
			continue
		}
		news[i] = n
		byForm[n.FormID] = append(byForm[n.FormID], i)
	}
	// The forms' checks: one read of the forms and one of the users the
	// values name for all objects; when the batch fails, each object alone
	// (to refuse only the bad ones).
	for formID, idx := range byForm {
		forms, err := formsTx(ctx, tx, p.TenantID, formID)
		if err != nil {
			return nil, nil, err
		}
		writes := make([]*mdf.Write, len(idx))
		for k, i := range idx {
			w := &mdf.Write{FormID: formID, Form: forms[formID], Fresh: true, Replace: true}
			if w.After, err = w.CanonicalKeys(news[i].FormData); err != nil {
				errs[i], news[i] = err, nil
				continue
			}
			writes[k] = w
		}
		var ok []*mdf.Write
		for _, w := range writes {
			if w != nil {
				ok = append(ok, w)
			}
		}
		if err := checkFormData(ctx, tx, p.TenantID, ok...); err != nil {
			if !isClientError(err) {
				return nil, nil, err
			}
			for k, i := range idx {
				if writes[k] == nil {
					continue
				}
				if err := checkFormData(ctx, tx, p.TenantID, writes[k]); err != nil {
					if !isClientError(err) {
						return nil, nil, err
					}
					errs[i], news[i] = err, nil
				}
			}
		}
		for k, i := range idx {
			if news[i] != nil && writes[k] != nil {
				news[i].FormData = writes[k].After
			}
		}
	}
	var (
		rows                      []*newItemRow
		vID, vItem                []string
		fItem, fFolder            []string
		aID, aItem, aTitle, aDiff []string
	)
	for i, n := range news {
		if n == nil {
			continue
		}
		in := &objs[i].Input
		if len(in.FolderParents) > 1 {
			return nil, nil, fmt.Errorf("store: a bulk item goes in one folder at most")
		}
		id := loupe.NewID()
		ids[i] = id
		rows = append(rows, &newItemRow{ID: id, In: in, NewItem: n, Media: loupe.JSONOf(objs[i].Media), State: state, Size: &objs[i].Size})
		vID, vItem = append(vID, loupe.NewID()), append(vItem, id)
		for _, f := range in.FolderParents {
			fItem, fFolder = append(fItem, id), append(fFolder, f)
		}
		aID, aItem, aTitle = append(aID, loupe.NewID()), append(aItem, id), append(aTitle, n.Title)
		aDiff = append(aDiff, string(CreateDiff(n.FormID, n.FormData)))
	}
	if len(rows) == 0 {
		return ids, errs, nil
	}
	if err := insertItemsTx(ctx, tx, p.TenantID, p.UserID, at, rows); err != nil {
		return nil, nil, fmt.Errorf("store: unable to create items: %w", err)
	}
	if _, err := tx.ExecContext(ctx, insertVersionsBulkSQL, p.TenantID, p.UserID, at, pq.StringArray(vID), pq.StringArray(vItem)); err != nil {
		return nil, nil, fmt.Errorf("store: unable to create first versions: %w", err)
	}
	if len(fItem) > 0 {
		if _, err := tx.ExecContext(ctx, insertItemFoldersBulkSQL, p.TenantID, pq.StringArray(fItem), pq.StringArray(fFolder)); err != nil {
			return nil, nil, fmt.Errorf("store: unable to place items in folders: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, insertAuditBulkSQL, p.TenantID, string(loupe.ActionCreate), p.UserID, p.Email, at,
		pq.StringArray(aID), pq.StringArray(aItem), pq.StringArray(aTitle), pq.StringArray(aDiff)); err != nil {
		return nil, nil, fmt.Errorf("store: unable to write audit records: %w", err)
	}
	return ids, errs, nil
}

func isClientError(err error) bool {
	var le *loupe.Error
	return errors.As(err, &le) && le.Kind == loupe.EINVALID
}

const (
	insertVersionsBulkSQL = `
INSERT INTO item_versions (tenant_id, item_id, id, name, created_by, created_on)
SELECT $1, r.item_id, r.id, 'Version 1', $2, $3 FROM unnest($4::uuid[], $5::uuid[]) AS r(id, item_id)`

	insertItemFoldersBulkSQL = `
INSERT INTO item_folders (tenant_id, item_id, folder_id, position)
SELECT $1, r.item_id, r.folder_id, 1 FROM unnest($2::uuid[], $3::uuid[]) AS r(item_id, folder_id)`

	insertAuditBulkSQL = `
INSERT INTO audit_records (tenant_id, id, item_id, action_type, executed_by, email, item_title, executed_on, mdf_diff)
SELECT $1, r.id, r.item_id, $2, $3, $4, r.title, $5, r.diff::jsonb
FROM unnest($6::uuid[], $7::uuid[], $8::text[], $9::text[]) AS r(id, item_id, title, diff)`
)

// enqueueMany inserts jobs in tx.
func (s *Store) enqueueMany(ctx context.Context, tx *sqlx.Tx, params []river.InsertManyParams) error {
	if s.jobs == nil {
		return errNoJobs
	}
	_, err := s.jobs.InsertManyTx(ctx, tx.Tx, params)
	return err
}
