package store

import "github.com/loupe-mam/loupe"

// SearchStatement is one statement of a search, to measure it alone
// (loupe-bench --scale runs them through pgbench beside the searches) and
// for the tests and the plans of docs/search.md: "hits", "estimate",
// "walk", "tier" or "list" (tier and limit where the statement takes
// them).
//
// Search makes the terms a query in the database; here a search string is
// taken as one prefix word ('text':*), which is what Postgres makes of a
// single plain word.
func SearchStatement(p *loupe.Principal, q SearchQuery, kind string, tier, limit int) (string, []any) {
	if q.Text != "" {
		tsq := "'" + q.Text + "':*"
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
