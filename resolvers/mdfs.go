package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/mdf"
	"github.com/loupe-mam/loupe/store"
)

// Metadata definition forms and option lists (spec 2.22, 2.23, 4.8). The
// store checks who may write them; the resolvers read the input strictly.

func (r *Resolver) mdfs(ctx context.Context) (*model.MdfCollection, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	list, err := r.Store.Mdfs(ctx, p.TenantID)
	if err != nil {
		return nil, err
	}
	return &model.MdfCollection{Total: len(list), Embedded: &model.MdfEmbedded{Collection: list}}, nil
}

func (r *Resolver) mdf(ctx context.Context, id string) (*mdf.Mdf, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.Mdf(ctx, p.TenantID, id)
}

func (r *Resolver) optionLists(ctx context.Context) (*model.OptionListCollection, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	list, err := r.Store.OptionLists(ctx, p.TenantID)
	if err != nil {
		return nil, err
	}
	return &model.OptionListCollection{Total: len(list), Embedded: &model.OptionListEmbedded{Collection: list}}, nil
}

func (r *Resolver) optionList(ctx context.Context, id string) (*store.OptionList, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.OptionList(ctx, p.TenantID, id)
}

func (r *Resolver) definitionChanges(ctx context.Context, subjectID *string, from, size *int) (*model.DefinitionChanges, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	f, n := 0, 50
	if from != nil {
		f = *from
	}
	if size != nil {
		n = *size
	}
	subject := ""
	if subjectID != nil {
		subject = *subjectID
	}
	hits, total, err := r.Store.DefinitionChanges(ctx, p, subject, f, n)
	if err != nil {
		return nil, err
	}
	return &model.DefinitionChanges{Total: total, Hits: hits}, nil
}

func (r *Resolver) createMdf(ctx context.Context, in mdf.MdfInput) (*model.MdfPayload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := strictInput(ctx, "input", &in); err != nil {
		return nil, err
	}
	m, err := r.Store.CreateMdf(ctx, p, &in)
	if err != nil {
		return nil, err
	}
	return &model.MdfPayload{Mdf: m}, nil
}

func (r *Resolver) updateMdf(ctx context.Context, in mdf.MdfInput) (*model.MdfPayload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := strictInput(ctx, "input", &in); err != nil {
		return nil, err
	}
	m, err := r.Store.UpdateMdf(ctx, p, &in)
	if err != nil {
		return nil, err
	}
	return &model.MdfPayload{Mdf: m}, nil
}

func (r *Resolver) deleteMdf(ctx context.Context, in model.DeleteMdfInput) (*model.DeleteMdfPayload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.Store.DeleteMdf(ctx, p, in.ID); err != nil {
		return nil, err
	}
	return &model.DeleteMdfPayload{ID: in.ID}, nil
}

func (r *Resolver) createOptionList(ctx context.Context, in store.OptionListInput) (*model.OptionListPayload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := strictInput(ctx, "input", &in); err != nil {
		return nil, err
	}
	o, err := r.Store.CreateOptionList(ctx, p, &in)
	if err != nil {
		return nil, err
	}
	return &model.OptionListPayload{OptionList: o}, nil
}

func (r *Resolver) updateOptionList(ctx context.Context, in store.OptionListInput) (*model.OptionListPayload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := strictInput(ctx, "input", &in); err != nil {
		return nil, err
	}
	o, err := r.Store.UpdateOptionList(ctx, p, &in)
	if err != nil {
		return nil, err
	}
	return &model.OptionListPayload{OptionList: o}, nil
}

func (r *Resolver) deleteOptionList(ctx context.Context, in model.DeleteOptionListInput) (*model.DeleteOptionListPayload, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.Store.DeleteOptionList(ctx, p, in.ID); err != nil {
		return nil, err
	}
	return &model.DeleteOptionListPayload{ID: in.ID}, nil
}

// metadataForm is ItemMetadata.form: the form of formId through the
// request's form loader, nil when the tenant has no such form.
func (r *Resolver) metadataForm(ctx context.Context, md *store.ItemMetadata) (*mdf.Mdf, error) {
	m, err := r.loaders(ctx).Mdf.Load(ctx, md.FormID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, nil
	}
	return m, err
}

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
