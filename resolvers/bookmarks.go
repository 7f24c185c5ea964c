package resolvers

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// msgBookmarksAdminOnly is the 403 of a bookmark write by a non-admin.
const msgBookmarksAdminOnly = "Only administrators may change system bookmarks and bookmark folders."

// bookmarkAdmin returns the principal when it may write system bookmarks.
func bookmarkAdmin(ctx context.Context) (*loupe.Principal, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, loupe.Errorf(loupe.EFORBIDDEN, msgBookmarksAdminOnly)
	}
	return p, nil
}

// rawArgument is the argument name of the field being resolved as the
// client wrote it, variables filled in. Unlike the generated model it tells
// a key given as null from a key not given. nil when it cannot be read.
func rawArgument(ctx context.Context, name string) any {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	arg := fc.Field.Arguments.ForName(name)
	if arg == nil || arg.Value == nil {
		return nil
	}
	v, err := arg.Value.Value(graphql.GetOperationContext(ctx).Variables)
	if err != nil {
		return nil
	}
	return v
}

// GraphQL input coercion takes a number for an ID and a lone value for a
// one-element list; a bookmark body is taken as typed. (String and Boolean
// are strict already: graph/scalar, the validator.)
var (
	bookmarkLists = []string{"visibleToGroups"}
	bookmarkIDs   = []string{"id"}
)

// strictBookmark refuses a non-string for the ids and a lone value for the
// lists. raw is an input object as written; anything else is not checked
// (the schema did).
func strictBookmark(raw any, ids, lists []string) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range ids {
		if v, given := m[k]; given && v != nil {
			if _, ok := v.(string); !ok {
				return loupe.Invalid("%s: must be a string", k)
			}
		}
	}
	for _, k := range lists {
		if v, given := m[k]; given && v != nil {
			if _, ok := v.([]any); !ok {
				return loupe.Invalid("%s: must be an array of strings", k)
			}
		}
	}
	return nil
}

// bookmarkInvalidAt names the element of a list that err (an EINVALID) is about.
func bookmarkInvalidAt(list string, i int, err error) error {
	var se *loupe.Error
	if !errors.As(err, &se) || se.Kind != loupe.EINVALID {
		return err
	}
	return loupe.Invalid("%s[%d]: %s", list, i, se.Message)
}

// givenKeys are the keys of an input object as written (nil when unknown).
func givenKeys(raw any) map[string]bool {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys
}

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
func newBookmark(in *model.BookmarkInput, given map[string]bool) (*store.Bookmark, error) {
	if in.FolderTreePath != nil || given["folderTreePath"] {
		return nil, loupe.Invalid(store.MsgFolderTreePath)
	}
	b := &store.Bookmark{IsFilterBookmark: in.IsFilterBookmark, ParentFolder: in.ParentFolder, SortKey: in.SortKey}
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

// createBookmark adds a system bookmark; an id in the input is not used
// (create makes one; replaceBookmarks keeps ids).
func (r *Resolver) createBookmark(ctx context.Context, in model.BookmarkInput) (*store.Bookmark, error) {
	p, err := bookmarkAdmin(ctx)
	if err != nil {
		return nil, err
	}
	raw := rawArgument(ctx, "input")
	if err := strictBookmark(raw, bookmarkIDs, bookmarkLists); err != nil {
		return nil, err
	}
	b, err := newBookmark(&in, givenKeys(raw))
	if err != nil {
		return nil, err
	}
	return r.Store.CreateBookmark(ctx, p.TenantID, b)
}

// replaceBookmarks replaces all system bookmarks of the tenant.
func (r *Resolver) replaceBookmarks(ctx context.Context, in []*model.BookmarkInput) ([]*store.Bookmark, error) {
	p, err := bookmarkAdmin(ctx)
	if err != nil {
		return nil, err
	}
	if len(in) > store.MaxBookmarks {
		return nil, loupe.Invalid("at most %d system bookmarks", store.MaxBookmarks)
	}
	raw, _ := rawArgument(ctx, "input").([]any)
	list := make([]*store.Bookmark, len(in))
	for i, el := range in {
		var given map[string]bool
		if i < len(raw) {
			if err := strictBookmark(raw[i], bookmarkIDs, bookmarkLists); err != nil {
				return nil, bookmarkInvalidAt("bookmarks", i, err)
			}
			given = givenKeys(raw[i])
		}
		if list[i], err = newBookmark(el, given); err != nil {
			return nil, bookmarkInvalidAt("bookmarks", i, err)
		}
	}
	return r.Store.ReplaceBookmarks(ctx, p.TenantID, list)
}

// updateBookmark merges the fields given into a bookmark. A field given as
// null clears it (required fields cannot be cleared); the id, when given,
// must be the bookmark's.
func (r *Resolver) updateBookmark(ctx context.Context, id string, in model.BookmarkInput) (*store.Bookmark, error) {
	p, err := bookmarkAdmin(ctx)
	if err != nil {
		return nil, err
	}
	raw := rawArgument(ctx, "input")
	if err := strictBookmark(raw, bookmarkIDs, bookmarkLists); err != nil {
		return nil, err
	}
	given := givenKeys(raw)
	has := func(key string, set bool) bool { return set || given[key] }
	if has("folderTreePath", in.FolderTreePath != nil) {
		return nil, loupe.Invalid(store.MsgFolderTreePath)
	}
	if in.ID != nil && *in.ID != id {
		return nil, loupe.Invalid("id: the id of a bookmark cannot change")
	}
	for _, f := range requiredBookmarkFields(&in) {
		if given[f.name] && f.v == nil {
			return nil, loupe.Invalid("%s is required and cannot be null", f.name)
		}
	}
	return r.Store.UpdateBookmark(ctx, p.TenantID, id, func(b *store.Bookmark) error {
		if in.Title != nil {
			b.Title = *in.Title
		}
		if in.Path != nil {
			b.Path = *in.Path
		}
		if in.Icon != nil {
			b.Icon = *in.Icon
		}
		if has("isFilterBookmark", in.IsFilterBookmark != nil) {
			b.IsFilterBookmark = in.IsFilterBookmark
		}
		if has("parentFolder", in.ParentFolder != nil) {
			b.ParentFolder = in.ParentFolder
		}
		if has("visibleToGroups", in.VisibleToGroups != nil) {
			b.VisibleToGroups = in.VisibleToGroups
		}
		if has("sortKey", in.SortKey != nil) {
			b.SortKey = in.SortKey
		}
		return nil
	})
}

func (r *Resolver) deleteBookmark(ctx context.Context, id string) (*model.DeleteBookmarkPayload, error) {
	p, err := bookmarkAdmin(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.Store.DeleteBookmark(ctx, p.TenantID, id); err != nil {
		return nil, err
	}
	return &model.DeleteBookmarkPayload{ID: id}, nil
}

func (r *Resolver) setBookmarkFolders(ctx context.Context, folders []*model.BookmarkFolderInput) (*model.BookmarkFolders, error) {
	p, err := bookmarkAdmin(ctx)
	if err != nil {
		return nil, err
	}
	if len(folders) > store.MaxBookmarkFolders {
		return nil, loupe.Invalid("at most %d bookmark folders", store.MaxBookmarkFolders)
	}
	raw, _ := rawArgument(ctx, "folders").([]any)
	for i := range raw {
		if err := strictBookmark(raw[i], bookmarkIDs, nil); err != nil {
			return nil, bookmarkInvalidAt("folders", i, err)
		}
	}
	set := make([]*store.BookmarkFolder, len(folders))
	for i, f := range folders {
		set[i] = &store.BookmarkFolder{ID: f.ID, Title: f.Title, ParentFolder: f.ParentFolder, SortKey: f.SortKey}
	}
	out, err := r.Store.SetBookmarkFolders(ctx, p.TenantID, set)
	if err != nil {
		return nil, err
	}
	return &model.BookmarkFolders{Folders: out}, nil
}

// visibleBookmarks are the tenant's system bookmarks the caller may see.
func (r *Resolver) visibleBookmarks(ctx context.Context) ([]*store.Bookmark, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.Bookmarks(ctx, p)
}

// bookmark is one bookmark the caller may see; NOT_FOUND otherwise.
func (r *Resolver) bookmark(ctx context.Context, id string) (*store.Bookmark, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.Bookmark(ctx, p, id)
}

func (r *Resolver) bookmarkFolders(ctx context.Context) (*model.BookmarkFolders, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	out, err := r.Store.BookmarkFolders(ctx, p.TenantID)
	if err != nil {
		return nil, err
	}
	return &model.BookmarkFolders{Folders: out}, nil
}
