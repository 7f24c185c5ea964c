package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/loaders"
	"github.com/loupe-mam/loupe/store"
)

// itemComments pages through an item's comments, oldest or newest first. First pages
// of a list of items go through CommentsOfItem (one query for the list);
// a page after a cursor is one query of its own.
func (r *Resolver) itemComments(ctx context.Context, obj *store.Item, first *int, after *string, orderBy *model.CommentOrder) (*model.CommentConnection, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	q := store.CommentQuery{ItemID: obj.ID, First: store.DefaultCommentPage,
		NewestFirst: orderBy != nil && *orderBy == model.CommentOrderCreatedDesc}
	if first != nil {
		q.First = *first
	}
	if after != nil && *after != "" {
		if q.After, err = decodeCursor(*after); err != nil {
			return nil, loupe.Invalid("invalid cursor (after / mScrollId)")
		}
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	var (
		page []*store.Comment
		more bool
	)
	if q.After == "" {
		key := loaders.CommentsKey{ItemID: obj.ID, First: q.First, NewestFirst: q.NewestFirst, Whole: !bareComments(ctx)}
		if page, err = r.loaders(ctx).CommentsOfItem.Load(ctx, key); err != nil {
			return nil, err
		}
		if more = len(page) > q.First; more {
			page = page[:q.First]
		}
	} else if page, more, err = r.Store.Comments(ctx, p.TenantID, q); err != nil {
		return nil, err
	}
	return commentConnection(page, more), nil
}

// commentConnection is a page of comments; mScrollId is the endCursor while
// more follow, null at the end. Its edges are made only when asked for
// (commentEdges): a grid asks each item's comments for nodes only.
func commentConnection(page []*store.Comment, more bool) *model.CommentConnection {
	c := &model.CommentConnection{Nodes: page, PageInfo: &model.PageInfo{HasNextPage: more}}
	if n := len(page); n > 0 {
		end := encodeCursor(page[n-1].ID)
		c.PageInfo.EndCursor = &end
		if more {
			c.MScrollID = c.PageInfo.EndCursor
		}
	}
	return c
}

// commentEdges are a page's comments with their cursors.
func commentEdges(c *model.CommentConnection) []*model.CommentEdge {
	edges := make([]*model.CommentEdge, len(c.Nodes))
	for i, cm := range c.Nodes {
		edges[i] = &model.CommentEdge{Cursor: encodeCursor(cm.ID), Node: cm}
	}
	return edges
}

func (r *Resolver) createComment(ctx context.Context, input store.CreateCommentInput) (*store.Comment, error) {
	p, err := r.onItem(ctx, input.ItemID, false, store.CommentItemNotFound(input.ItemID))
	if err != nil {
		return nil, err
	}
	return r.Store.CreateComment(ctx, p, &input)
}

func (r *Resolver) updateComment(ctx context.Context, input store.UpdateCommentInput) (*store.Comment, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.commentVisible(ctx, p, input.ID); err != nil {
		return nil, err
	}
	return r.Store.UpdateComment(ctx, p, &input)
}

func (r *Resolver) deleteComment(ctx context.Context, id string) (*store.Comment, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.commentVisible(ctx, p, id); err != nil {
		return nil, err
	}
	return r.Store.DeleteComment(ctx, p, id)
}

func (r *Resolver) reactToComment(ctx context.Context, input model.ReactToCommentInput) (*store.Comment, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.commentVisible(ctx, p, input.ID); err != nil {
		return nil, err
	}
	return r.Store.ReactToComment(ctx, p, input.ID, input.Reaction, input.Remove != nil && *input.Remove)
}

// commentVisible answers NOT_FOUND for a comment on an item the principal
// may not see, as for a missing comment.
func (r *Resolver) commentVisible(ctx context.Context, p *loupe.Principal, id string) error {
	if p.IsAdmin {
		return nil
	}
	visible, err := r.Store.CommentsByIDs(ctx, p, []string{id})
	if err != nil {
		return err
	}
	if _, ok := visible[id]; !ok {
		return loupe.NotFound()
	}
	return nil
}
