package store

import (
	"context"
)

// The hottest reads scan their rows by hand: sqlx maps columns to struct
// fields by reflection on every row (a fifth of a grid page's server CPU,
// with its allocations; a tenth of a folder content page's). The dests
// come from each entity's field table (store_fields.go), in the order of its
// column list; store_scan_test.go holds each equal to what sqlx's mapping by name
// reads, so a table entry that scans into the wrong field fails.

// dests are an item's fields in itemColumns order.
func (i *Item) dests() []any { return itemWhole.Dests(i) }

// leanDests are a lean item's fields in itemLeanColumns order.
func (i *Item) leanDests() []any { return itemLean.Dests(i) }

// dests are a comment's fields in commentColumns order.
func (c *Comment) dests() []any { return commentWhole.Dests(c) }

// bareDests are a bare comment's fields in commentBareColumns order.
func (c *Comment) bareDests() []any { return commentBare.Dests(c) }

// dests are a folder's fields in folderColumns order.
func (f *Folder) dests() []any { return folderWhole.Dests(f) }

// dests are a content entry's fields in entryColumns order.
func (e *FolderEntry) dests() []any { return entryWhole.Dests(e) }

// selectScanned runs a prepared query and scans each row into a new T
// through dests (no rows: an empty slice).
func selectScanned[T any](ctx context.Context, s *Store, dests func(*T) []any, query string, args ...any) ([]*T, error) {
	out, _, err := selectWithin(ctx, s, dests, nil, 0, query, args...)
	return out, err
}

// selectWithin is selectScanned within a memory budget (size nil: none):
// it stops reading rows once those read weigh more than budget by size (at
// least one row is read), and says whether it stopped early. The rows not
// read are never held: the driver discards them as the result is closed.
func selectWithin[T any](ctx context.Context, s *Store, dests func(*T) []any, size func(*T) int, budget int, query string, args ...any) ([]*T, bool, error) {
	st, err := s.prepared(ctx, query)
	if err != nil {
		return nil, false, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []*T{} // no rows: an empty list, not nil
	used := 0
	for rows.Next() {
		if size != nil && used > budget {
			return out, true, nil
		}
		v := new(T)
		if err := rows.Scan(dests(v)...); err != nil {
			return nil, false, err
		}
		out = append(out, v)
		if size != nil {
			used += size(v)
		}
	}
	return out, false, rows.Err()
}

// itemDests picks the dests of query's columns: lean or whole items.
func itemDests(lean bool) func(*Item) []any {
	if lean {
		return (*Item).leanDests
	}
	return (*Item).dests
}
