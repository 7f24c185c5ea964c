package resolvers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// Bulk metadata edits (updateItemsMetadata, docs/bulk-metadata.md): the
// input's two shapes as store updates, the access of every item from one
// read, and each edit's result as the error updateItemMetadata would have
// answered.

// metadataUpdatesOf is the input as store updates, in input order: its
// edits, or one update per id with the shared delta (checked once: a bad
// shared delta refuses the request); neither is no updates. Returns
// EINVALID for an input that gives both shapes, or half of the second.
func metadataUpdatesOf(in model.UpdateItemsMetadataInput) ([]store.MetadataUpdate, error) {
	switch {
	case in.Edits != nil && (in.Ids != nil || in.MetadataDelta != nil):
		return nil, loupe.Invalid("give edits, or ids with metadataDelta, not both")
	case in.Edits != nil:
		out := make([]store.MetadataUpdate, len(in.Edits))
		for i, e := range in.Edits {
			out[i] = store.MetadataUpdate{ItemID: e.ID, FormID: e.MetadataDelta.FormID, FormData: e.MetadataDelta.FormData,
				RequiredVersion: e.RequiredMetadataVersion}
		}
		return out, nil
	case in.Ids != nil && in.MetadataDelta == nil:
		return nil, loupe.Invalid("ids needs metadataDelta: the delta for every item of ids")
	case in.MetadataDelta != nil && in.Ids == nil:
		return nil, loupe.Invalid("metadataDelta needs ids: the items it is for")
	case in.Ids == nil:
		return nil, nil // nothing to edit
	}
	d := in.MetadataDelta
	if err := store.CheckMetadataDelta(d.FormID, d.FormData); err != nil {
		return nil, err
	}
	out := make([]store.MetadataUpdate, len(in.Ids))
	for i, id := range in.Ids {
		out[i] = store.MetadataUpdate{ItemID: id, FormID: d.FormID, FormData: d.FormData}
	}
	return out, nil
}

// refusedEdits is auth.Item, for a write, of each update's item, from one
// read of the access of them all: per update its refusal (NOT_FOUND for an
// item the principal may not see, FORBIDDEN for one it may not change) or
// nil. nil for an admin, without a query.
func (r *Resolver) refusedEdits(ctx context.Context, p *loupe.Principal, updates []store.MetadataUpdate) ([]error, error) {
	if p.IsAdmin || len(updates) == 0 {
		return nil, nil
	}
	// Ids as the database spells them (lower case), which the access read
	// is keyed by: an id in capitals names the same item.
	ids := make([]string, len(updates))
	for i, u := range updates {
		ids[i] = strings.ToLower(u.ItemID)
	}
	acc, err := r.Store.AccessOf(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	refused := make([]error, len(updates))
	for i, id := range ids {
		refused[i] = auth.Item(ctx, accessRead(acc), p, id, true, loupe.NotFound())
	}
	return refused, nil
}

// accessRead answers auth.Item from access read beforehand, for many items
// at once.
type accessRead map[string]store.ItemAccess

func (a accessRead) AccessOf(context.Context, *loupe.Principal, []string) (map[string]store.ItemAccess, error) {
	return a, nil
}

// itemsMetadataPayload answers each update's result, in order, under the id
// it was given with.
func itemsMetadataPayload(updates []store.MetadataUpdate, results []store.MetadataEditResult) (*model.UpdateItemsMetadataPayload, error) {
	out := &model.UpdateItemsMetadataPayload{Results: make([]*model.ItemMetadataEditResult, len(results))}
	for i, res := range results {
		r := &model.ItemMetadataEditResult{ID: updates[i].ItemID, Item: res.Item}
		if res.Err != nil {
			e, err := editError(res.Err)
			if err != nil {
				return nil, err
			}
			r.Error = e
			out.FailedCount++
		} else {
			out.WrittenCount++
		}
		out.Results[i] = r
	}
	return out, nil
}

// editError is an edit's error as a result shows it: the code, status,
// message and payload updateItemMetadata's GraphQL error would have had
// (graph.PresentError). An error of no client kind is the request's.
func editError(err error) (*model.ItemMetadataEditError, error) {
	if errors.Is(err, store.ErrNotWritten) {
		return &model.ItemMetadataEditError{Code: model.ItemMetadataEditErrorCodeNotWritten, Message: err.Error(),
			StatusCode: http.StatusFailedDependency}, nil
	}
	var le *loupe.Error
	if !errors.As(err, &le) {
		return nil, err
	}
	code := model.ItemMetadataEditErrorCode(graph.CodeOf(le.Kind))
	if !code.IsValid() {
		return nil, fmt.Errorf("resolvers: an edit failed with %w", err)
	}
	out := &model.ItemMetadataEditError{Code: code, Message: le.Message, StatusCode: graph.StatusOf(le.Kind)}
	if le.DeveloperMessage != "" {
		out.DeveloperMessage = &le.DeveloperMessage
	}
	if msgs, ok := le.Payload["messages"].([]string); ok {
		out.Messages = msgs
	}
	if v, ok := le.Payload["metadataVersion"].(int); ok {
		out.MetadataVersion = &v
	}
	return out, nil
}
