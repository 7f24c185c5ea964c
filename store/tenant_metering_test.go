package store

import (
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
)

func TestMeteringPeriod(t *testing.T) {
	now := time.Date(2026, 5, 17, 13, 45, 0, 0, time.UTC)
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	ms := func(t time.Time) *int64 { v := t.UnixMilli(); return &v }
	cases := []struct {
		name        string
		start, end  *int64
		first, last time.Time
		wantErr     string
	}{
		{"defaults: this month to today", nil, nil, day(5, 1), day(5, 17), ""},
		{"end only: its month", nil, ms(day(3, 9)), day(3, 1), day(3, 9), ""},
		{"cut to days", ms(day(4, 2).Add(5 * time.Hour)), ms(day(4, 3).Add(23 * time.Hour)), day(4, 2), day(4, 3), ""},
		{"one day", ms(day(4, 2)), ms(day(4, 2)), day(4, 2), day(4, 2), ""},
		{"366 days", ms(day(1, 1)), ms(day(1, 1).AddDate(0, 0, 365)), day(1, 1), day(1, 1).AddDate(0, 0, 365), ""},
		{"367 days", ms(day(1, 1)), ms(day(1, 1).AddDate(0, 0, 366)), time.Time{}, time.Time{}, "the period spans 367 days; at most 366"},
		{"backwards", ms(day(4, 3)), ms(day(4, 2)), time.Time{}, time.Time{}, "endDay must not be before startDay"},
		{"start after the default end", ms(day(6, 1)), nil, time.Time{}, time.Time{}, "endDay must not be before startDay"},
	}
	for _, c := range cases {
		first, last, err := MeteringPeriod(c.start, c.end, now)
		got := ""
		if err != nil {
			got = err.(*loupe.Error).Message
		}
		if got != c.wantErr || c.wantErr == "" && (!first.Equal(c.first) || !last.Equal(c.last)) {
			t.Errorf("%s: %v..%v %q, want %v..%v %q", c.name, first, last, got, c.first, c.last, c.wantErr)
		}
	}
}
