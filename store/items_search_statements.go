package store

import (
	"strings"

	"github.com/loupe-mam/loupe"
)

// SearchStatement is one statement of a search, to measure it alone
// (loupe-bench --scale runs them through pgbench beside the searches) and
// for the tests and the plans of docs/search.md: "hits", "estimate",
// "walk", "tier" or "list" (tier and limit where the statement takes
// them).
//
// Search makes the terms a query in the database; here a search string is
// taken as plain words split at blanks and quotes, each a prefix ('news':* &
// 'berlin':*), which is what Postgres makes of plain lowercase words.
func SearchStatement(p *loupe.Principal, q SearchQuery, kind string, tier, limit int) (string, []any) {
	words := strings.FieldsFunc(q.Text, func(r rune) bool { return r == ' ' || r == '"' })
	if len(words) > 0 {
		for i, w := range words {
			words[i] = "'" + strings.ReplaceAll(w, "'", "''") + "':*"
		}
		tsq := strings.Join(words, " & ")
		q.tsquery = &tsq
	}
	switch kind {
	case "hits":
		return q.hitsSQL(p, limit)
	case "estimate":
		return q.estimateSQL(p)
	case "walk":
		return q.walkSQL(p, tier, searchWalk+limit, limit)
	case "tier":
		return q.tierSQL(p, tier, limit)
	case "list":
		return q.listSQL(p, limit)
	}
	panic("unknown statement " + kind)
}
