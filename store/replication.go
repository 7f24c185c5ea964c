package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds the tenant's replication sources (GET and PUT
// /prime/api/v1/replication; docs/replication.md): their set, written as a
// whole, and the runs they ask for — by hand, on a schedule, and when an
// item's original arrives (the outbox's replication reader). The entity
// and its rules are loupe.ReplicationSource; the transfers the runs make
// are in transfers.go.

// ReaderReplication is the outbox reader of the ingest trigger.
const ReaderReplication = "replication"

const replicationColumns = `tenant_id, id, name, scope_type, folder_id, from_location_id, to_location_id, media, mode,
on_ingest, interval_minutes, max_bytes_per_second, enabled, created_on, modified_on, last_run_on, run_requested_on,
next_run_on`

const (
	replicationSourcesSQL = `SELECT ` + replicationColumns + ` FROM replication_sources WHERE tenant_id = $1
ORDER BY position, id`
	replicationSourceSQL      = `SELECT ` + replicationColumns + ` FROM replication_sources WHERE tenant_id = $1 AND id = $2`
	replicationSourcesByIDSQL = `SELECT ` + replicationColumns + ` FROM replication_sources
WHERE tenant_id = $1 AND id = ANY($2::uuid[])`
	// lockReplicationSQL serialises the replication writes of one tenant.
	lockReplicationSQL = `SELECT pg_advisory_xact_lock(hashtextextended('loupe.replication:' || $1::text, 0))`
	// replicationRefsSQL answers which of the given locations and folders
	// are the tenant's ($2 locations, $3 folders).
	replicationRefsSQL = `
SELECT 'location' AS kind, id::text AS id FROM storage_locations WHERE tenant_id = $1 AND id = ANY($2::uuid[])
UNION ALL
SELECT 'folder', id::text FROM items WHERE tenant_id = $1 AND id = ANY($3::uuid[]) AND item_type = 'folder'
  AND deleted_on IS NULL`
	deleteReplicationSourcesSQL = `DELETE FROM replication_sources WHERE tenant_id = $1 AND NOT (id = ANY($2::uuid[]))`
	// upsertReplicationSourceSQL writes one source; an existing one keeps
	// its createdOn, last run and pending run, and its next scheduled run
	// while its schedule stays the same ($17: the next run of a new
	// schedule).
	upsertReplicationSourceSQL = `
INSERT INTO replication_sources (tenant_id, id, position, name, scope_type, folder_id, from_location_id, to_location_id,
    media, mode, on_ingest, interval_minutes, max_bytes_per_second, enabled, created_on, modified_on, next_run_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
ON CONFLICT (tenant_id, id) DO UPDATE SET position = EXCLUDED.position, name = EXCLUDED.name,
    scope_type = EXCLUDED.scope_type, folder_id = EXCLUDED.folder_id, from_location_id = EXCLUDED.from_location_id,
    to_location_id = EXCLUDED.to_location_id, media = EXCLUDED.media, mode = EXCLUDED.mode,
    on_ingest = EXCLUDED.on_ingest, interval_minutes = EXCLUDED.interval_minutes,
    max_bytes_per_second = EXCLUDED.max_bytes_per_second, enabled = EXCLUDED.enabled,
    modified_on = EXCLUDED.modified_on,
    next_run_on = CASE WHEN replication_sources.interval_minutes IS NOT DISTINCT FROM EXCLUDED.interval_minutes
                        AND replication_sources.enabled = EXCLUDED.enabled
                       THEN replication_sources.next_run_on ELSE EXCLUDED.next_run_on END
RETURNING ` + replicationColumns
	runRequestedSQL = `UPDATE replication_sources SET run_requested_on = $3 WHERE tenant_id = $1 AND id = $2
RETURNING ` + replicationColumns
	// runStartedSQL stamps a run's start.
	runStartedSQL = `UPDATE replication_sources SET last_run_on = $3 WHERE tenant_id = $1 AND id = $2`
	// dueReplicationSQL takes the scheduled runs that are due, across
	// tenants, and moves each source's next run on (replication_sources_due).
	dueReplicationSQL = `
UPDATE replication_sources r SET next_run_on = $1 + make_interval(mins => r.interval_minutes), run_requested_on = $1
FROM (SELECT tenant_id, id FROM replication_sources WHERE next_run_on <= $1 ORDER BY next_run_on LIMIT $2
      FOR UPDATE SKIP LOCKED) due
WHERE r.tenant_id = due.tenant_id AND r.id = due.id
RETURNING r.tenant_id::text, r.id::text`
	// ingestSourcesSQL answers the enabled sources with the ingest trigger
	// of the tenants $1 (replication_sources_ingest).
	ingestSourcesSQL = `SELECT ` + replicationColumns + ` FROM replication_sources
WHERE tenant_id = ANY($1::uuid[]) AND enabled AND on_ingest`
)

// replicationRow is a source as stored.
type replicationRow struct {
	TenantID          string         `db:"tenant_id"`
	ID                string         `db:"id"`
	Name              string         `db:"name"`
	ScopeType         string         `db:"scope_type"`
	FolderID          *string        `db:"folder_id"`
	FromLocationID    *string        `db:"from_location_id"`
	ToLocationID      string         `db:"to_location_id"`
	Media             pq.StringArray `db:"media"`
	Mode              string         `db:"mode"`
	OnIngest          bool           `db:"on_ingest"`
	IntervalMinutes   *int           `db:"interval_minutes"`
	MaxBytesPerSecond int64          `db:"max_bytes_per_second"`
	Enabled           bool           `db:"enabled"`
	CreatedOn         time.Time      `db:"created_on"`
	ModifiedOn        time.Time      `db:"modified_on"`
	LastRunOn         *time.Time     `db:"last_run_on"`
	RunRequestedOn    *time.Time     `db:"run_requested_on"`
	NextRunOn         *time.Time     `db:"next_run_on"`
}

func (r *replicationRow) source() *loupe.ReplicationSource {
	return &loupe.ReplicationSource{TenantID: r.TenantID, ID: r.ID, Name: r.Name,
		Scope:          loupe.ReplicationScope{Type: r.ScopeType, FolderID: r.FolderID},
		FromLocationID: r.FromLocationID, ToLocationID: r.ToLocationID, Media: []string(r.Media), Mode: r.Mode,
		Triggers:          loupe.ReplicationTriggers{OnIngest: r.OnIngest, IntervalMinutes: r.IntervalMinutes},
		MaxBytesPerSecond: r.MaxBytesPerSecond, Enabled: r.Enabled, CreatedOn: r.CreatedOn, ModifiedOn: r.ModifiedOn,
		LastRunOn: r.LastRunOn, RunRequestedOn: r.RunRequestedOn, NextRunOn: r.NextRunOn}
}

func sourcesOf(rows []*replicationRow) []*loupe.ReplicationSource {
	out := make([]*loupe.ReplicationSource, len(rows))
	for i, r := range rows {
		out[i] = r.source()
	}
	return out
}

// ReplicationSources returns the tenant's sources in the order they were
// given.
func (s *Store) ReplicationSources(ctx context.Context, tenantID string) ([]*loupe.ReplicationSource, error) {
	var rows []*replicationRow
	if err := s.selectPrepared(ctx, &rows, replicationSourcesSQL, tenantID); err != nil {
		return nil, fmt.Errorf("store: unable to list replication sources: %w", err)
	}
	return sourcesOf(rows), nil
}

// ReplicationSource returns one source; ENOTFOUND when missing (or
// another tenant's).
func (s *Store) ReplicationSource(ctx context.Context, tenantID, id string) (*loupe.ReplicationSource, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var r replicationRow
	if err := s.getPrepared(ctx, &r, replicationSourceSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch replication source: %w")
	}
	return r.source(), nil
}

// ReplicationSourcesByID returns the tenant's sources of ids, by id (a
// dataloader's batch).
func (s *Store) ReplicationSourcesByID(ctx context.Context, tenantID string, ids []string) (map[string]*loupe.ReplicationSource, error) {
	var rows []*replicationRow
	if err := s.db.SelectContext(ctx, &rows, replicationSourcesByIDSQL, tenantID, stringArray(validIDs(ids))); err != nil {
		return nil, fmt.Errorf("store: unable to fetch replication sources: %w", err)
	}
	out := make(map[string]*loupe.ReplicationSource, len(rows))
	for _, r := range rows {
		out[r.ID] = r.source()
	}
	return out, nil
}

// PutReplication replaces the tenant's set of sources with in (checked by
// loupe.PutReplicationInput.Check, in order): sources with the id of one
// of the tenant's keep it, the others are new, and the tenant's sources
// not given are deleted (their transfers stay, without a source). Then the
// sources of run are run. One transaction: a refusal changes nothing.
// EINVALID names the field for an id, location or folder that is not the
// tenant's.
func (s *Store) PutReplication(ctx context.Context, tenantID string, in []*loupe.ReplicationSource, run []string) ([]*loupe.ReplicationSource, error) {
	var out []*loupe.ReplicationSource
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, lockReplicationSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to lock replication: %w", err)
		}
		var rows []*replicationRow
		if err := tx.SelectContext(ctx, &rows, replicationSourcesSQL, tenantID); err != nil {
			return fmt.Errorf("store: unable to list replication sources: %w", err)
		}
		existing := map[string]bool{}
		for _, r := range rows {
			existing[r.ID] = true
		}
		if err := checkReplicationRefs(ctx, tx, tenantID, in, existing); err != nil {
			return err
		}
		if in == nil { // run only: the set stays
			out = sourcesOf(rows)
		} else {
			at := now()
			keep := make([]string, 0, len(in))
			out = make([]*loupe.ReplicationSource, 0, len(in))
			for i, src := range in {
				id := src.ID
				if id == "" {
					id = loupe.NewID()
				}
				keep = append(keep, id)
				var next *time.Time
				if m := src.Triggers.IntervalMinutes; m != nil && src.Enabled {
					n := at.Add(time.Duration(*m) * time.Minute)
					next = &n
				}
				var r replicationRow
				if err := tx.GetContext(ctx, &r, upsertReplicationSourceSQL, tenantID, id, i, src.Name, src.Scope.Type,
					src.Scope.FolderID, src.FromLocationID, src.ToLocationID, pq.StringArray(src.Media), src.Mode,
					src.Triggers.OnIngest, src.Triggers.IntervalMinutes, src.MaxBytesPerSecond, src.Enabled, at, at,
					next); err != nil {
					return fmt.Errorf("store: unable to write replication source: %w", err)
				}
				out = append(out, r.source())
			}
			if _, err := tx.ExecContext(ctx, deleteReplicationSourcesSQL, tenantID, stringArray(keep)); err != nil {
				return fmt.Errorf("store: unable to delete replication sources: %w", err)
			}
		}
		for i, id := range run {
			k := slices.IndexFunc(out, func(src *loupe.ReplicationSource) bool { return src.ID == id })
			if k < 0 {
				return loupe.Invalid("run[%d] %s does not name a replication source of the tenant", i, id)
			}
			src, err := s.requestRunTx(ctx, tx, tenantID, id, "hand")
			if err != nil {
				return err
			}
			out[k] = src
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkReplicationRefs refuses ids that are not among the tenant's
// sources, and locations and folders that are not the tenant's, naming
// the field.
func checkReplicationRefs(ctx context.Context, tx *sqlx.Tx, tenantID string, in []*loupe.ReplicationSource, existing map[string]bool) error {
	var locations, folders []string
	for i, src := range in {
		if src.ID != "" && !existing[src.ID] {
			return loupe.Invalid("sources[%d].id %s does not name a replication source of the tenant (leave it out for a new one)", i, src.ID)
		}
		locations = append(locations, src.ToLocationID)
		if src.FromLocationID != nil {
			locations = append(locations, *src.FromLocationID)
		}
		if src.Scope.FolderID != nil {
			folders = append(folders, *src.Scope.FolderID)
		}
	}
	if len(in) == 0 {
		return nil
	}
	var refs []struct {
		Kind string `db:"kind"`
		ID   string `db:"id"`
	}
	if err := tx.SelectContext(ctx, &refs, replicationRefsSQL, tenantID, stringArray(locations), stringArray(folders)); err != nil {
		return fmt.Errorf("store: unable to check replication references: %w", err)
	}
	found := map[string]bool{}
	for _, r := range refs {
		found[r.Kind+"/"+r.ID] = true
	}
	for i, src := range in {
		if src.FromLocationID != nil && !found["location/"+*src.FromLocationID] {
			return loupe.Invalid("sources[%d].fromLocationId %s does not name a storage location of the tenant", i, *src.FromLocationID)
		}
		if !found["location/"+src.ToLocationID] {
			return loupe.Invalid("sources[%d].toLocationId %s does not name a storage location of the tenant", i, src.ToLocationID)
		}
		if src.Scope.FolderID != nil && !found["folder/"+*src.Scope.FolderID] {
			return loupe.Invalid("sources[%d].scope.folderId %s does not name a folder of the tenant", i, *src.Scope.FolderID)
		}
	}
	return nil
}

// RequestReplicationRun asks for a run of a source now (by hand; a
// disabled source runs too: enabled governs the triggers). ENOTFOUND when
// it is missing.
func (s *Store) RequestReplicationRun(ctx context.Context, tenantID, id string) (*loupe.ReplicationSource, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out *loupe.ReplicationSource
	err := s.inTx(ctx, func(tx *sqlx.Tx) (err error) {
		out, err = s.requestRunTx(ctx, tx, tenantID, id, "hand")
		return err
	})
	return out, err
}

func (s *Store) requestRunTx(ctx context.Context, tx *sqlx.Tx, tenantID, id, reason string) (*loupe.ReplicationSource, error) {
	var r replicationRow
	if err := tx.GetContext(ctx, &r, runRequestedSQL, tenantID, id, now()); err != nil {
		return nil, notFoundOr(err, "store: unable to ask for a replication run: %w")
	}
	if _, err := s.enqueue(ctx, tx, jobs.ReplicationRunArgs{TenantID: tenantID, SourceID: id, Reason: reason}, nil); err != nil {
		return nil, fmt.Errorf("store: unable to ask for a replication run: %w", err)
	}
	return r.source(), nil
}

// ReplicationRunStarted stamps the source's lastRunOn.
func (s *Store) ReplicationRunStarted(ctx context.Context, tenantID, id string) error {
	if _, err := s.db.ExecContext(ctx, runStartedSQL, tenantID, id, now()); err != nil {
		return fmt.Errorf("store: unable to stamp the replication run: %w", err)
	}
	return nil
}

// StartDueReplication asks for the scheduled runs that are due (up to
// limit, across tenants) and moves each source's next run on, in one
// transaction. Returns how many it started.
func (s *Store) StartDueReplication(ctx context.Context, limit int) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var due []struct {
			TenantID string `db:"tenant_id"`
			ID       string `db:"id"`
		}
		if err := tx.SelectContext(ctx, &due, dueReplicationSQL, now(), limit); err != nil {
			return fmt.Errorf("store: unable to read due replication sources: %w", err)
		}
		params := make([]river.InsertManyParams, len(due))
		for i, d := range due {
			params[i] = river.InsertManyParams{Args: jobs.ReplicationRunArgs{TenantID: d.TenantID, SourceID: d.ID, Reason: "schedule"}}
		}
		n = len(due)
		return s.enqueueSome(ctx, tx, params)
	})
	return n, err
}

// enqueueSome inserts jobs in tx, if there are any.
func (s *Store) enqueueSome(ctx context.Context, tx *sqlx.Tx, params []river.InsertManyParams) error {
	if len(params) == 0 {
		return nil
	}
	if err := s.enqueueMany(ctx, tx, params); err != nil {
		return fmt.Errorf("store: unable to enqueue: %w", err)
	}
	return nil
}

// The outbox events after which an item may have a new original (created
// by an ingest or a render, an upload completed) and those after which its
// processing ended (new generated media). A move waits for the latter, so
// that an original is not taken from under its processing.
var (
	arrivalEvents   = []loupe.EventType{loupe.EventItemCreation, loupe.EventUploadCompletion}
	processedEvents = []loupe.EventType{loupe.EventProcessingCompletion, loupe.EventProcessingFailure}
)

// ReplicateNewMedia reads the next events of the replication reader (up to
// limit): the items they name in tenants with enabled sources that have
// the ingest trigger get a run of each such source limited to them, asked
// in the transaction that moves the reader on (copy sources on arrival and
// after processing, move sources after processing). Whether an item is in
// a source's scope, and has files to copy, is the run's to decide. Returns
// how many events it read.
func (s *Store) ReplicateNewMedia(ctx context.Context, limit int) (int, error) {
	return s.readEvents(ctx, ReaderReplication, limit, func(tx *sqlx.Tx, events []*Event) error {
		// tenant → item ids in order, once: [0] on arrival, [1] processed.
		items := map[string]*[2][]string{}
		seen := map[string]bool{}
		for _, e := range events {
			k := 0
			switch {
			case e.ItemID == nil:
				continue
			case slices.Contains(arrivalEvents, e.Type):
			case slices.Contains(processedEvents, e.Type):
				k = 1
			default:
				continue
			}
			key := fmt.Sprint(k, e.TenantID, *e.ItemID)
			if seen[key] {
				continue
			}
			seen[key] = true
			if items[e.TenantID] == nil {
				items[e.TenantID] = &[2][]string{}
			}
			items[e.TenantID][k] = append(items[e.TenantID][k], *e.ItemID)
		}
		if len(items) == 0 {
			return nil
		}
		tenants := make([]string, 0, len(items))
		for t := range items {
			tenants = append(tenants, t)
		}
		var rows []*replicationRow
		if err := tx.SelectContext(ctx, &rows, ingestSourcesSQL, stringArray(tenants)); err != nil {
			return fmt.Errorf("store: unable to read replication sources: %w", err)
		}
		var params []river.InsertManyParams
		for _, r := range rows {
			lists := items[r.TenantID]
			ids := lists[1]
			if r.Mode == loupe.ReplicationCopy {
				ids = append(slices.Clone(lists[0]), lists[1]...)
				slices.Sort(ids)
				ids = slices.Compact(ids)
			}
			for len(ids) > 0 {
				n := min(len(ids), 100)
				params = append(params, river.InsertManyParams{Args: jobs.ReplicationRunArgs{TenantID: r.TenantID,
					SourceID: r.ID, ItemIDs: ids[:n], Reason: "ingest"}})
				ids = ids[n:]
			}
		}
		return s.enqueueSome(ctx, tx, params)
	})
}

// ReplicationCandidate is an item of a source's scope, with its original.
type ReplicationCandidate struct {
	ID string `db:"id"`
	// Location is its sourceFileLocation ("" when it has none), SHA256
	// its mediaSha256 ("" when unknown).
	Location string `db:"location"`
	SHA256   string `db:"sha256"`
}

const candidateColumns = `i.id::text AS id, COALESCE(i.media->>'sourceFileLocation', '') AS location,
COALESCE(i.media->>'mediaSha256', '') AS sha256`

// replicationScopeSQL is the folder $2's subtree (its folders, bounded in
// depth as the folder deletion is).
const replicationScopeSQL = `WITH RECURSIVE scope(id, depth) AS (
    SELECT r.id, 0 FROM items r WHERE r.tenant_id = $1 AND r.id = $2 AND r.item_type = 'folder' AND r.deleted_on IS NULL
  UNION
    SELECT c.id, s.depth + 1 FROM scope s
    JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = s.id
    JOIN items c ON c.tenant_id = $1 AND c.id = l.item_id AND c.item_type = 'folder' AND c.deleted_on IS NULL
    WHERE s.depth < 64
)`

const (
	// tenantPageSQL: the tenant's live items after $2, by id (primary key).
	tenantPageSQL = `SELECT ` + candidateColumns + ` FROM items i
WHERE i.tenant_id = $1 AND i.id > $2::uuid AND i.deleted_on IS NULL AND i.item_type <> 'folder'
ORDER BY i.id LIMIT $3`
	// folderPageSQL: the live items linked to the folder's subtree after
	// $3, by id (item_folders_folder_idx per folder).
	folderPageSQL = replicationScopeSQL + `
SELECT ` + candidateColumns + ` FROM (
    SELECT DISTINCT l.item_id FROM item_folders l
    WHERE l.tenant_id = $1 AND l.folder_id IN (SELECT id FROM scope) AND l.item_id > $3::uuid
    ORDER BY l.item_id LIMIT $4
) p JOIN items i ON i.tenant_id = $1 AND i.id = p.item_id
WHERE i.deleted_on IS NULL AND i.item_type <> 'folder'
ORDER BY i.id`
	tenantItemsSQL = `SELECT ` + candidateColumns + ` FROM items i
WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.deleted_on IS NULL AND i.item_type <> 'folder'
ORDER BY i.id`
	folderItemsSQL = replicationScopeSQL + `
SELECT ` + candidateColumns + ` FROM items i
WHERE i.tenant_id = $1 AND i.id = ANY($3::uuid[]) AND i.deleted_on IS NULL AND i.item_type <> 'folder'
  AND EXISTS (SELECT 1 FROM item_folders l WHERE l.tenant_id = $1 AND l.item_id = i.id
              AND l.folder_id IN (SELECT id FROM scope))
ORDER BY i.id`
)

// MaxReplicationPage bounds a page of a run.
const MaxReplicationPage = 500

// ReplicationPage returns up to limit items of the source's scope after
// the id after ("" from the start), by id: the pages of a run. The last
// id is the next page's after.
func (s *Store) ReplicationPage(ctx context.Context, src *loupe.ReplicationSource, after string, limit int) ([]*ReplicationCandidate, error) {
	if after == "" {
		after = "00000000-0000-0000-0000-000000000000"
	}
	limit = min(max(limit, 1), MaxReplicationPage)
	var out []*ReplicationCandidate
	var err error
	if src.Scope.Type == loupe.ReplicationScopeFolder && src.Scope.FolderID != nil {
		err = s.db.SelectContext(ctx, &out, folderPageSQL, src.TenantID, *src.Scope.FolderID, after, limit)
	} else {
		err = s.db.SelectContext(ctx, &out, tenantPageSQL, src.TenantID, after, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the items of a replication source: %w", err)
	}
	return out, nil
}

// ReplicationItems returns those of ids that are in the source's scope.
func (s *Store) ReplicationItems(ctx context.Context, src *loupe.ReplicationSource, ids []string) ([]*ReplicationCandidate, error) {
	var out []*ReplicationCandidate
	var err error
	if src.Scope.Type == loupe.ReplicationScopeFolder && src.Scope.FolderID != nil {
		err = s.db.SelectContext(ctx, &out, folderItemsSQL, src.TenantID, *src.Scope.FolderID, stringArray(validIDs(ids)))
	} else {
		err = s.db.SelectContext(ctx, &out, tenantItemsSQL, src.TenantID, stringArray(validIDs(ids)))
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the items of a replication source: %w", err)
	}
	return out, nil
}
