package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
)

// ItemQuery selects a page of items. Paging is keyset on the item id, which
// is a UUIDv7 and so orders by creation time.
//
// With ChangedSince set it is the poll of changes instead: every item of the
// tenant (live, archived and in the recycle bin) whose modified_on is at or
// after ChangedSince, oldest change first, keyset on (modified_on, id) with
// AfterModified and After. InRecycleBin and Ascending do not apply then.
type ItemQuery struct {
	ItemType     string
	FolderID     string
	InRecycleBin bool
	Ascending    bool
	// After is the id the page starts after ("" for the first page).
	After string
	First int

	// ChangedSince selects the poll of changes (see above).
	ChangedSince *time.Time
	// AfterModified is the modified_on of the item After names, when polling.
	AfterModified time.Time
	// Lean reads lean items (itemLeanColumns): the caller serves only the
	// fields they carry.
	Lean bool
}

// MaxItemPage bounds one page of items.
const MaxItemPage = 100

// MaxItemPageBytes is the memory budget of one page of whole items: the
// page ends early (more follow, the cursor goes on from its last item) once
// the items read hold more than this of stored documents, whatever was
// stored — values written before today's input limits, or grown by the
// pipelines. A page always holds at least one item.
const MaxItemPageBytes = 8 << 20

// Validate checks the page size and ids.
func (q *ItemQuery) Validate() error {
	if q.First < 1 || q.First > MaxItemPage {
		return loupe.Invalid("first must be between 1 and %d", MaxItemPage)
	}
	if q.After != "" && !loupe.ValidID(q.After) {
		return loupe.Invalid("invalid cursor")
	}
	if q.ChangedSince != nil && q.After != "" && q.AfterModified.IsZero() {
		return loupe.Invalid("invalid cursor")
	}
	return nil
}

// sql builds the query from constant fragments. With a folder filter it walks
// item_folders_folder_idx in id order; without, the items primary key. The
// poll of changes walks items_modified_idx (tenant_id, modified_on, id).
//
// A non-admin's items are filtered by what the principal may see.
func (q *ItemQuery) sql(count bool, p *loupe.Principal) (string, []any) {
	var b strings.Builder
	args := []any{p.TenantID} // $1 is the tenant
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if count {
		b.WriteString("SELECT count(*) FROM items i")
	} else {
		columns := itemColumns
		if q.Lean {
			columns = itemLeanColumns
		}
		b.WriteString("SELECT " + columns + " FROM items i")
	}
	key, folder := "i.id", ""
	if q.FolderID != "" {
		folder = arg(q.FolderID)
		b.WriteString(" JOIN item_folders f ON f.tenant_id = i.tenant_id AND f.item_id = i.id AND f.folder_id = " + folder + "::uuid")
		key = "f.item_id"
	}
	b.WriteString(" WHERE i.tenant_id = $1")
	switch {
	case q.ChangedSince != nil:
		b.WriteString(" AND i.modified_on >= " + arg(*q.ChangedSince))
	case q.InRecycleBin:
		b.WriteString(" AND i.deleted_on IS NOT NULL")
	default:
		b.WriteString(" AND i.deleted_on IS NULL")
	}
	if q.ItemType != "" {
		b.WriteString(" AND i.item_type = " + arg(q.ItemType))
	}
	if !p.IsAdmin {
		args = append(args, p.UserID, aclTokens(p))
		u, t := len(args)-1, len(args)
		b.WriteString(" AND " + visibleSQL("i", u, t))
		if folder != "" {
			// Listing by a folder the principal may not see answers as for
			// a missing folder: nothing.
			b.WriteString(" AND EXISTS (SELECT 1 FROM items fo WHERE fo.tenant_id = $1 AND fo.id = " + folder +
				"::uuid AND " + admitsSQL("fo", u, t) + ")")
		}
	}
	if count {
		return b.String(), args
	}
	if q.ChangedSince != nil {
		// A row comparison, so that the index scan starts right after the
		// cursor instead of filtering.
		if q.After != "" {
			b.WriteString(" AND (i.modified_on, i.id) > (" + arg(q.AfterModified) + ", " + arg(q.After) + "::uuid)")
		}
		b.WriteString(" ORDER BY i.modified_on, i.id LIMIT " + arg(q.First+1))
		return b.String(), args
	}
	if q.After != "" {
		op := " < "
		if q.Ascending {
			op = " > "
		}
		b.WriteString(" AND " + key + op + arg(q.After) + "::uuid")
	}
	dir := " DESC"
	if q.Ascending {
		dir = " ASC"
	}
	b.WriteString(" ORDER BY " + key + dir + " LIMIT " + arg(q.First+1))
	return b.String(), args
}

// ListItems returns one page of items and whether more follow.
// Returns EINVALID for a bad page size or cursor.
func (s *Store) ListItems(ctx context.Context, p *loupe.Principal, q ItemQuery) ([]*Item, bool, error) {
	if err := q.Validate(); err != nil {
		return nil, false, err
	}
	if q.FolderID != "" && !loupe.ValidID(q.FolderID) {
		return []*Item{}, false, nil
	}
	query, args := q.sql(false, p)
	items, cut, err := selectWithin(ctx, s, itemDests(q.Lean), (*Item).docBytes, MaxItemPageBytes, query, args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: unable to list items: %w", err)
	}
	if err := decodeMedia(items...); err != nil {
		return nil, false, err
	}
	more := cut || len(items) > q.First
	if len(items) > q.First {
		items = items[:q.First]
	}
	return items, more, nil
}

// CountItems counts the items a query would page through.
func (s *Store) CountItems(ctx context.Context, p *loupe.Principal, q ItemQuery) (int, error) {
	if q.FolderID != "" && !loupe.ValidID(q.FolderID) {
		return 0, nil
	}
	query, args := q.sql(true, p)
	var n int
	if err := s.getPrepared(ctx, &n, query, args...); err != nil {
		return 0, fmt.Errorf("store: unable to count items: %w", err)
	}
	return n, nil
}
