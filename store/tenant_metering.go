package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/loupe-mam/loupe"
)

// This file holds the files a tenant stores and the metering (spec 2.25)
// computed from them (docs/usage.md).

// MeteringProvider names Loupe's own blob store in byProvider.
const MeteringProvider = "loupe"

// MaxMeteringDays bounds the period of one metering read.
const MaxMeteringDays = 366

const day = 24 * time.Hour

const (
	closeStoredFileSQL = `
UPDATE stored_files SET deleted_on = $3 WHERE tenant_id = $1 AND key = $2 AND deleted_on IS NULL`
	insertStoredFileSQL = `
INSERT INTO stored_files (tenant_id, id, key, size_bytes, stored_on) VALUES ($1, $2, $3, $4, $5)`
)

// RecordStoredFile notes that the blob store now holds size bytes under key
// for the tenant; a file stored under the key before counts as gone.
func (s *Store) RecordStoredFile(ctx context.Context, tenantID, key string, size int64) error {
	if !loupe.ValidID(tenantID) {
		return nil
	}
	record := func() error {
		return s.inTx(ctx, func(tx *sqlx.Tx) error {
			at := now()
			if _, err := tx.ExecContext(ctx, closeStoredFileSQL, tenantID, key, at); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, insertStoredFileSQL, tenantID, loupe.NewID(), key, size, at)
			return err
		})
	}
	err := record()
	if isUniqueViolation(err) { // the same key stored at the same moment elsewhere: once more, after it
		err = record()
	}
	if err != nil {
		return fmt.Errorf("store: unable to record stored file: %w", err)
	}
	return nil
}

// RecordDeletedFile notes that the blob store no longer holds key.
func (s *Store) RecordDeletedFile(ctx context.Context, tenantID, key string) error {
	if !loupe.ValidID(tenantID) {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, closeStoredFileSQL, tenantID, key, now()); err != nil {
		return fmt.Errorf("store: unable to record deleted file: %w", err)
	}
	return nil
}

// Metering is the usage of one or several tenants between two days (spec
// 2.25).
type Metering struct {
	Cost float64 `json:"cost"`
	// StartDay and EndDay are the first and the last day of the period, as
	// epoch milliseconds of their midnight (UTC).
	StartDay     int64         `json:"startDay"`
	EndDay       int64         `json:"endDay"`
	MeteringInfo *MeteringInfo `json:"meteringInfo"`
}

// MeteringInfo is the period's usage by kind.
type MeteringInfo struct {
	OperationData *MeteringOperations `json:"operationData"`
	StorageData   *MeteringStorage    `json:"storageData"`
	Cost          float64             `json:"cost"`
}

// MeteringOperations are the media operations of the period.
type MeteringOperations struct {
	Transcoding   *MeteringEntry `json:"transcoding"`
	Transcription *MeteringEntry `json:"transcription"`
	Translation   *MeteringEntry `json:"translation"`
}

// MeteringStorage is the storage of the period.
type MeteringStorage struct {
	Storage *MeteringEntry `json:"storage"`
}

// MeteringEntry is one kind of usage: its cost, units, count and the same
// per provider.
type MeteringEntry struct {
	Cost       float64    `json:"cost"`
	Unit       float64    `json:"unit"`
	Count      int64      `json:"count"`
	ByProvider loupe.JSON `json:"byProvider"`
	// HeldBytes is, for storage, the bytes held at the end of the period.
	HeldBytes *int64 `json:"-"`
}

// MeteringPeriod turns the days asked (epoch milliseconds, cut to their
// UTC day; nil for the default) into the period's first and last day. The
// default is the current month up to today. Returns EINVALID for a period
// that ends before it starts or spans more than MaxMeteringDays.
func MeteringPeriod(startDay, endDay *int64, now time.Time) (first, last time.Time, err error) {
	now = now.UTC()
	today := now.Truncate(day)
	first, last = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), today
	if endDay != nil {
		if *endDay < 0 {
			return first, last, loupe.Invalid("endDay must be epoch milliseconds, not negative")
		}
		last = time.UnixMilli(*endDay).UTC().Truncate(day)
		if startDay == nil {
			first = time.Date(last.Year(), last.Month(), 1, 0, 0, 0, 0, time.UTC)
		}
	}
	if startDay != nil {
		if *startDay < 0 {
			return first, last, loupe.Invalid("startDay must be epoch milliseconds, not negative")
		}
		first = time.UnixMilli(*startDay).UTC().Truncate(day)
	}
	if last.Before(first) {
		return first, last, loupe.Invalid("endDay must not be before startDay")
	}
	if days := int(last.Sub(first)/day) + 1; days > MaxMeteringDays {
		return first, last, loupe.Invalid("the period spans %d days; at most %d", days, MaxMeteringDays)
	}
	return first, last, nil
}

// storageHeldSQL integrates the bytes held over [$2, $3): each file counts
// its size for the time it was held within; and what is held at $3.
const storageHeldSQL = `
SELECT COALESCE(sum(size_bytes::float8 * EXTRACT(EPOCH FROM
           LEAST(COALESCE(deleted_on, $3), $3) - GREATEST(stored_on, $2))), 0)::float8 AS byte_seconds,
       COALESCE(sum(file_count) FILTER (WHERE deleted_on IS NULL OR deleted_on > $3), 0) AS files,
       COALESCE(sum(size_bytes) FILTER (WHERE deleted_on IS NULL OR deleted_on > $3), 0)::bigint AS bytes
FROM stored_files
WHERE tenant_id = ANY($1::uuid[]) AND stored_on < $3 AND (deleted_on IS NULL OR deleted_on > $2)`

// mediaOperationsSQL sums the media work done in [$2, $3) by kind and
// provider, and counts the runs that failed.
const mediaOperationsSQL = `
SELECT kind, provider, sum(media_seconds)::float8 AS seconds, sum(outputs)::bigint AS outputs,
    count(*) FILTER (WHERE failed) AS failed
FROM media_operations
WHERE tenant_id = ANY($1::uuid[]) AND done_on >= $2 AND done_on < $3
GROUP BY kind, provider ORDER BY kind, provider`

// Metering answers the usage of the tenants over the days first to last
// (both included). Storage is the files Loupe's blob store holds for them:
// unit is the gigabytes (10^9 bytes) held on average over the period up to
// now, count the files held at its end. Operations are the media work
// done in the period: unit the media minutes of the outputs made, count
// the outputs, per engine in byProvider. Loupe keeps no price list, so
// every cost is 0 (docs/usage.md).
func (s *Store) Metering(ctx context.Context, tenantIDs []string, first, last, now time.Time) (*Metering, error) {
	start, end := first, last.Add(day)
	if now.Before(end) {
		end = now
	}
	var held struct {
		ByteSeconds float64 `db:"byte_seconds"`
		Files       int64   `db:"files"`
		Bytes       int64   `db:"bytes"`
	}
	if end.After(start) {
		if err := s.db.GetContext(ctx, &held, storageHeldSQL, stringArray(validIDs(tenantIDs)), start, end); err != nil {
			return nil, fmt.Errorf("store: unable to meter storage: %w", err)
		}
	}
	storage := &MeteringEntry{Count: held.Files, HeldBytes: &held.Bytes}
	if end.After(start) {
		storage.Unit = held.ByteSeconds / end.Sub(start).Seconds() / 1e9
	}
	storage.ByProvider = loupe.JSONOf(map[string]any{MeteringProvider: map[string]any{
		"cost": storage.Cost, "unit": storage.Unit, "count": storage.Count,
	}})
	ops, err := s.meterOperations(ctx, tenantIDs, start, end)
	if err != nil {
		return nil, err
	}
	return &Metering{
		StartDay: first.UnixMilli(),
		EndDay:   last.UnixMilli(),
		MeteringInfo: &MeteringInfo{
			OperationData: ops,
			StorageData:   &MeteringStorage{Storage: storage},
		},
	}, nil
}

// meterOperations sums the media work of the tenants in [start, end).
func (s *Store) meterOperations(ctx context.Context, tenantIDs []string, start, end time.Time) (*MeteringOperations, error) {
	var rows []struct {
		Kind     string  `db:"kind"`
		Provider string  `db:"provider"`
		Seconds  float64 `db:"seconds"`
		Outputs  int64   `db:"outputs"`
		Failed   int64   `db:"failed"`
	}
	if end.After(start) {
		if err := s.db.SelectContext(ctx, &rows, mediaOperationsSQL, stringArray(validIDs(tenantIDs)), start, end); err != nil {
			return nil, fmt.Errorf("store: unable to meter media work: %w", err)
		}
	}
	entries := map[string]*MeteringEntry{}
	providers := map[string]map[string]any{}
	for _, kind := range []string{OperationTranscoding, OperationTranscription, OperationTranslation} {
		entries[kind], providers[kind] = &MeteringEntry{}, map[string]any{}
	}
	for _, r := range rows {
		e, ok := entries[r.Kind]
		if !ok {
			continue
		}
		minutes := r.Seconds / 60
		e.Unit += minutes
		e.Count += r.Outputs
		providers[r.Kind][r.Provider] = map[string]any{"cost": 0, "unit": minutes, "count": r.Outputs, "failed": r.Failed}
	}
	for kind, e := range entries {
		e.ByProvider = loupe.JSONOf(providers[kind])
	}
	return &MeteringOperations{Transcoding: entries[OperationTranscoding],
		Transcription: entries[OperationTranscription], Translation: entries[OperationTranslation]}, nil
}
