package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
)

// SearchQuery is a full-text search over the live items of a tenant
// (docs/search.md). Zero values do not filter.
type SearchQuery struct {
	// Text is the words to find; each matches as a prefix and all must
	// match. Empty (or without any word) lists everything, newest first.
	Text string
	// FolderID restricts the hits to the items directly in this folder, or
	// with IncludeSubfolders in it and its subfolders at any depth. A folder
	// that is not a live folder of the tenant matches nothing.
	FolderID          string
	IncludeSubfolders bool
	// IncludeFolders also lets folders be hits.
	IncludeFolders bool
	// From is the offset of the first hit, Size the page size.
	From int
	Size int
}

// Search limits.
const (
	MaxSearchPage = 100
	// MaxSearchFrom bounds the offset: deep offsets cost a scan of every
	// hit before them (the same window Elasticsearch allows by default).
	MaxSearchFrom = 10000
	// MaxSearchText bounds the search string, in characters.
	MaxSearchText = 1000
)

// Validate checks the paging and the search string, naming the parameter.
func (q *SearchQuery) Validate() error {
	if q.Size < 1 || q.Size > MaxSearchPage {
		return loupe.Invalid("itemsPerPage must be between 1 and %d", MaxSearchPage)
	}
	if q.From < 0 || q.From > MaxSearchFrom {
		return loupe.Invalid("from must be between 0 and %d", MaxSearchFrom)
	}
	if !utf8.ValidString(q.Text) {
		return loupe.Invalid("searchString must be valid UTF-8")
	}
	if err := loupe.ValidText(q.Text); err != nil {
		return loupe.Invalid("searchString: %s", err.Message)
	}
	if n := utf8.RuneCountInString(q.Text); n > MaxSearchText {
		return loupe.Invalid("searchString must be at most %d characters, got %d", MaxSearchText, n)
	}
	return nil
}

// scope is the set of folders whose direct items are in scope: the folder
// itself, and with subfolders every live folder below it, at most 64 levels
// down (so that a cycle in item_folders, which writes do not allow, could not
// run away). It starts only from a live folder of the tenant, so any other id
// scopes to nothing.
const (
	// %s is where a non-admin's scope requires the root folder to be
	// visible.
	searchFolderSQL = `scope(id) AS (
  SELECT r.id FROM items r
  WHERE r.tenant_id = $1 AND r.id = $5::uuid AND r.item_type = 'folder' AND r.deleted_on IS NULL%s)`

	searchSubfoldersSQL = `scope(id, depth) AS (
  SELECT r.id, 0 FROM items r
  WHERE r.tenant_id = $1 AND r.id = $5::uuid AND r.item_type = 'folder' AND r.deleted_on IS NULL%s
  UNION
  SELECT c.id, s.depth + 1 FROM scope s
  JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = s.id
  JOIN items c ON c.tenant_id = $1 AND c.id = l.item_id AND c.item_type = 'folder' AND c.deleted_on IS NULL
  WHERE s.depth < 64)`

	// searchInScopeSQL keeps the items linked to a folder in scope.
	searchInScopeSQL = ` AND EXISTS (SELECT 1 FROM item_folders l
  WHERE l.tenant_id = $1 AND l.item_id = i.id AND l.folder_id IN (SELECT s.id FROM scope s))`

	// The words are $2; loupe_search_query (migration 00005) turns them into
	// a prefix tsquery, NULL when they hold no word. The function is
	// immutable and $2 is known when Postgres plans, so it folds: without
	// words the match is true and the rank a constant NULL (the order is
	// then the primary key's, newest first); with words the planner sees
	// a constant tsquery and uses items_search_idx.
	searchMatchSQL = ` AND (loupe_search_query($2) IS NULL OR i.search @@ loupe_search_query($2))`
	searchRankSQL  = `ts_rank(i.search, loupe_search_query($2))`
	searchPageSQL  = ` ORDER BY rank DESC, i.id DESC LIMIT $3 OFFSET $4) p
JOIN items i ON i.tenant_id = $1 AND i.id = p.id
ORDER BY p.rank DESC, p.id DESC`
)

// sql builds the count or the page query from constant fragments: $1 is
// the tenant, $2 the words, $3 and $4 the limit and offset, $5 the folder.
//
// For a non-admin, the user and tokens follow, and the hits and the scope's
// root folder are filtered by what the principal may see.
func (q *SearchQuery) sql(count bool, p *loupe.Principal) (string, []any) {
	args := []any{p.TenantID, q.Text, q.Size, q.From}
	if q.FolderID != "" {
		args = append(args, q.FolderID)
	}
	visible, rootVisible := "", ""
	if !p.IsAdmin {
		args = append(args, p.UserID, aclTokens(p))
		visible = " AND " + visibleSQL("i", len(args)-1, len(args))
		rootVisible = " AND " + admitsSQL("r", len(args)-1, len(args))
	}
	var b strings.Builder
	if q.FolderID != "" {
		if q.IncludeSubfolders {
			b.WriteString("WITH RECURSIVE " + fmt.Sprintf(searchSubfoldersSQL, rootVisible) + "\n")
		} else {
			b.WriteString("WITH " + fmt.Sprintf(searchFolderSQL, rootVisible) + "\n")
		}
	}
	// The page is chosen on ids and rank alone; the item columns are read
	// for the page's rows only, not for every row an offset skips.
	if count {
		b.WriteString("SELECT count(*) FROM items i")
	} else {
		b.WriteString("SELECT " + itemColumns + " FROM (SELECT i.id, " + searchRankSQL + " AS rank FROM items i")
	}
	// deleted_on IS NULL also makes the partial GIN index usable.
	b.WriteString(" WHERE i.tenant_id = $1 AND i.deleted_on IS NULL")
	if !q.IncludeFolders {
		b.WriteString(" AND i.item_type <> 'folder'")
	}
	if q.FolderID != "" {
		b.WriteString(searchInScopeSQL)
	}
	b.WriteString(searchMatchSQL)
	b.WriteString(visible)
	if count {
		// Every placeholder must be used; the count needs no page.
		b.WriteString(" AND $3::int IS NOT NULL AND $4::int IS NOT NULL")
		return b.String(), args
	}
	b.WriteString(searchPageSQL)
	return b.String(), args
}

// Search returns the total number of hits and one page of them, best match
// first (then newest), or newest first without words.
// Returns EINVALID for bad paging or an unusable search string.
func (s *Store) Search(ctx context.Context, p *loupe.Principal, q SearchQuery) (int, []*Item, error) {
	if err := q.Validate(); err != nil {
		return 0, nil, err
	}
	items := []*Item{}
	if q.FolderID != "" && !loupe.ValidID(q.FolderID) {
		return 0, items, nil
	}
	s.countUsage(p.TenantID, MetricSearchesPerformed, 1)
	query, args := q.sql(true, p)
	var total int
	if err := s.getPrepared(ctx, &total, query, args...); err != nil {
		return 0, nil, fmt.Errorf("store: unable to count search hits: %w", err)
	}
	if q.From >= total {
		return total, items, nil
	}
	query, args = q.sql(false, p)
	if err := s.selectPrepared(ctx, &items, query, args...); err != nil {
		return 0, nil, fmt.Errorf("store: unable to search items: %w", err)
	}
	if err := decodeMedia(items...); err != nil {
		return 0, nil, err
	}
	return total, items, nil
}
