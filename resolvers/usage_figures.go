package resolvers

import (
	"time"

	"github.com/loupe-mam/loupe/graph/model"
)

// Usage figures (docs/usage.md): admins of a tenant read their tenant's.

// maxMeteredTenants bounds the tenants of one system-scope metering.
const maxMeteredTenants = 100

func int64Of(n *int) *int64 {
	if n == nil {
		return nil
	}
	v := int64(*n)
	return &v
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
