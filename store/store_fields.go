package store

import "strings"

// An entity's field table (itemFields, commentFields, folderFields,
// entryFields, next to the entity's queries) is the one list of what its
// rows hold: per column, the select expression, the Go field it is scanned
// into and the GraphQL field it answers. The column lists of the queries,
// the hand scans (store_scan.go says why there are any) and the GraphQL fields a
// lean or bare row serves are all derived from it, once, when the package
// is initialised: a column added to the table is selected, scanned and, if
// it is in the lean set, served, with nothing else to keep in step.
// store_scan_test.go holds each table equal to sqlx's mapping by the struct's db
// tags.

// column is one entry of T's field table.
type column[T any] struct {
	// SQL is the select expression, with its AS alias when the expression
	// is not the column itself (the alias is the struct field's db tag).
	SQL string
	// GQL is the GraphQL field this column alone answers, read as it is
	// (a struct field of the same value): a row of a column set serves the
	// GQL fields of its columns. "" when none does (the column feeds a
	// resolver, a method, or only Go code), or when serving it from a lean
	// row is not wanted (the entry says why).
	GQL string
	// Ptr is where the column is scanned into.
	Ptr func(*T) any
	// In says which column sets read it.
	In columnSet
}

// columnSet says which of an entity's column sets read a column.
type columnSet uint8

const (
	// inWhole is the entity's whole row (itemColumns, commentColumns, …).
	inWhole columnSet = 1 << iota
	// inLean is its lean row (items) or bare row (comments): the few
	// columns a list whose selection asks for nothing else is served from.
	inLean
	// inBoth is read by either.
	inBoth = inWhole | inLean
)

// fieldSet is what one column set of a table derives.
type fieldSet[T any] struct {
	// Columns is the select list, as the queries splice it in.
	Columns string
	// Dests are a T's fields in Columns order, for Scan.
	Dests func(*T) []any
	// GQL are the GraphQL fields a row read with Columns answers directly.
	GQL []string
}

// fieldsOf derives the column set in of table. It runs once per set, at
// init: the scan path only calls the Ptr functions (no reflection, one
// slice per row as before).
func fieldsOf[T any](table []column[T], in columnSet) fieldSet[T] {
	var cols []string
	var ptrs []func(*T) any
	var gql []string
	for _, c := range table {
		if c.In&in == 0 {
			continue
		}
		cols = append(cols, c.SQL)
		ptrs = append(ptrs, c.Ptr)
		if c.GQL != "" {
			gql = append(gql, c.GQL)
		}
	}
	return fieldSet[T]{
		Columns: columnList(cols),
		Dests: func(v *T) []any {
			out := make([]any, len(ptrs))
			for i, p := range ptrs {
				out[i] = p(v)
			}
			return out
		},
		GQL: gql,
	}
}

// columnList joins select expressions as the queries were written by hand:
// starting on a new line, wrapped before 100 characters, so that the
// statements read the same in logs and pg_stat_statements.
func columnList(cols []string) string {
	var b strings.Builder
	line := 0
	for i, c := range cols {
		switch {
		case i == 0:
			b.WriteByte('\n')
		case line+2+len(c) > 100 || strings.Contains(c, "\n"):
			b.WriteString(",\n")
			line = 0
		default:
			b.WriteString(", ")
			line += 2
		}
		b.WriteString(c)
		line += len(c)
		if j := strings.LastIndexByte(c, '\n'); j >= 0 {
			line = len(c) - j - 1
		}
	}
	return b.String()
}
