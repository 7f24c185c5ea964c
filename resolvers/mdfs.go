package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/loupe-mam/loupe"
)

// Metadata definition forms and option lists (spec 2.22, 2.23, 4.8): only
// admins write them (after the input is read strictly, as before the
// store checked it), everyone reads them.

// strictInput checks the argument name as the client wrote it against the
// JSON types of into. GraphQL input coercion turns 5 into "5" for a String
// (and, in some versions, "true" into true for a Boolean); a definition that
// every item is checked against is taken as typed. The schema has already
// refused unknown keys; into keeps the value gqlgen made of what passes.
// Returns EINVALID naming the field.
func strictInput[T any](ctx context.Context, name string, into *T) error {
	raw := rawArgument(ctx, name)
	if raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return loupe.Invalid("%s: %v", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var typed T
	if err := dec.Decode(&typed); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return loupe.Invalid("%s: must be %s", te.Field, jsonKind(te.Type))
		}
		return loupe.Invalid("%s: %v", name, err)
	}
	return nil
}

// jsonKind names the JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	default:
		return "a number"
	}
}
