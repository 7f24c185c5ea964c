// Package scalar holds the GraphQL scalars that are not domain types.
package scalar

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
)

// Layout is how timestamps are written: RFC 3339 in UTC with milliseconds,
// the shape JavaScript's toISOString gives and integrations of the original
// service parse.
const Layout = "2006-01-02T15:04:05.000Z07:00"

// MarshalDateTime writes a time in UTC.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(t.UTC().Format(Layout))) //nolint:errcheck
	})
}

// UnmarshalDateTime accepts RFC 3339 (any offset, any fraction).
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, loupe.Invalid("DateTime must be an RFC 3339 string, got %T", v)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, loupe.Invalid("invalid timestamp %q: expected RFC 3339 such as 2026-01-31T12:00:00Z", s)
	}
	return t.UTC(), nil
}
