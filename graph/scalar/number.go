package scalar

import (
	"context"
	"encoding/json"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// Int, Int64 and Float are GraphQL's Int and Float, read strictly. gqlgen's
// own reading takes a numeric string for a number ("startTime": "5" becomes
// 5); a client that sends a string, or a boolean, where a number belongs has
// made a mistake and gets BAD_USER_INPUT, as for String. Numbers arrive as
// json.Number from variables (and REST bodies), as int64 or float64 from
// literals, and as int from Go callers.

const (
	notInt     = "must be an integer"
	intRange   = "must be an integer from -9223372036854775808 to 9223372036854775807"
	notNumber  = "must be a number"
	floatRange = "must be a finite number"
)

// MarshalInt writes an int.
func MarshalInt(i int) graphql.Marshaler { return graphql.MarshalInt(i) }

// UnmarshalInt accepts only a JSON number that is an integer in range (or
// null, for an optional one).
func UnmarshalInt(v any) (int, error) {
	n, err := toInt64(v)
	if err != nil {
		return 0, err
	}
	if int64(int(n)) != n {
		return 0, &InputError{Message: intRange}
	}
	return int(n), nil
}

// MarshalInt64 writes an int64.
func MarshalInt64(i int64) graphql.Marshaler { return graphql.MarshalInt64(i) }

// UnmarshalInt64 accepts only a JSON number that is an integer in range (or
// null, for an optional one).
func UnmarshalInt64(v any) (int64, error) { return toInt64(v) }

func toInt64(v any) (int64, error) {
	switch v := v.(type) {
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return 0, &InputError{Message: intRange}
			}
			return 0, &InputError{Message: notInt}
		}
		return n, nil
	case float64:
		// A Go caller's JSON decoded without UseNumber: whole numbers only.
		if v != math.Trunc(v) || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, &InputError{Message: notInt}
		}
		if v < -(1<<63) || v >= 1<<63 {
			return 0, &InputError{Message: intRange}
		}
		return int64(v), nil
	case nil:
		return 0, nil
	default:
		return 0, &InputError{Message: notInt}
	}
}

// MarshalFloatContext writes a float64; NaN and infinities are an error,
// as with gqlgen's Float.
func MarshalFloatContext(f float64) graphql.ContextMarshaler {
	return graphql.MarshalFloatContext(f)
}

// UnmarshalFloatContext accepts only a finite JSON number (or null, for an
// optional one).
func UnmarshalFloatContext(_ context.Context, v any) (float64, error) {
	var f float64
	switch v := v.(type) {
	case int:
		f = float64(v)
	case int32:
		f = float64(v)
	case int64:
		f = float64(v)
	case float64:
		f = v
	case json.Number:
		var err error
		f, err = strconv.ParseFloat(string(v), 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return 0, &InputError{Message: floatRange}
			}
			return 0, &InputError{Message: notNumber}
		}
	case nil:
		return 0, nil
	default:
		return 0, &InputError{Message: notNumber}
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, &InputError{Message: floatRange}
	}
	return f, nil
}
