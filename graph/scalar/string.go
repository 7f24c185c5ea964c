package scalar

import (
	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
)

// String is GraphQL's String, read strictly. gqlgen's own reading turns a
// number or a boolean given for a String into its text ("label": 5 becomes
// "5"), and the validator lets a JSON number through because it is a Go
// string underneath; a client that sends the wrong type has made a mistake
// and gets BAD_USER_INPUT, as the GraphQL spec's input coercion says.

// MarshalString writes a string.
func MarshalString(s string) graphql.Marshaler { return graphql.MarshalString(s) }

// UnmarshalString accepts only a string (or null, for an optional one),
// and no string holding U+0000: Postgres cannot store it in text, so it
// would fail the write with an internal error instead of naming the field.
// (Invalid UTF-8 never gets this far: the bodies are checked whole, see
// loupe.ValidText.)
func UnmarshalString(v any) (string, error) {
	switch v := v.(type) {
	case string:
		if err := loupe.ValidText(v); err != nil {
			return "", &InputError{Message: err.Message}
		}
		return v, nil
	case nil:
		return "", nil
	default:
		return "", &InputError{Message: "must be a string"}
	}
}

// InputError is input of the wrong type; the error presenter names the
// field from the error's path and answers BAD_USER_INPUT.
// At is where inside the value, for a JSON value (a.b[2]).
type InputError struct {
	At      string
	Message string
}

func (e *InputError) Error() string { return e.Message }
