package store

import (
	"reflect"
	"strings"
	"testing"
)

// Each field table scans a column into the struct field whose db tag
// names it (sqlx's mapping), and each column set reads every column of the
// table it says it reads. store_scan_test.go holds the scans equal to sqlx's
// against rows of a database; this holds the tables without one.
func TestFieldTablesFollowDBTags(t *testing.T) {
	checkTable(t, "Item", itemFields)
	checkTable(t, "Comment", commentFields)
	checkTable(t, "Folder", folderFields)
	checkTable(t, "FolderEntry", entryFields)
}

func checkTable[T any](t *testing.T, name string, table []column[T]) {
	t.Run(name, func(t *testing.T) {
		var v T
		seen := map[string]bool{}
		for _, c := range table {
			col := columnName(c.SQL)
			if seen[col] {
				t.Errorf("%s: column %s twice", name, col)
			}
			seen[col] = true
			tag, ok := dbTagAt(reflect.ValueOf(&v).Elem(), reflect.ValueOf(c.Ptr(&v)).Pointer())
			if !ok {
				t.Errorf("%s: %s scans into no field of the struct", name, c.SQL)
			} else if tag != col {
				t.Errorf("%s: %s scans into the field tagged %q", name, col, tag)
			}
			if c.In == 0 {
				t.Errorf("%s: %s is in no column set", name, col)
			}
		}
	})
}

// columnName is the name a select expression's column gets: its alias, or
// the column without its table's alias.
func columnName(sql string) string {
	if i := strings.LastIndex(sql, " AS "); i >= 0 {
		return strings.TrimSpace(sql[i+4:])
	}
	if i := strings.IndexByte(sql, '.'); i >= 0 {
		return sql[i+1:]
	}
	return sql
}

// dbTagAt is the db tag of v's field (embedded structs included) at addr.
func dbTagAt(v reflect.Value, addr uintptr) (string, bool) {
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if f.Addr().Pointer() == addr && sf.Tag.Get("db") != "-" && sf.Tag.Get("db") != "" {
			return sf.Tag.Get("db"), true
		}
		if sf.Anonymous && f.Kind() == reflect.Struct {
			if tag, ok := dbTagAt(f, addr); ok {
				return tag, true
			}
		}
	}
	return "", false
}

// The column lists read as the queries were written: one line each, a
// multi-line expression on lines of its own.
func TestColumnList(t *testing.T) {
	cases := []struct {
		cols []string
		want string
	}{
		{[]string{"i.id"}, "\ni.id"},
		{[]string{"i.id", "i.title"}, "\ni.id, i.title"},
		{[]string{"i.id", "EXISTS (SELECT 1\n  FROM x) AS e", "i.title"}, "\ni.id,\nEXISTS (SELECT 1\n  FROM x) AS e, i.title"},
		{[]string{strings.Repeat("a", 60), strings.Repeat("b", 60)}, "\n" + strings.Repeat("a", 60) + ",\n" + strings.Repeat("b", 60)},
	}
	for _, c := range cases {
		if got := columnList(c.cols); got != c.want {
			t.Errorf("columnList(%q) = %q, want %q", c.cols, got, c.want)
		}
	}
}
