package scalar

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
)

// The JSON scalar. Its functions take the context (gqlgen calls a scalar's
// unmarshaler with it only when its marshaler is a ContextMarshaler too):
// the limit of a value depends on the input it arrives in.

// MarshalJSONValue writes a raw JSON value as it was stored.
func MarshalJSONValue(j loupe.JSON) graphql.ContextMarshaler { return j }

// UnmarshalJSONValue reads a JSON input, held to the limit of the input
// it arrives in (loupe.JSONInputs): by the input object's field name, or
// "field(argument)" for an argument of the field being run. Errors are
// InputErrors, so the answer names the field.
func UnmarshalJSONValue(ctx context.Context, v any) (loupe.JSON, error) {
	if v == nil {
		return nil, nil
	}
	j, err := loupe.CheckJSON(loupe.LimitOf(JSONInputName(ctx)), v)
	if err != nil {
		je := err.(*loupe.JSONError)
		return nil, &InputError{At: je.At, Message: je.Message}
	}
	return j, nil
}

// JSONInputName names the JSON input being read at ctx as loupe.JSONInputs
// does: the nearest input field above it, or field(argument) when the value
// is an argument itself.
func JSONInputName(ctx context.Context) string {
	pc := graphql.GetPathContext(ctx)
	for pc != nil && pc.Field == nil { // an element of a list: its list's name
		pc = pc.Parent
	}
	if pc == nil {
		return ""
	}
	if pc.Parent == nil && pc.ParentField != nil && pc.ParentField.Field.Field != nil {
		return pc.ParentField.Field.Name + "(" + *pc.Field + ")"
	}
	return *pc.Field
}
