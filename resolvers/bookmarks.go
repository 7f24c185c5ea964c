package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
)

// The ids and lists of a bookmark input, taken as typed (strictTypes).
var (
	bookmarkLists = []string{"visibleToGroups"}
	bookmarkIDs   = []string{"id"}
)

// requiredBookmarkFields are the required fields of an input, in the order
// errors name them.
func requiredBookmarkFields(in *model.BookmarkInput) []struct {
	name string
	v    *string
} {
	return []struct {
		name string
		v    *string
	}{{"title", in.Title}, {"path", in.Path}, {"icon", in.Icon}}
}

// newBookmark is the bookmark an input describes, for create and replace.
// given holds the keys as written (nil: those of in that are not nil).
func newBookmark(in *model.BookmarkInput, given map[string]bool) (*loupe.Bookmark, error) {
	if in.FolderTreePath != nil || given["folderTreePath"] {
		return nil, loupe.Invalid(loupe.MsgFolderTreePath)
	}
	b := &loupe.Bookmark{IsFilterBookmark: in.IsFilterBookmark, ParentFolder: in.ParentFolder, SortKey: in.SortKey}
	for _, f := range requiredBookmarkFields(in) {
		if f.v == nil {
			return nil, loupe.Invalid("%s is required", f.name)
		}
	}
	b.Title, b.Path, b.Icon = *in.Title, *in.Path, *in.Icon
	if in.VisibleToGroups != nil {
		b.VisibleToGroups = in.VisibleToGroups
	}
	if in.ID != nil {
		b.ID = *in.ID
	}
	return b, nil
}

// visibleBookmarks are the tenant's system bookmarks the caller may see.
func (r *Resolver) visibleBookmarks(ctx context.Context) ([]*loupe.Bookmark, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.Bookmarks(ctx, p)
}
