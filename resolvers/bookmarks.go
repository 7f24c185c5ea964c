package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

// errPending marks resolvers being written (removed before the work lands).
var errPending = store.Errorf(store.EINTERNAL, "pending")

func (r *Resolver) createBookmark(ctx context.Context, in model.BookmarkInput) (*store.Bookmark, error) {
	return nil, errPending
}

func (r *Resolver) replaceBookmarks(ctx context.Context, in []*model.BookmarkInput) ([]*store.Bookmark, error) {
	return nil, errPending
}

func (r *Resolver) updateBookmark(ctx context.Context, id string, in model.BookmarkInput) (*store.Bookmark, error) {
	return nil, errPending
}

func (r *Resolver) deleteBookmark(ctx context.Context, id string) (*model.DeleteBookmarkPayload, error) {
	return nil, errPending
}

func (r *Resolver) setBookmarkFolders(ctx context.Context, folders []*model.BookmarkFolderInput) (*model.BookmarkFolders, error) {
	return nil, errPending
}

func (r *Resolver) visibleBookmarks(ctx context.Context) ([]*store.Bookmark, error) {
	return nil, errPending
}

func (r *Resolver) bookmark(ctx context.Context, id string) (*store.Bookmark, error) {
	return nil, errPending
}

func (r *Resolver) bookmarkFolders(ctx context.Context) (*model.BookmarkFolders, error) {
	return nil, errPending
}
