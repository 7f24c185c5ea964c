package loupe

import (
	"errors"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// The tenant's system bookmarks and their folders (spec 2.11) and their
// rules. The store reads and writes them (db tags).

// Bookmark is a system bookmark (spec 2.11).
type Bookmark struct {
	TenantID         string         `db:"tenant_id"`
	ID               string         `db:"id"`
	Title            string         `db:"title"`
	Path             string         `db:"path"`
	Icon             string         `db:"icon"`
	IsFilterBookmark *bool          `db:"is_filter_bookmark"`
	ParentFolder     *string        `db:"parent_folder"`
	VisibleToGroups  pq.StringArray `db:"visible_to_groups"`
	SortKey          *string        `db:"sort_key"`
}

// BookmarkFolder is a folder of system bookmarks.
type BookmarkFolder struct {
	TenantID     string  `db:"tenant_id"`
	ID           string  `db:"id"`
	Title        string  `db:"title"`
	ParentFolder *string `db:"parent_folder"`
	SortKey      *string `db:"sort_key"`
}

// Limits on bookmarks and bookmark folders.
const (
	// MaxBookmarks bounds a tenant's system bookmarks (and so one replace).
	MaxBookmarks = 1000
	// MaxBookmarkFolders bounds a tenant's bookmark folders (one write
	// replaces them all).
	MaxBookmarkFolders = 1000
	// MaxBookmarkTitle, MaxBookmarkPath, MaxBookmarkIcon and
	// MaxBookmarkSortKey bound those fields, in characters.
	MaxBookmarkTitle   = 256
	MaxBookmarkPath    = 2048
	MaxBookmarkIcon    = 256
	MaxBookmarkSortKey = 256
	// MaxBookmarkGroups bounds the entries of visibleToGroups;
	// MaxBookmarkGroup one entry, in characters.
	MaxBookmarkGroups = 100
	MaxBookmarkGroup  = 256
)

// MsgFolderTreePath is the spec's answer to a bookmark create body that
// carries folderTreePath (section 7).
const MsgFolderTreePath = "folderTreePath should not be provided in API version 2 or later"

// bookmarkFolderIDRE is what a bookmark folder id may be: chosen by the
// client, like timed metadata ids.
var bookmarkFolderIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// Validate checks a bookmark about to be written and normalizes its group
// entries. Returns EINVALID naming the field.
func (b *Bookmark) Validate() error {
	if err := RequiredText("title", b.Title, MaxBookmarkTitle); err != nil {
		return err
	}
	if err := RequiredText("path", b.Path, MaxBookmarkPath); err != nil {
		return err
	}
	// An application route: one leading slash. "//host" and "/\host" are
	// refused because browsers read them as another site.
	if !strings.HasPrefix(b.Path, "/") || strings.HasPrefix(b.Path, "//") || strings.HasPrefix(b.Path, "/\\") {
		return Invalid("path must be an application route starting with a single /")
	}
	if strings.ContainsFunc(b.Path, unicode.IsControl) {
		return Invalid("path must not contain control characters")
	}
	if err := RequiredText("icon", b.Icon, MaxBookmarkIcon); err != nil {
		return err
	}
	if b.ParentFolder != nil && !bookmarkFolderIDRE.MatchString(*b.ParentFolder) {
		// No such folder can exist.
		return Invalid("parentFolder %q does not exist", *b.ParentFolder)
	}
	if b.SortKey != nil && utf8.RuneCountInString(*b.SortKey) > MaxBookmarkSortKey {
		return Invalid("sortKey: at most %d characters", MaxBookmarkSortKey)
	}
	if b.VisibleToGroups != nil {
		groups, err := normalizeGroups(b.VisibleToGroups)
		if err != nil {
			return err
		}
		b.VisibleToGroups = groups
	}
	return nil
}

// InvalidAt names the element of a list that err (an EINVALID) is about.
func InvalidAt(list string, i int, err error) error {
	var se *Error
	if !errors.As(err, &se) || se.Kind != EINVALID {
		return err
	}
	return Invalid("%s[%d]: %s", list, i, se.Message)
}

// normalizeGroups checks visibleToGroups entries (a group id or
// "<tenant_id>:<group_name>"), writes the UUID part in its canonical lower
// case so that it matches what the database prints, and drops repeats.
func normalizeGroups(groups []string) (pq.StringArray, error) {
	if len(groups) > MaxBookmarkGroups {
		return nil, Invalid("visibleToGroups: at most %d entries", MaxBookmarkGroups)
	}
	out := make(pq.StringArray, 0, len(groups))
	seen := map[string]bool{}
	for _, g := range groups {
		g = strings.TrimSpace(g)
		if g == "" || utf8.RuneCountInString(g) > MaxBookmarkGroup {
			return nil, Invalid("visibleToGroups: entries are group ids or <tenant_id>:<group_name>, 1 to %d characters", MaxBookmarkGroup)
		}
		if u, err := uuid.Parse(g); err == nil && len(g) == 36 {
			g = u.String()
		} else if len(g) > 37 && g[36] == ':' {
			if u, err := uuid.Parse(g[:36]); err == nil {
				g = u.String() + g[36:]
			}
		}
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out, nil
}

// Validate checks one bookmark folder (not its place in the set).
func (f *BookmarkFolder) Validate() error {
	if !bookmarkFolderIDRE.MatchString(f.ID) {
		return Invalid("id: 1 to 128 of A-Z a-z 0-9 _ . : -, got %q", f.ID)
	}
	if err := RequiredText("title", f.Title, MaxBookmarkTitle); err != nil {
		return err
	}
	if f.SortKey != nil && utf8.RuneCountInString(*f.SortKey) > MaxBookmarkSortKey {
		return Invalid("sortKey: at most %d characters", MaxBookmarkSortKey)
	}
	return nil
}

// ValidateBookmarkFolders checks a whole set of folders: each folder, unique
// ids, parents inside the set, no cycles.
func ValidateBookmarkFolders(folders []*BookmarkFolder) error {
	if len(folders) > MaxBookmarkFolders {
		return Invalid("at most %d bookmark folders", MaxBookmarkFolders)
	}
	parent := make(map[string]*string, len(folders))
	for i, f := range folders {
		if err := f.Validate(); err != nil {
			return InvalidAt("folders", i, err)
		}
		if _, dup := parent[f.ID]; dup {
			return Invalid("folders[%d]: duplicate id %q", i, f.ID)
		}
		parent[f.ID] = f.ParentFolder
	}
	for i, f := range folders {
		if f.ParentFolder == nil {
			continue
		}
		if _, ok := parent[*f.ParentFolder]; !ok {
			return Invalid("folders[%d]: parentFolder %q is not one of the folders", i, *f.ParentFolder)
		}
		// Walk up: a chain longer than the set is a cycle.
		at := f.ParentFolder
		for steps := 0; at != nil; steps++ {
			if *at == f.ID || steps > len(folders) {
				return Invalid("folders[%d]: folder %q is its own ancestor", i, f.ID)
			}
			at = parent[*at]
		}
	}
	return nil
}

// ValidateBookmarks checks a whole list of bookmarks (a replace): each
// bookmark, and their ids: a bookmark keeps its id when it is a UUID not
// used by an earlier one, else it gets a new one. Returns EINVALID naming
// the element.
func ValidateBookmarks(list []*Bookmark) error {
	if len(list) > MaxBookmarks {
		return Invalid("at most %d system bookmarks", MaxBookmarks)
	}
	seen := make(map[string]int, len(list))
	for i, b := range list {
		if err := b.Validate(); err != nil {
			return InvalidAt("bookmarks", i, err)
		}
		if u, err := uuid.Parse(b.ID); err == nil && ValidID(b.ID) {
			b.ID = u.String()
		} else {
			b.ID = NewID()
		}
		if j, dup := seen[b.ID]; dup {
			return Invalid("bookmarks[%d]: id %s is the id of bookmarks[%d] too", i, b.ID, j)
		}
		seen[b.ID] = i
	}
	return nil
}
