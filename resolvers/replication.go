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

// transferConnection is a page of transfers, their sources and items
// hinted so that nested fields of the page are one query each.
func transferConnection(ctx context.Context, list []*store.Transfer, more bool) *model.TransferConnection {
	out := &model.TransferConnection{Edges: make([]*model.TransferEdge, len(list)), Nodes: list,
		PageInfo: &model.PageInfo{HasNextPage: more}}
	var sources, items []string
	for i, t := range list {
		out.Edges[i] = &model.TransferEdge{Cursor: t.ID, Node: t}
		if t.SourceID != nil {
			sources = append(sources, *t.SourceID)
		}
		items = append(items, t.ItemID)
	}
	l := loaders.For(ctx)
	l.ReplicationSource.Hint(sources...)
	l.HintItemIDs(items...)
	if len(list) > 0 {
		end := list[len(list)-1].ID
		out.PageInfo.EndCursor = &end
		if more {
			out.NextToken = end
		}
	}
	return out
}
