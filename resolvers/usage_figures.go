package resolvers

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/loupe-mam/loupe"
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
