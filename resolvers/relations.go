package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

// relationsPayload hints the related items, so that asking for their
// Relation.item costs one query.
func (r *Resolver) relationsPayload(ctx context.Context, rels []*store.Relation) *model.RelationsPayload {
	r.hints(ctx).HintRelations(rels)
	return &model.RelationsPayload{Relations: rels}
}
