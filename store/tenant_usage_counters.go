package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// This file holds the usage figures of tenants (docs/usage.md): hourly
// counters and active users, written in batches by the in-process recorder
// (internal/usage), and what is read from them: statistics (spec 2.26) and
// system activity. Stored files and metering (2.25) are in tenant_metering.go.

// Counters the store and the server produce.
const (
	MetricCommentsCreated   = "comments_created"
	MetricCommentsAssigned  = "comments_assigned"
	MetricCommentsResolved  = "comments_resolved"
	MetricSearchesPerformed = "searches_performed"
	MetricUniqueUsers       = "unique_users"
	MetricItemsCreated      = "items_created"
	MetricItemsDeleted      = "items_deleted"
	// Shares (docs/shares.md): shares_created_<item|folder>_<view|upload>
	// per share made, tokens per link made, uploads per outsider upload.
	MetricSharesTokens           = "shares_tokens"
	MetricSharesUploadsInitiated = "shares_uploads_initiated"
	// Media work done, one per run that switched its results in (the
	// minutes are metering's, 2.25).
	MetricMediaProcessed            = "media_processed"
	MetricTranscriptionsCompleted   = "transcriptions_completed"
	MetricTranslationsCompleted     = "translations_completed"
	MetricTextDetectionsCompleted   = "text_detections_completed"
	MetricPersonDetectionsCompleted = "person_detections_completed"
)

// operationMetrics are the counters of the kinds of metered media work.
var operationMetrics = map[string]string{
	OperationTranscoding: MetricMediaProcessed, OperationTranscription: MetricTranscriptionsCompleted,
	OperationTranslation: MetricTranslationsCompleted, OperationTextDetection: MetricTextDetectionsCompleted,
	OperationPersonDetection: MetricPersonDetectionsCompleted,
}

// StatsCounters is every counter the statistics answer, in order: the
// spec's (2.26), then Loupe's own. Render sequences are not a feature of
// Loupe yet: their counters stay at 0.
var StatsCounters = []string{
	MetricCommentsCreated, MetricCommentsAssigned, MetricCommentsResolved,
	"render_sequence_in_cloud", "render_sequence_to_new_item", "render_sequence_to_placeholder",
	"render_sequence_in_gateway",
	MetricSearchesPerformed,
	"shares_created_folder_upload", "shares_created_folder_view", "shares_created_item_upload",
	"shares_created_item_view", MetricSharesTokens, MetricSharesUploadsInitiated,
	MetricUniqueUsers,
	MetricItemsCreated, MetricItemsDeleted,
	MetricMediaProcessed, MetricTranscriptionsCompleted, MetricTranslationsCompleted,
	MetricTextDetectionsCompleted, MetricPersonDetectionsCompleted,
}

// HourFormat is how statistics name an hour (UTC): YYYY-MM-DD-HH.
const HourFormat = "2006-01-02-15"

// UsageRecorder counts what happened, in memory, and writes it to the store
// in batches (internal/usage). Count must not block on the database: it runs
// on request paths.
type UsageRecorder interface {
	Count(tenantID, metric string, n int)
	// Flush writes what was counted so far; reads of usage call it first,
	// so that they see everything this process counted.
	Flush(ctx context.Context) error
}

// RecordUsageWith makes the store count its events (comments, searches,
// items) with r. Call it once, before serving.
func (s *Store) RecordUsageWith(r UsageRecorder) { s.usage = r }

// countUsage counts an event that has happened (after its commit).
func (s *Store) countUsage(tenantID, metric string, n int) {
	if s.usage != nil && n > 0 {
		s.usage.Count(tenantID, metric, n)
	}
}

// countOperation counts a run of media work of kind (none for a run that
// did no metered work).
func (s *Store) countOperation(tenantID, kind string) {
	if m := operationMetrics[kind]; m != "" {
		s.countUsage(tenantID, m, 1)
	}
}

// flushUsage writes what this process counted, before a read of usage.
func (s *Store) flushUsage(ctx context.Context) error {
	if s.usage == nil {
		return nil
	}
	if err := s.usage.Flush(ctx); err != nil {
		return fmt.Errorf("store: unable to write usage counters: %w", err)
	}
	return nil
}

// UsageCount is a number of events of one tenant in one hour.
type UsageCount struct {
	TenantID string
	Metric   string
	Hour     time.Time
	Count    int64
}

// ActiveUser is a user who made a request in an hour.
type ActiveUser struct {
	TenantID string
	UserID   string
	Hour     time.Time
}

const (
	// Rows are sorted so that concurrent writers (several instances) lock
	// them in one order and cannot deadlock.
	addUsageSQL = `
INSERT INTO usage_hourly AS u (tenant_id, metric, hour, count)
SELECT t, m, to_timestamp(h), c FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bigint[]) AS x(t, m, h, c)
ORDER BY t, m, h
ON CONFLICT (tenant_id, metric, hour) DO UPDATE SET count = u.count + EXCLUDED.count`

	// addActiveUsersSQL notes who was active in an hour; users new to
	// that hour raise its unique_users counter (a user seen by several
	// instances counts once).
	addActiveUsersSQL = `
WITH fresh AS (
    INSERT INTO usage_users (tenant_id, hour, user_id)
    SELECT t, to_timestamp(h), u FROM unnest($1::uuid[], $2::bigint[], $3::uuid[]) AS x(t, h, u)
    ORDER BY t, h, u
    ON CONFLICT DO NOTHING
    RETURNING tenant_id, hour
)
INSERT INTO usage_hourly AS u (tenant_id, metric, hour, count)
SELECT tenant_id, '` + MetricUniqueUsers + `', hour, count(*) FROM fresh GROUP BY tenant_id, hour ORDER BY 1, 3
ON CONFLICT (tenant_id, metric, hour) DO UPDATE SET count = u.count + EXCLUDED.count`
)

// AddUsage adds counts and active users in one transaction (the recorder's
// flush). Counts of one (tenant, metric, hour) must come once.
func (s *Store) AddUsage(ctx context.Context, counts []UsageCount, users []ActiveUser) error {
	if len(counts) == 0 && len(users) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if len(counts) > 0 {
			tenants, metrics := make([]string, len(counts)), make([]string, len(counts))
			hours, ns := make([]int64, len(counts)), make([]int64, len(counts))
			for i, c := range counts {
				tenants[i], metrics[i], hours[i], ns[i] = c.TenantID, c.Metric, c.Hour.Unix(), c.Count
			}
			if _, err := tx.ExecContext(ctx, addUsageSQL, stringArray(tenants), pq.StringArray(metrics),
				pq.Int64Array(hours), pq.Int64Array(ns)); err != nil {
				return fmt.Errorf("store: unable to add usage counts: %w", err)
			}
		}
		if len(users) > 0 {
			tenants, hours, ids := make([]string, len(users)), make([]int64, len(users)), make([]string, len(users))
			for i, u := range users {
				tenants[i], hours[i], ids[i] = u.TenantID, u.Hour.Unix(), u.UserID
			}
			if _, err := tx.ExecContext(ctx, addActiveUsersSQL, stringArray(tenants), pq.Int64Array(hours),
				stringArray(ids)); err != nil {
				return fmt.Errorf("store: unable to add active users: %w", err)
			}
		}
		return nil
	})
}

// StatsCounter is one counter of the statistics: its sum over the range
// and its busiest hour (nil when the sum is 0).
type StatsCounter struct {
	Name      string
	Sum       int64
	MaxHourly *HourlyMax
}

// HourlyMax is the busiest hour of a counter.
type HourlyMax struct {
	Value int64  `json:"value"`
	Hour  string `json:"hour"`
}

const (
	// statsSQL sums each counter from since on and finds its busiest hour
	// (the earliest of equals); the hours of several tenants add up.
	statsSQL = `
WITH h AS (
    SELECT metric, hour, sum(count)::bigint AS n
    FROM usage_hourly
    WHERE tenant_id = ANY($1::uuid[]) AND hour >= $2
    GROUP BY metric, hour
)
SELECT metric, sum(n)::bigint AS sum,
       (array_agg(n ORDER BY n DESC, hour))[1] AS max_value,
       (array_agg(hour ORDER BY n DESC, hour))[1] AS max_hour
FROM h GROUP BY metric`

	// Over a range, a user active in many hours is one user.
	uniqueUsersSQL = `
SELECT count(*) FROM (
    SELECT DISTINCT tenant_id, user_id FROM usage_users WHERE tenant_id = ANY($1::uuid[]) AND hour >= $2
) u`
)

// Stats answers every counter of StatsCounters, and any other counter the
// tenants have, for the hours from since on (the zero time: all of them).
// unique_users sums to the distinct users of the range; its busiest hour is
// the hour with the most distinct users.
func (s *Store) Stats(ctx context.Context, tenantIDs []string, since time.Time) ([]*StatsCounter, error) {
	if err := s.flushUsage(ctx); err != nil {
		return nil, err
	}
	tenantIDs = validIDs(tenantIDs)
	var rows []struct {
		Metric   string    `db:"metric"`
		Sum      int64     `db:"sum"`
		MaxValue int64     `db:"max_value"`
		MaxHour  time.Time `db:"max_hour"`
	}
	if err := s.db.SelectContext(ctx, &rows, statsSQL, stringArray(tenantIDs), since); err != nil {
		return nil, fmt.Errorf("store: unable to read usage counters: %w", err)
	}
	byName := make(map[string]*StatsCounter, len(rows))
	for _, r := range rows {
		c := &StatsCounter{Name: r.Metric, Sum: r.Sum}
		if r.Sum > 0 {
			c.MaxHourly = &HourlyMax{Value: r.MaxValue, Hour: r.MaxHour.UTC().Format(HourFormat)}
		}
		byName[r.Metric] = c
	}
	if c := byName[MetricUniqueUsers]; c != nil {
		if err := s.db.GetContext(ctx, &c.Sum, uniqueUsersSQL, stringArray(tenantIDs), since); err != nil {
			return nil, fmt.Errorf("store: unable to count unique users: %w", err)
		}
	}
	out := make([]*StatsCounter, 0, len(StatsCounters)+len(byName))
	for _, name := range StatsCounters {
		c := byName[name]
		if c == nil {
			c = &StatsCounter{Name: name}
		}
		delete(byName, name)
		out = append(out, c)
	}
	for _, r := range rows { // counters of other names, in the order read
		if c := byName[r.Metric]; c != nil {
			out = append(out, c)
		}
	}
	return out, nil
}
