package resolvers

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// Usage figures (docs/usage.md): admins of a tenant read their tenant's.

// maxMeteredTenants bounds the tenants of one system-scope metering.
const maxMeteredTenants = 100

// metering is the tenant's metering between two days. tenantIds may name
// the caller's tenant only: metering of several tenants is the system
// scope's, which names them (1 to 100).
func (r *Resolver) metering(ctx context.Context, startDay, endDay *int, tenantIDs []string) (*store.Metering, error) {
	tenants := tenantIDs
	if p := auth.From(ctx); p != nil && p.System {
		if len(tenantIDs) == 0 || len(tenantIDs) > maxMeteredTenants {
			return nil, loupe.Invalid("the system scope names 1 to %d tenantIds", maxMeteredTenants)
		}
		// A tenant named twice, or in two spellings, is metered once.
		seen := map[string]bool{}
		tenants = nil
		for _, id := range tenantIDs {
			if id = strings.ToLower(strings.TrimSpace(id)); !seen[id] {
				seen[id] = true
				tenants = append(tenants, id)
			}
		}
	} else {
		p, err := adminOnly(ctx, msgUsageAdminOnly)
		if err != nil {
			return nil, err
		}
		for _, id := range tenantIDs {
			if !strings.EqualFold(id, p.TenantID) {
				return nil, loupe.Forbidden("Metering of other tenants needs the system scope.")
			}
		}
		tenants = []string{p.TenantID}
	}
	now := time.Now()
	first, last, err := store.MeteringPeriod(int64Of(startDay), int64Of(endDay), now)
	if err != nil {
		return nil, err
	}
	return r.Store.Metering(ctx, tenants, first, last, now)
}

func int64Of(n *int) *int64 {
	if n == nil {
		return nil
	}
	v := int64(*n)
	return &v
}

// stats are the tenant's counters over a range.
func (r *Resolver) stats(ctx context.Context, dateRange *model.StatsDateRange) (*model.Stats, error) {
	p, err := adminOnly(ctx, msgUsageAdminOnly)
	if err != nil {
		return nil, err
	}
	rng := model.StatsDateRangeAll
	if dateRange != nil {
		rng = *dateRange
	}
	counters, err := r.Store.Stats(ctx, []string{p.TenantID}, statsSince(rng, time.Now()))
	if err != nil {
		return nil, err
	}
	counts := make(map[string]any, len(counters))
	for _, c := range counters {
		entry := map[string]any{"sum": c.Sum}
		if c.MaxHourly != nil {
			entry["maxHourly"] = c.MaxHourly
		}
		counts[c.Name] = entry
	}
	return &model.Stats{Counts: loupe.JSONOf(counts), Counters: counters, DateRange: rng}, nil
}

// statsSince is the first hour of a range: ranges are whole hours up to
// and including the current one (the zero time for ALL).
func statsSince(rng model.StatsDateRange, now time.Time) time.Time {
	hours := map[model.StatsDateRange]int{
		model.StatsDateRangeLast24Hours: 24,
		model.StatsDateRangeLast7Days:   7 * 24,
		model.StatsDateRangeLast30Days:  30 * 24,
		model.StatsDateRangeLast365Days: 365 * 24,
	}[rng]
	if hours == 0 {
		return time.Time{}
	}
	return now.UTC().Truncate(time.Hour).Add(-time.Duration(hours-1) * time.Hour)
}

// systemActivity is a page of the tenant's activity, hour by hour.
func (r *Resolver) systemActivity(ctx context.Context, first *int, after *string, filter *model.SystemActivityFilter) (*model.SystemActivity, error) {
	p, err := adminOnly(ctx, msgUsageAdminOnly)
	if err != nil {
		return nil, err
	}
	q := store.ActivityQuery{First: store.DefaultActivityPage}
	if first != nil {
		q.First = *first
	}
	if after != nil && *after != "" {
		if q.AfterHour, q.AfterType, err = decodeActivityCursor(*after); err != nil {
			return nil, err
		}
	}
	if filter != nil {
		q.Types = filter.Types
		if filter.Since != nil {
			q.Since = *filter.Since
		}
		if filter.Until != nil {
			q.Until = *filter.Until
		}
	}
	events, more, err := r.Store.SystemActivity(ctx, p.TenantID, q)
	if err != nil {
		return nil, err
	}
	out := &model.SystemActivity{Events: events}
	if more {
		last := events[len(events)-1]
		token := encodeActivityCursor(last.StartTime, last.Type)
		out.NextToken = &token
	}
	return out, nil
}

// An activity cursor is the keyset position of a page's last event: its
// hour (unix seconds) and type.
func encodeActivityCursor(hour time.Time, typ string) string {
	b, _ := json.Marshal([]any{hour.Unix(), typ})
	return encodeCursor(string(b))
}

func decodeActivityCursor(c string) (time.Time, string, error) {
	bad := loupe.Invalid("invalid cursor (after / nextToken)")
	s, err := decodeCursor(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	var pos []json.RawMessage
	if json.Unmarshal([]byte(s), &pos) != nil || len(pos) != 2 {
		return time.Time{}, "", bad
	}
	unix, err := strconv.ParseInt(string(pos[0]), 10, 64)
	var typ string
	if err != nil || json.Unmarshal(pos[1], &typ) != nil || unix <= 0 {
		return time.Time{}, "", bad
	}
	return time.Unix(unix, 0).UTC(), typ, nil
}
