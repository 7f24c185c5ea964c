package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// commentConnection is a page of comments (continued: asked with an after
// cursor); mScrollId is the endCursor while more follow, null at the end.
// Its edges are made only when asked for (commentEdges): a grid asks each
// item's comments for nodes only.
func commentConnection(page []*store.Comment, continued, more bool) *model.CommentConnection {
	var ends []string
	if n := len(page); n > 0 {
		ends = []string{encodeCursor(page[0].ID), encodeCursor(page[n-1].ID)}
	}
	c := &model.CommentConnection{Nodes: page, PageInfo: pageInfo(continued, more, ends)}
	if more {
		c.MScrollID = c.PageInfo.EndCursor
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
