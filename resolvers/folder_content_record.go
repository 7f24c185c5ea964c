package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

// contentRecord is the page as getFolderContent (rest/operations) selects
// it, in its order.
type contentRecord struct {
	Total     int           `json:"total"`
	Hits      []entryRecord `json:"hits"`
	From      int           `json:"from"`
	NextToken *string       `json:"nextToken"`
}

type entryRecord struct {
	ID            string       `json:"id"`
	Owner         string       `json:"owner"`
	FolderParents []string     `json:"folderParents"`
	ItemType      string       `json:"itemType"`
	Name          string       `json:"name"`
	CreatedOn     dateTime     `json:"createdOn"`
	VisibleTo     accessRecord `json:"visibleTo"`
	UpdatableBy   accessRecord `json:"updatableBy"`
}

type accessRecord struct {
	Level  store.AccessLevel `json:"level"`
	Groups []string          `json:"groups"`
}

func accessOf(a store.Access) accessRecord {
	return accessRecord{Level: a.Level, Groups: orEmpty(a.Groups)}
}

// folderContentRecord builds a page's record from the resolvers of its
// fields.
func (r *Resolver) folderContentRecord(ctx context.Context, c *model.FolderContent) (store.JSON, error) {
	rec := contentRecord{Total: c.Total, Hits: make([]entryRecord, len(c.Hits)), From: c.From, NextToken: c.NextToken}
	for i, h := range c.Hits {
		parents, err := r.FolderEntry().FolderParents(ctx, h)
		if err != nil {
			return nil, err
		}
		rec.Hits[i] = entryRecord{ID: h.ID, Owner: h.Owner, FolderParents: orEmpty(parents), ItemType: h.ItemType,
			Name: h.Name, CreatedOn: dateTime(h.CreatedOn), VisibleTo: accessOf(h.VisibleTo), UpdatableBy: accessOf(h.UpdatableBy)}
	}
	return encodeRecord(rec)
}
