// Package scalar holds the GraphQL scalars that are not domain types.
package scalar

import (
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
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

// msgNotTime is the answer to anything but an RFC 3339 timestamp. It does
// not quote the value (which may be huge, or hold U+0000): the answer names
// the field (InputError).
const msgNotTime = "must be an RFC 3339 timestamp such as 2026-01-31T12:00:00Z"

// UnmarshalDateTime accepts RFC 3339 (any offset, any fraction).
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, &InputError{Message: msgNotTime}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &InputError{Message: msgNotTime}
	}
	return t.UTC(), nil
}
