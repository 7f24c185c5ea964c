package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) itemComments(ctx context.Context, obj *store.Item, first *int, after *string) (*model.CommentConnection, error) {
	return nil, errPending
}

func (r *Resolver) createComment(ctx context.Context, input store.CreateCommentInput) (*store.Comment, error) {
	return nil, errPending
}

func (r *Resolver) updateComment(ctx context.Context, input store.UpdateCommentInput) (*store.Comment, error) {
	return nil, errPending
}

func (r *Resolver) deleteComment(ctx context.Context, id string) (*store.Comment, error) {
	return nil, errPending
}

func (r *Resolver) reactToComment(ctx context.Context, input model.ReactToCommentInput) (*store.Comment, error) {
	return nil, errPending
}
