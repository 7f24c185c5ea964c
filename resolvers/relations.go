package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) itemRelations(ctx context.Context, obj *store.Item, relationType *string) ([]*store.Relation, error) {
	return nil, errPending
}

func (r *Resolver) setRelations(ctx context.Context, input model.SetRelationsInput) (*model.RelationsPayload, error) {
	return nil, errPending
}

func (r *Resolver) deleteRelation(ctx context.Context, input model.DeleteRelationInput) (*model.RelationsPayload, error) {
	return nil, errPending
}

func (r *Resolver) relatedItem(ctx context.Context, obj *store.Relation) (*store.Item, error) {
	return nil, errPending
}
