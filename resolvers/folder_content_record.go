package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

// folderContentRecord builds a page's record from the resolvers of its
// fields: what getFolderContent (rest/operations) selected, in its order —
// total, hits {id owner folderParents itemType name createdOn visibleTo
// {level groups} updatableBy {level groups}}, from, nextToken.
func (r *Resolver) folderContentRecord(ctx context.Context, c *model.FolderContent) (loupe.JSON, error) {
	w := make(jsonw, 0, 256+len(c.Hits)*320)
	w = append(w.key("total", true).int(c.Total).key("hits", false), '[')
	for i, h := range c.Hits {
		parents, err := r.FolderEntry().FolderParents(ctx, h)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			w = append(w, ',')
		}
		w = w.key("id", true).str(h.ID).key("owner", false).str(h.Owner).
			key("folderParents", false).strs(parents).key("itemType", false).str(h.ItemType).
			key("name", false).str(h.Name).key("createdOn", false).time(h.CreatedOn).
			key("visibleTo", false).access(h.VisibleTo).key("updatableBy", false).access(h.UpdatableBy)
		w = append(w, '}')
	}
	w = append(w, ']')
	w = w.key("from", false).int(c.From).key("nextToken", false).optStr(c.NextToken)
	return loupe.JSON(append(w, '}')), nil
}

// access writes an access rule as the Access type does.
func (w jsonw) access(a store.Access) jsonw {
	w = w.key("level", true).str(string(a.Level)).key("groups", false).strs(a.Groups)
	return append(w, '}')
}
