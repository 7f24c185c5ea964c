package store

import (
	"database/sql"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

func TestWeightQuery(t *testing.T) {
	cases := []struct{ in, w, want string }{
		{`'news':*`, "A", `'news':*A`},
		{`'news'`, "AB", `'news':AB`},
		{`( 'sunset':* ) & ( 'red' <-> 'car' )`, "ABC", `( 'sunset':*ABC ) & ( 'red':ABC <-> 'car':ABC )`},
		{`'it''s':* & 'a\\b'`, "A", `'it''s':*A & 'a\\b':A`},
		{`'x:y' <2> 'z'`, "A", `'x:y':A <2> 'z':A`},
		{`'old':*B`, "A", `'old':*A`},
		{`'q':D`, "AB", `'q':AB`},
	}
	for _, c := range cases {
		if got := weightQuery(c.in, c.w); got != c.want {
			t.Errorf("weightQuery(%q, %q) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// TestWeightedQueryEqualsFilteredVector holds the tier computed with
// weighted queries (weightQuery) equal to the tier's vector as the GIN
// indexes hold it (ts_filter): for every query and vector, and every
// tier, both say the same.
func TestWeightedQueryEqualsFilteredVector(t *testing.T) {
	db, err := sql.Open("postgres", DSN(pgtest.DB(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vectors := []string{
		`setweight(to_tsvector('simple', 'Red car at sunset'), 'A') || setweight(to_tsvector('simple', 'clip.mov'), 'B')`,
		`setweight(to_tsvector('simple', 'Interview Berlin'), 'A') || setweight(to_tsvector('simple', 'news red'), 'C') || setweight(to_tsvector('simple', 'car in berlin'), 'D')`,
		`setweight(to_tsvector('simple', 'it''s a red'), 'B') || setweight(to_tsvector('simple', 'car a\b'), 'C')`,
		`setweight(to_tsvector('simple', 'red'), 'A') || setweight(to_tsvector('simple', 'car'), 'B')`,
		`to_tsvector('simple', 'news of the day')`, // weight D throughout
	}
	queries := []struct {
		words   string
		phrases []string
	}{
		{"red", nil}, {"red car", nil}, {"", []string{"red car"}}, {"berl news", nil}, {"it's", nil},
		{"news", []string{"of the"}}, {"sunset", []string{"red car"}}, {`a\b`, nil}, {"car", []string{"in berlin"}},
	}
	filters := []string{"{a}", "{a,b}", "{a,b,c}"}
	for _, q := range queries {
		var tsq sql.NullString
		if err := db.QueryRow(`SELECT loupe_search_query_2($1, $2)::text`, q.words, stringArray(q.phrases)).Scan(&tsq); err != nil {
			t.Fatal(err)
		}
		if !tsq.Valid {
			t.Fatalf("%q: no query", q.words)
		}
		for _, v := range vectors {
			for tier, w := range searchTierWeights {
				var filtered, weighted bool
				if err := db.QueryRow(`SELECT ts_filter(`+v+`, $1::"char"[]) @@ $2::tsquery, (`+v+`) @@ $3::tsquery`,
					filters[tier], tsq.String, weightQuery(tsq.String, w)).Scan(&filtered, &weighted); err != nil {
					t.Fatalf("%s / %s: %v", tsq.String, weightQuery(tsq.String, w), err)
				}
				if filtered != weighted {
					t.Errorf("query %s, vector %s, tier %d: ts_filter says %v, the weighted query %v", tsq.String, v, tier, filtered, weighted)
				}
			}
		}
	}
}
