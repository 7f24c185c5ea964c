package scalar

import (
	"encoding/json"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
)

// ID is GraphQL's ID, read strictly. gqlgen's own reading takes a boolean
// ("true"), a fraction ("1.500000") or null ("null") for an id, and lets
// U+0000 through to the database (500 where a column is text, an answer
// keyed by the NUL where it is only looked up); the GraphQL spec's input
// coercion takes a string or an integer.

// MarshalID writes an id.
func MarshalID(s string) graphql.Marshaler { return graphql.MarshalID(s) }

// UnmarshalID accepts a string holding text any field may hold
// (loupe.ValidText), or an integer, as its decimal digits (or null, for an
// optional one).
func UnmarshalID(v any) (string, error) {
	switch v := v.(type) {
	case string:
		if err := loupe.ValidText(v); err != nil {
			return "", &InputError{Message: err.Message}
		}
		return v, nil
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
			return "", &InputError{Message: notID}
		}
		return string(v), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case nil:
		return "", nil
	default:
		return "", &InputError{Message: notID}
	}
}

const notID = "must be a string (an id)"
