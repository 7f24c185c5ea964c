package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/loaders"
	"github.com/loupe-mam/loupe/store"
)

// msgReplicationAdminOnly answers non-admins on replication and transfers:
// they name storage locations and the keys files lie under, which only
// admins see (docs/replication.md).
const msgReplicationAdminOnly = "Only administrators may read and change replication sources and read transfers."

// replicationOf is the {sources} container, the sources' counts hinted so
// that a list's transferCounts is one query.
func replicationOf(ctx context.Context, sources []*loupe.ReplicationSource) *model.Replication {
	ids := make([]string, len(sources))
	for i, s := range sources {
		ids[i] = s.ID
	}
	loaders.For(ctx).TransferCountsOfSource.Hint(ids...)
	return &model.Replication{Sources: sources}
}

// transferConnection is a page of transfers (continued: asked with an after
// cursor), their sources and items hinted so that nested fields of the page
// are one query each.
func transferConnection(ctx context.Context, list []*store.Transfer, continued, more bool) *model.TransferConnection {
	out := &model.TransferConnection{Edges: make([]*model.TransferEdge, len(list)), Nodes: list}
	var sources, items []string
	cursors := make([]string, len(list))
	for i, t := range list {
		cursors[i] = t.ID
		out.Edges[i] = &model.TransferEdge{Cursor: t.ID, Node: t}
		if t.SourceID != nil {
			sources = append(sources, *t.SourceID)
		}
		items = append(items, t.ItemID)
	}
	l := loaders.For(ctx)
	l.ReplicationSource.Hint(sources...)
	l.HintItemIDs(items...)
	out.PageInfo = pageInfo(continued, more, cursors)
	if more && out.PageInfo.EndCursor != nil {
		out.NextToken = *out.PageInfo.EndCursor
	}
	return out
}
