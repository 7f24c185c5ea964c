package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// itemRelations answers an item's relations in both directions, through
// RelationsOfItem (one query for a list of items), optionally of one type.
func (r *Resolver) itemRelations(ctx context.Context, obj *store.Item, relationType *string) ([]*store.Relation, error) {
	if relationType != nil && !store.ValidRelationType(*relationType) {
		return nil, loupe.Invalid("invalid relationType %q: 1 to 64 letters, digits, _ and -, starting with a letter", *relationType)
	}
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	l := r.loaders(ctx)
	all, err := l.RelationsOfItem.Load(ctx, obj.ID)
	if err != nil {
		return nil, err
	}
	out := []*store.Relation{}
	for _, rel := range all {
		if relationType != nil && rel.RelationType != *relationType {
			continue
		}
		if !p.IsAdmin {
			// Relations to items the principal may not see are not
			// shown (access control: invisible is missing).
			a, err := l.Access.Load(ctx, rel.RelatedItemID)
			if loupe.ErrorKind(err) == loupe.ENOTFOUND || (err == nil && !a.Visible) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, rel)
	}
	return out, nil
}

func (r *Resolver) setRelations(ctx context.Context, input model.SetRelationsInput) (*model.RelationsPayload, error) {
	p, err := r.onItem(ctx, input.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	if err := r.authorizeAll(ctx, p, input.RelatedItemIds, func(id string) error {
		return loupe.Invalid("item %s does not exist", id)
	}); err != nil {
		return nil, err
	}
	rels, err := r.Store.SetRelations(ctx, p, input.ItemID, input.RelationType, input.RelatedItemIds)
	if err != nil {
		return nil, err
	}
	return r.relationsPayload(ctx, rels), nil
}

func (r *Resolver) deleteRelation(ctx context.Context, input model.DeleteRelationInput) (*model.RelationsPayload, error) {
	p, err := r.onItem(ctx, input.ItemID, true, loupe.NotFound())
	if err != nil {
		return nil, err
	}
	rels, err := r.Store.DeleteRelation(ctx, p, input.ItemID, input.RelationType, input.RelatedItemID)
	if err != nil {
		return nil, err
	}
	return r.relationsPayload(ctx, rels), nil
}

// relationsPayload hints the related items, so that asking for their
// Relation.item costs one query.
func (r *Resolver) relationsPayload(ctx context.Context, rels []*store.Relation) *model.RelationsPayload {
	r.hints(ctx).HintRelations(rels)
	return &model.RelationsPayload{Relations: rels}
}

// relatedItem is the item at the other end, or null while it is in the
// recycle bin (the relation stays and comes back with the item).
func (r *Resolver) relatedItem(ctx context.Context, obj *store.Relation) (*store.Item, error) {
	items := r.loaders(ctx).Item
	if leanField(ctx) {
		items = r.loaders(ctx).ItemLean // a lean row serves what is asked
	}
	it, err := items.Load(ctx, obj.RelatedItemID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, nil
	}
	return it, err
}
