package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
)

// This file holds transfers (GET /auxiliary/api/v1/transfers;
// docs/replication.md): one file copied or moved from one place to
// another, its row the truth of its progress. A worker
// (internal/storage/replicate) holds a transfer by lease while it copies,
// records each multipart part that reached the destination with the
// SHA-256 state through it, and a worker taking over after a crash resumes
// from there.

// Transfer is one file's copy.
type Transfer struct {
	TenantID string  `db:"tenant_id" json:"-"`
	ID       string  `db:"id" json:"id"`
	SourceID *string `db:"source_id" json:"sourceId"`
	ItemID   string  `db:"item_id" json:"itemId"`
	// Media is original or generated, Mode copy or move.
	Media string              `db:"media" json:"media"`
	Mode  string              `db:"mode" json:"mode"`
	State loupe.TransferState `db:"state" json:"state"`
	// FromLocationID nil: Loupe's own file store.
	FromLocationID *string `db:"from_location_id" json:"-"`
	FromKey        string  `db:"from_key" json:"-"`
	// FromRef is the item's sourceFileLocation when asked (originals).
	FromRef      string `db:"from_ref" json:"-"`
	ToLocationID string `db:"to_location_id" json:"-"`
	ToKey        string `db:"to_key" json:"-"`
	// ExpectedSHA256 is the item's mediaSha256 when asked ("" unknown);
	// SHA256 the one verified at the destination ("" until then).
	ExpectedSHA256    string     `db:"expected_sha256" json:"expectedSha256"`
	SHA256            string     `db:"sha256" json:"sha256"`
	TotalBytes        *int64     `db:"total_bytes" json:"totalBytes"`
	BytesDone         int64      `db:"bytes_done" json:"bytesDone"`
	BytesPerSecond    *float64   `db:"bytes_per_second" json:"bytesPerSecond"`
	MaxBytesPerSecond int64      `db:"max_bytes_per_second" json:"maxBytesPerSecond"`
	UploadID          *string    `db:"upload_id" json:"-"`
	PartSize          *int64     `db:"part_size" json:"partSize"`
	Attempts          int        `db:"attempts" json:"attempts"`
	ResumedFromBytes  int64      `db:"resumed_from_bytes" json:"resumedFromBytes"`
	ErrorLog          loupe.JSON `db:"errors" json:"-"`
	LeaseOwner        *string    `db:"lease_owner" json:"-"`
	HeartbeatOn       *time.Time `db:"heartbeat_on" json:"-"`
	CreatedOn         time.Time  `db:"created_on" json:"createdOn"`
	StartedOn         *time.Time `db:"started_on" json:"startedOn"`
	FinishedOn        *time.Time `db:"finished_on" json:"finishedOn"`
	ModifiedOn        time.Time  `db:"modified_on" json:"modifiedOn"`
}

// From is where the transfer reads.
func (t *Transfer) From() *loupe.TransferEnd {
	return &loupe.TransferEnd{LocationID: t.FromLocationID, Key: t.FromKey}
}

// To is where the transfer writes.
func (t *Transfer) To() *loupe.TransferEnd {
	id := t.ToLocationID
	return &loupe.TransferEnd{LocationID: &id, Key: t.ToKey}
}

// Errors are the transfer's failed attempts, oldest first.
func (t *Transfer) Errors() []*loupe.TransferError {
	out := []*loupe.TransferError{}
	json.Unmarshal(t.ErrorLog, &out) //nolint:errcheck // written by FailTransfer only
	return out
}

// Error is why the transfer failed (nil unless it did).
func (t *Transfer) Error() *string {
	if t.State != loupe.TransferFailed {
		return nil
	}
	if errs := t.Errors(); len(errs) > 0 {
		return &errs[len(errs)-1].Message
	}
	return nil
}

// TransferPart is one part of a multipart transfer at the destination.
type TransferPart struct {
	Number int    `db:"number"`
	ETag   string `db:"etag"`
	Size   int64  `db:"size"`
	// HashState is the SHA-256 state through the part's end.
	HashState []byte `db:"hash_state"`
}

// NewTransfer is a transfer a run asks for.
type NewTransfer struct {
	SourceID            string
	ItemID              string
	Media, Mode         string
	FromLocationID      *string
	FromKey, FromRef    string
	ToLocationID, ToKey string
	ExpectedSHA256      string
	MaxBytesPerSecond   int64
}

const transferColumns = `tenant_id, id, source_id, item_id, media, mode, state, from_location_id, from_key, from_ref,
to_location_id, to_key, expected_sha256, sha256, total_bytes, bytes_done, bytes_per_second, max_bytes_per_second,
upload_id, part_size, attempts, resumed_from_bytes, errors, lease_owner, heartbeat_on, created_on, started_on,
finished_on, modified_on`

// Errors of a worker's hold on a transfer.
var (
	// ErrTransferEnded: the transfer is complete or failed.
	ErrTransferEnded = errors.New("store: the transfer has ended")
	// ErrTransferHeld: another worker holds the transfer's lease.
	ErrTransferHeld = errors.New("store: another worker holds the transfer")
	// ErrLeaseLost: the worker no longer holds the transfer's lease.
	ErrLeaseLost = errors.New("store: the transfer's lease was taken over")
)

const (
	// transfersSQL is a page newest first (ids are UUIDv7) with optional
	// filters: states $2, source $3, item $4, media $5; after $6
	// (transfers_state, transfers_source, transfers_item or the key).
	transfersSQL = `SELECT ` + transferColumns + ` FROM transfers
WHERE tenant_id = $1 AND ($2::text[] IS NULL OR state = ANY($2::text[])) AND ($3::uuid IS NULL OR source_id = $3::uuid)
  AND ($4::uuid IS NULL OR item_id = $4::uuid) AND ($5::text IS NULL OR media = $5::text)
  AND ($6::uuid IS NULL OR id < $6::uuid)
ORDER BY id DESC LIMIT $7`
	transferSQL       = `SELECT ` + transferColumns + ` FROM transfers WHERE tenant_id = $1 AND id = $2`
	transferCountsSQL = `SELECT source_id::text AS source_id, state, count(*) AS n FROM transfers
WHERE tenant_id = $1 AND source_id = ANY($2::uuid[]) GROUP BY 1, 2`
	// doneTransferSQL: was this file already copied to this key?
	// (transfers_done_key)
	doneTransferSQL = `SELECT EXISTS (SELECT 1 FROM transfers WHERE tenant_id = $1 AND to_location_id = $2
AND to_key = $3 AND from_key = $4 AND state = 'complete')`
	insertTransferSQL = `INSERT INTO transfers (tenant_id, id, source_id, item_id, media, mode, from_location_id, from_key,
from_ref, to_location_id, to_key, expected_sha256, max_bytes_per_second, created_on, modified_on)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
ON CONFLICT (tenant_id, to_location_id, to_key) WHERE state IN ('queued', 'copying', 'verifying') DO NOTHING
RETURNING id::text`
	// claimTransferSQL takes the transfer's lease: free, ours, or not
	// renewed for $4.
	claimTransferSQL = `UPDATE transfers SET lease_owner = $3, heartbeat_on = clock_timestamp(), attempts = attempts + 1,
    state = CASE WHEN state = 'queued' THEN 'copying' ELSE state END,
    started_on = COALESCE(started_on, clock_timestamp()), modified_on = clock_timestamp()
WHERE tenant_id = $1 AND id = $2 AND state IN ('queued', 'copying', 'verifying')
  AND (lease_owner IS NULL OR lease_owner = $3 OR heartbeat_on < clock_timestamp() - $4::interval)
RETURNING ` + transferColumns
	heartbeatSQL = `UPDATE transfers SET heartbeat_on = clock_timestamp()
WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3 AND state IN ('copying', 'verifying')`
	// transferStartSQL records where an attempt starts: the size, the
	// multipart upload and its part size, and the offset it resumes at.
	transferStartSQL = `UPDATE transfers SET total_bytes = $4, upload_id = $5, part_size = $6, resumed_from_bytes = $7,
    bytes_done = $7, state = 'copying', heartbeat_on = clock_timestamp(), modified_on = clock_timestamp()
WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3`
	transferPartsSQL = `SELECT number, etag, size, hash_state FROM transfer_parts
WHERE tenant_id = $1 AND transfer_id = $2 AND upload_id = $3 ORDER BY number`
	recordPartSQL = `INSERT INTO transfer_parts (tenant_id, transfer_id, upload_id, number, etag, size, hash_state)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant_id, transfer_id, number) DO UPDATE SET upload_id = EXCLUDED.upload_id, etag = EXCLUDED.etag,
    size = EXCLUDED.size, hash_state = EXCLUDED.hash_state`
	transferProgressSQL = `UPDATE transfers SET bytes_done = $4, bytes_per_second = $5, state = $6,
    heartbeat_on = clock_timestamp(), modified_on = clock_timestamp()
WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3`
	// resetTransferSQL drops the multipart upload (its parts go with the
	// next start's, as they are per upload): the next attempt starts over.
	resetTransferSQL = `UPDATE transfers SET upload_id = NULL, part_size = NULL, bytes_done = 0, modified_on = clock_timestamp()
WHERE tenant_id = $1 AND id = $2`
	deletePartsSQL    = `DELETE FROM transfer_parts WHERE tenant_id = $1 AND transfer_id = $2`
	finishTransferSQL = `UPDATE transfers SET state = 'complete', sha256 = $4, bytes_done = COALESCE(total_bytes, bytes_done),
    finished_on = clock_timestamp(), modified_on = clock_timestamp(), lease_owner = NULL, heartbeat_on = NULL
WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3`
	// failTransferSQL notes a failed attempt ($4: {at, attempt, message})
	// and lets the lease go; $5 ends the transfer.
	failTransferSQL = `UPDATE transfers SET errors = errors || jsonb_build_array($4::jsonb),
    state = CASE WHEN $5 THEN 'failed' ELSE state END,
    finished_on = CASE WHEN $5 THEN clock_timestamp() ELSE finished_on END,
    modified_on = clock_timestamp(), lease_owner = NULL, heartbeat_on = NULL
WHERE tenant_id = $1 AND id = $2 AND (lease_owner = $3 OR lease_owner IS NULL)`
	// switchReplicatedSQL points the item at its moved original, unless its
	// original changed meanwhile ($3: the one copied).
	switchReplicatedSQL = `UPDATE items SET modified_on = $5,
    media = media - 'ingestSourceStorageId' || jsonb_build_object('sourceFileLocation', $4::text)
WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->>'sourceFileLocation' = $3`
	// staleTransfersSQL: transfers whose lease was not renewed for $1,
	// across tenants (transfers_leases).
	staleTransfersSQL = `SELECT tenant_id::text AS tenant_id, id::text AS id, attempts FROM transfers
WHERE state IN ('copying', 'verifying') AND heartbeat_on < clock_timestamp() - $1::interval
ORDER BY heartbeat_on LIMIT $2`
)

// MaxTransfersPage bounds a page of transfers.
const MaxTransfersPage = 1000

// TransferFilter narrows a listing of transfers.
type TransferFilter struct {
	States   []loupe.TransferState
	SourceID *string
	ItemID   *string
	Media    *string
}

// Transfers returns up to first transfers newest first, after the id
// after ("" from the start), and whether more follow. A malformed id in
// the filter matches nothing.
func (s *Store) Transfers(ctx context.Context, tenantID string, f TransferFilter, after string, first int) ([]*Transfer, bool, error) {
	if first < 1 || first > MaxTransfersPage {
		return nil, false, loupe.Invalid("first must be 1 to %d", MaxTransfersPage)
	}
	var afterID any
	if after != "" {
		if !loupe.ValidID(after) {
			return nil, false, loupe.Invalid("after %q is not a cursor this list gave", after)
		}
		afterID = after
	}
	var states any
	if f.States != nil {
		ss := make([]string, len(f.States))
		for i, st := range f.States {
			ss[i] = string(st)
		}
		states = stringArray(ss)
	}
	out := []*Transfer{}
	for _, id := range []*string{f.SourceID, f.ItemID} {
		if id != nil && !loupe.ValidID(*id) {
			return out, false, nil
		}
	}
	if err := s.selectPrepared(ctx, &out, transfersSQL, tenantID, states, f.SourceID, f.ItemID, f.Media, afterID, first+1); err != nil {
		return nil, false, fmt.Errorf("store: unable to list transfers: %w", err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}

// Transfer returns one transfer; ENOTFOUND when missing (or another
// tenant's).
func (s *Store) Transfer(ctx context.Context, tenantID, id string) (*Transfer, error) {
	if !loupe.ValidID(id) {
		return nil, loupe.NotFound()
	}
	var out Transfer
	if err := s.getPrepared(ctx, &out, transferSQL, tenantID, id); err != nil {
		return nil, notFoundOr(err, "store: unable to fetch transfer: %w")
	}
	return &out, nil
}

// TransferCounts counts the transfers of sources by state (a dataloader's
// batch).
func (s *Store) TransferCounts(ctx context.Context, tenantID string, sourceIDs []string) (map[string]*loupe.TransferCounts, error) {
	var rows []struct {
		SourceID string              `db:"source_id"`
		State    loupe.TransferState `db:"state"`
		N        int                 `db:"n"`
	}
	if err := s.db.SelectContext(ctx, &rows, transferCountsSQL, tenantID, stringArray(validIDs(sourceIDs))); err != nil {
		return nil, fmt.Errorf("store: unable to count transfers: %w", err)
	}
	out := make(map[string]*loupe.TransferCounts, len(sourceIDs))
	for _, id := range sourceIDs {
		out[id] = &loupe.TransferCounts{}
	}
	for _, r := range rows {
		if c := out[r.SourceID]; c != nil {
			c.Add(r.State, r.N)
		}
	}
	return out, nil
}

// CreateTransfers inserts the transfers asked for, with their jobs, in one
// transaction: a file already copied to its key from the same key, or one
// whose destination key a transfer is writing, is skipped. Returns how
// many it made.
func (s *Store) CreateTransfers(ctx context.Context, tenantID string, in []NewTransfer) (int, error) {
	made := 0
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		at := now()
		var params []river.InsertManyParams
		for _, t := range in {
			var done bool
			if err := tx.GetContext(ctx, &done, doneTransferSQL, tenantID, t.ToLocationID, t.ToKey, t.FromKey); err != nil {
				return fmt.Errorf("store: unable to check transfers: %w", err)
			}
			if done {
				continue
			}
			var src *string
			if t.SourceID != "" {
				src = &t.SourceID
			}
			var id string
			err := tx.GetContext(ctx, &id, insertTransferSQL, tenantID, loupe.NewID(), src, t.ItemID, t.Media, t.Mode,
				t.FromLocationID, t.FromKey, t.FromRef, t.ToLocationID, t.ToKey, t.ExpectedSHA256, t.MaxBytesPerSecond, at)
			if errors.Is(err, sql.ErrNoRows) {
				continue // being written by another transfer
			}
			if err != nil {
				return fmt.Errorf("store: unable to create transfer: %w", err)
			}
			params = append(params, river.InsertManyParams{Args: jobs.TransferArgs{TenantID: tenantID, TransferID: id}})
		}
		made = len(params)
		return s.enqueueSome(ctx, tx, params)
	})
	return made, err
}

// ClaimTransfer takes the transfer's lease for owner (free, already
// owner's, or not renewed for ttl) and counts the attempt. Returns
// ErrTransferEnded when it is complete or failed, ErrTransferHeld when
// another worker holds it, ENOTFOUND when it is gone.
func (s *Store) ClaimTransfer(ctx context.Context, tenantID, id, owner string, ttl time.Duration) (*Transfer, error) {
	var out Transfer
	err := s.db.GetContext(ctx, &out, claimTransferSQL, tenantID, id, owner, interval(ttl))
	if errors.Is(err, sql.ErrNoRows) {
		t, err := s.Transfer(ctx, tenantID, id)
		if err != nil {
			return nil, err
		}
		if !t.State.Active() {
			return nil, ErrTransferEnded
		}
		return nil, ErrTransferHeld
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to claim transfer: %w", err)
	}
	return &out, nil
}

func interval(d time.Duration) string { return fmt.Sprintf("%d milliseconds", d.Milliseconds()) }

// leased answers ErrLeaseLost for a write that found the lease gone.
func leased(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("store: unable to %s: %w", what, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// TransferHeartbeat renews owner's lease; ErrLeaseLost when it is gone.
func (s *Store) TransferHeartbeat(ctx context.Context, t *Transfer, owner string) error {
	res, err := s.db.ExecContext(ctx, heartbeatSQL, t.TenantID, t.ID, owner)
	return leased(res, err, "renew the transfer's lease")
}

// StartTransfer records an attempt's start: the size, the multipart
// upload (nil: a single write) with its part size, and the offset it
// resumes at.
func (s *Store) StartTransfer(ctx context.Context, t *Transfer, owner string, total int64, uploadID *string, partSize *int64, from int64) error {
	res, err := s.db.ExecContext(ctx, transferStartSQL, t.TenantID, t.ID, owner, total, uploadID, partSize, from)
	if err := leased(res, err, "start the transfer"); err != nil {
		return err
	}
	t.TotalBytes, t.UploadID, t.PartSize, t.ResumedFromBytes, t.BytesDone = &total, uploadID, partSize, from, from
	return nil
}

// TransferParts returns the parts of the transfer's upload that reached
// the destination, by number.
func (s *Store) TransferParts(ctx context.Context, t *Transfer, uploadID string) ([]*TransferPart, error) {
	var out []*TransferPart
	if err := s.db.SelectContext(ctx, &out, transferPartsSQL, t.TenantID, t.ID, uploadID); err != nil {
		return nil, fmt.Errorf("store: unable to read the transfer's parts: %w", err)
	}
	return out, nil
}

// RecordTransferPart records a part that reached the destination and the
// transfer's progress, in one transaction, while owner holds the lease.
func (s *Store) RecordTransferPart(ctx context.Context, t *Transfer, owner, uploadID string, p *TransferPart, done int64, rate float64) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, transferProgressSQL, t.TenantID, t.ID, owner, done, rate, loupe.TransferCopying)
		if err := leased(res, err, "record the transfer's progress"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, recordPartSQL, t.TenantID, t.ID, uploadID, p.Number, p.ETag, p.Size, p.HashState); err != nil {
			return fmt.Errorf("store: unable to record the transfer's part: %w", err)
		}
		return nil
	})
}

// TransferProgress records the bytes done, the rate and the state.
func (s *Store) TransferProgress(ctx context.Context, t *Transfer, owner string, done int64, rate float64, state loupe.TransferState) error {
	res, err := s.db.ExecContext(ctx, transferProgressSQL, t.TenantID, t.ID, owner, done, rate, state)
	return leased(res, err, "record the transfer's progress")
}

// ResetTransfer drops the transfer's upload and parts: its next attempt
// starts from the first byte.
func (s *Store) ResetTransfer(ctx context.Context, t *Transfer) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, deletePartsSQL, t.TenantID, t.ID); err != nil {
			return fmt.Errorf("store: unable to reset transfer: %w", err)
		}
		if _, err := tx.ExecContext(ctx, resetTransferSQL, t.TenantID, t.ID); err != nil {
			return fmt.Errorf("store: unable to reset transfer: %w", err)
		}
		return nil
	})
}

// FinishTransfer marks a verified transfer complete. For a move of an
// original (switchTo not ""), the item is pointed at the copy in the same
// transaction, unless its original changed meanwhile (ECONFLICT; nothing
// is written) or it is gone (ENOTFOUND).
func (s *Store) FinishTransfer(ctx context.Context, t *Transfer, owner, sha, switchTo string) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if switchTo != "" {
			at := now()
			res, err := tx.ExecContext(ctx, switchReplicatedSQL, t.TenantID, t.ItemID, t.FromRef, switchTo, at)
			if err != nil {
				return fmt.Errorf("store: unable to switch the original: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return loupe.Errorf(loupe.ECONFLICT, "the item's original changed (or the item was deleted) while it was moved")
			}
			// An original that leaves Loupe's store is no longer held by it.
			if key, ok := loupe.FileKey(t.FromRef); ok {
				if _, err := tx.ExecContext(ctx, closeStoredFileSQL, t.TenantID, key, at); err != nil {
					return fmt.Errorf("store: unable to meter the moved original: %w", err)
				}
			}
		}
		res, err := tx.ExecContext(ctx, finishTransferSQL, t.TenantID, t.ID, owner, sha)
		return leased(res, err, "finish the transfer")
	})
}

// FailTransfer notes a failed attempt and lets the lease go; final ends
// the transfer (failed).
func (s *Store) FailTransfer(ctx context.Context, t *Transfer, owner, msg string, attempt int, final bool) error {
	entry := loupe.JSONOf(loupe.TransferError{At: now(), Attempt: attempt, Message: msg})
	if _, err := s.db.ExecContext(ctx, failTransferSQL, t.TenantID, t.ID, owner, string(entry), final); err != nil {
		return fmt.Errorf("store: unable to record the transfer's failure: %w", err)
	}
	return nil
}

// TakeOverStaleTransfers asks for a new job for each transfer (up to
// limit, across tenants) whose lease was not renewed for ttl: its worker
// died. The job resumes it. Returns how many it asked for.
func (s *Store) TakeOverStaleTransfers(ctx context.Context, ttl time.Duration, limit int) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var stale []struct {
			TenantID string `db:"tenant_id"`
			ID       string `db:"id"`
			Attempts int    `db:"attempts"`
		}
		if err := tx.SelectContext(ctx, &stale, staleTransfersSQL, interval(ttl), limit); err != nil {
			return fmt.Errorf("store: unable to read stale transfers: %w", err)
		}
		params := make([]river.InsertManyParams, len(stale))
		for i, t := range stale {
			params[i] = river.InsertManyParams{Args: jobs.TransferArgs{TenantID: t.TenantID, TransferID: t.ID, Takeover: t.Attempts}}
		}
		n = len(stale)
		return s.enqueueSome(ctx, tx, params)
	})
	return n, err
}
