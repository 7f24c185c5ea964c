package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
)

// The writes of configuration entities (storages, storage locations,
// generated-media locations, bookmarks, security settings) begin alike:
// only admins may, and the input object is read as the client wrote it,
// to tell a key given as null from one left out and to take ids and lists
// as typed. configInput is that preamble.

// writtenInput is an input object as the client wrote it.
type writtenInput struct {
	raw any
	// Given holds the keys written (nil when they cannot be told).
	Given map[string]bool
}

// configInput is the preamble of an admin's write of a configuration
// entity: the principal, once it is an admin (else FORBIDDEN with msg), and
// the input argument as written, its ids and lists given as other types
// refused (strictTypes).
func configInput(ctx context.Context, msg string, ids, lists []string) (*loupe.Principal, *writtenInput, error) {
	p, err := auth.RequireAdmin(ctx, msg)
	if err != nil {
		return nil, nil, err
	}
	raw := rawArgument(ctx, "input")
	if err := strictTypes(raw, ids, lists); err != nil {
		return nil, nil, err
	}
	return p, &writtenInput{raw: raw, Given: givenKeys(raw)}, nil
}

// notNull refuses the keys written as null that cannot be.
func (w *writtenInput) notNull(keys []string) error {
	m, _ := w.raw.(map[string]any)
	for _, k := range keys {
		if v, ok := m[k]; ok && v == nil {
			return loupe.Invalid("%s cannot be null", k)
		}
	}
	return nil
}

// keepID refuses an input's id that is not the id of the entity (a what)
// it changes.
func keepID(what, id string, given *string) error {
	if given != nil && *given != id {
		return loupe.Invalid("id: the id of a %s cannot change", what)
	}
	return nil
}

// rawArgument is the argument name of the field being resolved as the
// client wrote it, variables filled in. Unlike the generated model it tells
// a key given as null from a key not given. nil when it cannot be read.
func rawArgument(ctx context.Context, name string) any {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	arg := fc.Field.Arguments.ForName(name)
	if arg == nil || arg.Value == nil {
		return nil
	}
	v, err := arg.Value.Value(graphql.GetOperationContext(ctx).Variables)
	if err != nil {
		return nil
	}
	return v
}

// strictTypes refuses a non-string for the ids and a lone value for the
// lists: GraphQL input coercion takes a number for an ID and a lone value
// for a one-element list, a configuration is taken as typed. (String and
// Boolean are strict already: graph/scalar, the validator.) raw is an input
// object as written; anything else is not checked (the schema did).
func strictTypes(raw any, ids, lists []string) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range ids {
		if v, given := m[k]; given && v != nil {
			if _, ok := v.(string); !ok {
				return loupe.Invalid("%s: must be a string", k)
			}
		}
	}
	for _, k := range lists {
		if v, given := m[k]; given && v != nil {
			if _, ok := v.([]any); !ok {
				return loupe.Invalid("%s: must be an array of strings", k)
			}
		}
	}
	return nil
}

// givenKeys are the keys of an input object as written (nil when unknown).
func givenKeys(raw any) map[string]bool {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys
}
