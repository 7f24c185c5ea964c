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

// strictTypes (bookmarks, storages) refuses a non-string for the ids and a lone value for the
// lists. raw is an input object as written; anything else is not checked
// (the schema did).
func strictTypes(raw any, ids, lists []string) error {
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

// visibleBookmarks are the tenant's system bookmarks the caller may see.
func (r *Resolver) visibleBookmarks(ctx context.Context) ([]*store.Bookmark, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.Bookmarks(ctx, p)
}
