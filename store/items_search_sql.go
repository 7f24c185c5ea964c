package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe"
)

// The statements of a search (docs/search.md) are built from the constant
// fragments below. $1 is always the tenant; for a non-admin $2 and $3 are
// the user and the tokens (visibleSQL); every other value gets the next
// placeholder as its fragment is added (the %s of the fragments), so a
// statement holds only the placeholders it uses.
//
// The search terms are made a tsquery once per search
// (searchTsquerySQL: loupe_search_query_2, migration 00036) and passed to
// every statement as text cast to tsquery. The statements are not
// prepared: each is planned with its parameters, so the cast folds to a
// constant tsquery and the planner weighs the real words (the GIN index
// for a rare word, the newest-first walk for a common one), which a
// generic plan of a prepared statement could not. (Folding the function
// itself in each statement cost a plan of its body per occurrence: the
// planning of the first statement took more than its execution.)
const (
	// The scope is the set of folders whose direct items are in scope:
	// the folder itself, and with subfolders every live folder below it, at
	// most 64 levels down (so that a cycle in item_folders, which writes do
	// not allow, could not run away). It starts only from a live folder of
	// the tenant, so any other id scopes to nothing. %[1]s is the folder,
	// %[2]s where a non-admin's scope requires the root to be visible.
	searchFolderSQL = `scope(id) AS (
  SELECT r.id FROM items r
  WHERE r.tenant_id = $1 AND r.id = %[1]s::uuid AND r.item_type = 'folder' AND r.deleted_on IS NULL%[2]s)`

	searchSubfoldersSQL = `scope(id, depth) AS (
  SELECT r.id, 0 FROM items r
  WHERE r.tenant_id = $1 AND r.id = %[1]s::uuid AND r.item_type = 'folder' AND r.deleted_on IS NULL%[2]s
  UNION
  SELECT c.id, s.depth + 1 FROM scope s
  JOIN item_folders l ON l.tenant_id = $1 AND l.folder_id = s.id
  JOIN items c ON c.tenant_id = $1 AND c.id = l.item_id AND c.item_type = 'folder' AND c.deleted_on IS NULL
  WHERE s.depth < 64)`

	// deleted_on IS NULL also makes the partial indexes usable.
	searchLiveSQL      = ` WHERE i.tenant_id = $1 AND i.deleted_on IS NULL`
	searchNoFoldersSQL = ` AND i.item_type <> 'folder'`
	// searchInScopeSQL keeps the items linked to a folder in scope.
	searchInScopeSQL = ` AND EXISTS (SELECT 1 FROM item_folders l
  WHERE l.tenant_id = $1 AND l.item_id = i.id AND l.folder_id IN (SELECT s.id FROM scope s))`

	searchTypesSQL       = ` AND i.item_type = ANY(%s::text[])`
	searchStatesSQL      = ` AND i.transcoding_state = ANY(%s::text[])`
	searchCreatedFromSQL = ` AND i.created_on >= %s::timestamptz`
	searchCreatedToSQL   = ` AND i.created_on < %s::timestamptz`
	// A form field's value equals the text (a number or a boolean by its
	// JSON text), or a multiple-choice value holds it. %[1]s is the field,
	// %[2]s the value.
	searchMetadataSQL = ` AND (i.metadata_form_data ->> %[1]s::text = %[2]s::text
  OR (jsonb_typeof(i.metadata_form_data -> %[1]s::text) = 'array'
      AND i.metadata_form_data -> %[1]s::text @> jsonb_build_array(%[2]s::text)))`

	// searchTsquerySQL makes the search terms a tsquery (migration
	// 00036): $1 the loose words, $2 the phrases; NULL without any word.
	// The text is Postgres' canonical form of a query it built from plain
	// text: passed back as a parameter, never written into a statement.
	searchTsquerySQL = `SELECT loupe_search_query_2($1::text, $2::text[])::text`
	// searchMatchSQL keeps the hits of any tier (%s is the terms).
	searchMatchSQL = ` AND i.search @@ %s`
	// searchTierCaseSQL is a hit's tier (%[1]s..%[3]s are the terms
	// weighted to the first three tiers: items_search_weights.go; %[4]s
	// the vector): the first whose weights hold every term.
	searchTierCaseSQL = `CASE WHEN %[4]s @@ %[1]s THEN 0 WHEN %[4]s @@ %[2]s THEN 1 WHEN %[4]s @@ %[3]s THEN 2 ELSE 3 END`

	// searchHitsSQL is the first statement of every search. Its CTE hits
	// (searchHitsCTESQL) holds the newest hits, at most the bound plus one
	// (%[2]s): the tenant's items that meet the conditions (%[1]s), newest
	// first, with the facets' columns (%[3]s) when asked. Ordered so, a
	// common word walks items_search_recent_idx and stops after the bound
	// plus one hits, whatever the table's size, while a rare one is read
	// from the GIN index and sorted (the other way round, a GIN bitmap of
	// millions of items, costs in proportion to the table).
	//
	// searchHitsSQL's verbs: %[1]s the limit, %[2]s the page size, %[3]s
	// the offset, %[4]s the tier as the first sort key ("" without words),
	// %[5]s the facets, %[6]s the tier. It answers:
	//   - total: how many hits (the bound plus one: more than the bound);
	//   - hit: when the hits are at most the bound, the page, cut here:
	//     by tier then newest first (the sub-select on total keeps the
	//     tiers from being computed when they are more);
	//   - tier: when they are more, how many of the newest hits
	//     (searchTierSample) fall in each tier: searchPage walks for a
	//     tier found there and reads one that is not from its index;
	//   - the facets' counts, when asked (searchFacetsSQL).
	searchHitsCTESQL = `hits AS MATERIALIZED (SELECT i.id, i.created_on%[3]s FROM items i%[1]s
  ORDER BY i.created_on DESC, i.id DESC LIMIT %[2]s)`
	searchHitsSQL = `SELECT 'total' AS kind, '' AS value, count(*) AS n, NULL::uuid AS id FROM hits
UNION ALL (SELECT 'hit', '', 0, h.id FROM hits h
  WHERE (SELECT count(*) FROM hits) < %[1]s
  ORDER BY %[4]sh.created_on DESC, h.id DESC LIMIT %[2]s OFFSET %[3]s)
UNION ALL (SELECT 'tier', t.tier::text, count(*), NULL FROM (
    SELECT %[6]s AS tier FROM (SELECT * FROM hits LIMIT ` + searchTierSampleText + `) h
    WHERE (SELECT count(*) FROM hits) >= %[1]s) t
  GROUP BY t.tier)%[5]s`

	// searchHitsVectorSQL is the column the hits keep with words: their
	// vectors, so that their tiers are computed without reading the items
	// again.
	searchHitsVectorSQL = `, i.search`

	// searchFacetColumnsSQL are the columns the facets count; %s is the
	// facet field.
	searchFacetColumnsSQL = `, i.item_type, i.metadata_form_id, i.metadata_form_data -> %s::text AS v`
	// searchFacetsSQL counts the facets of the hits found. A multiple-
	// choice value counts once for each of its elements.
	searchFacetsSQL = `
UNION ALL (SELECT 'itemType', item_type, count(*), NULL FROM hits GROUP BY 2 ORDER BY 3 DESC, 2 LIMIT ` + searchFacetGroupsText + `)
UNION ALL (SELECT 'form', metadata_form_id, count(*), NULL FROM hits GROUP BY 2 ORDER BY 3 DESC, 2 LIMIT ` + searchFacetGroupsText + `)
UNION ALL (SELECT 'field', f.value, count(*), NULL FROM (
    SELECT v #>> '{}' AS value FROM hits WHERE jsonb_typeof(v) IN ('string', 'number', 'boolean')
    UNION ALL SELECT jsonb_array_elements_text(v) FROM hits WHERE jsonb_typeof(v) = 'array') f
  GROUP BY 2 ORDER BY 3 DESC, 2 LIMIT ` + searchFacetValuesText + `)`

	searchTierSampleText  = "1000"
	searchFacetGroupsText = "100"
	searchFacetValuesText = "20"

	// searchEstimateSQL is the planner's estimate of the hits (the
	// statement is planned, not run).
	searchEstimateSQL = `SELECT 1 FROM items i%s`

	// searchWalkSQL reads the newest hits of one tier (%[2]s, its
	// condition on w) among the newest items that meet the filters (%[1]s)
	// along items_search_recent_idx: it stops once it has %[4]s of them,
	// or after %[3]s items. For a tier that holds many items (what a
	// common word finds) it ends after a few rows whatever the table's
	// size; one that finds fewer than it needs answers what it has and
	// searchTierSQL reads the tier from its index instead.
	searchWalkSQL = `SELECT w.id FROM (
  SELECT i.id, i.created_on, i.search FROM items i%[1]s ORDER BY i.created_on DESC, i.id DESC LIMIT %[3]s) w
WHERE %[2]s ORDER BY w.created_on DESC, w.id DESC LIMIT %[4]s`

	// searchTierSQL reads the newest hits of one tier (searchTierCTESQL:
	// %s, its conditions; the planner uses the tier's GIN index), %s of
	// them.
	// The hits are collected before they are sorted, so that the planner
	// cannot walk items_search_recent_idx looking for a tier it only
	// guesses the size of.
	searchTierCTESQL = `tier AS MATERIALIZED (SELECT i.id, i.created_on FROM items i%s)`
	searchTierSQL    = `SELECT id FROM tier ORDER BY created_on DESC, id DESC LIMIT %s`

	// searchListSQL is the page of a search without words: every item
	// that meets the filters, newest first (%[1]s, %[2]s as above).
	searchListSQL = `SELECT i.id FROM items i%[1]s ORDER BY i.created_on DESC, i.id DESC LIMIT %[2]s`
)

// searchItemsSQL reads the page's items (in any order: the caller orders
// them).
var searchItemsSQL = `SELECT ` + itemColumns + ` FROM items i
WHERE i.tenant_id = $1 AND i.id = ANY($2::uuid[]) AND i.deleted_on IS NULL`

// searchTierVectors are the tiers' vectors, best first: the search vector
// cut to the weights of the title (A), then also the file name (B), then
// also the metadata values (C), then whole (D: transcripts too). Each is
// indexed (migration 00036) with exactly this expression: a tier read
// from its index names it. A hit's tier is the first vector that holds all
// of its terms, which a row already read answers with the terms weighted
// (searchTierWeights: items_search_weights.go).
var searchTierVectors = []string{
	`ts_filter(i.search, '{a}')`,
	`ts_filter(i.search, '{a,b}')`,
	`ts_filter(i.search, '{a,b,c}')`,
	`i.search`,
}

// searchTierWeights are the weights of the first three tiers' vectors.
var searchTierWeights = [3]string{"A", "AB", "ABC"}

// searchSQL is a statement being built: its text and its arguments.
type searchSQL struct {
	args []any
	// user and tokens are the placeholders of a non-admin's principal (0
	// for an admin).
	user, tokens int
}

// arg appends v and returns its placeholder.
func (b *searchSQL) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

func newSearchSQL(p *loupe.Principal) *searchSQL {
	b := &searchSQL{args: []any{p.TenantID}}
	if !p.IsAdmin {
		b.arg(p.UserID)
		b.arg(aclTokens(p))
		b.user, b.tokens = 2, 3
	}
	return b
}

// with is the statement's WITH clause: the folder scope when there is
// one, then the statement's own common table expressions (own), or "".
func (q *SearchQuery) with(b *searchSQL, own ...string) string {
	var ctes []string
	recursive := false
	if q.FolderID != "" {
		rootVisible := ""
		if b.user != 0 {
			rootVisible = " AND " + admitsSQL("r", b.user, b.tokens)
		}
		frag := searchFolderSQL
		if q.IncludeSubfolders {
			frag, recursive = searchSubfoldersSQL, true
		}
		ctes = append(ctes, fmt.Sprintf(frag, b.arg(q.FolderID), rootVisible))
	}
	ctes = append(ctes, own...)
	if len(ctes) == 0 {
		return ""
	}
	if recursive {
		return "WITH RECURSIVE " + strings.Join(ctes, ",\n") + "\n"
	}
	return "WITH " + strings.Join(ctes, ",\n") + "\n"
}

// where is the conditions every hit meets, whatever its tier: the
// tenant's live items, the scope, the filters and what the principal may
// see.
func (q *SearchQuery) where(b *searchSQL) string {
	var w strings.Builder
	w.WriteString(searchLiveSQL)
	if !q.IncludeFolders {
		w.WriteString(searchNoFoldersSQL)
	}
	if q.FolderID != "" {
		w.WriteString(searchInScopeSQL)
	}
	if len(q.ItemTypes) > 0 {
		fmt.Fprintf(&w, searchTypesSQL, b.arg(stringArray(q.ItemTypes)))
	}
	if len(q.TranscodingStates) > 0 {
		fmt.Fprintf(&w, searchStatesSQL, b.arg(stringArray(q.TranscodingStates)))
	}
	if q.CreatedFrom != nil {
		fmt.Fprintf(&w, searchCreatedFromSQL, b.arg(q.CreatedFrom.UTC()))
	}
	if q.CreatedTo != nil {
		fmt.Fprintf(&w, searchCreatedToSQL, b.arg(q.CreatedTo.UTC()))
	}
	for _, m := range q.Metadata {
		fmt.Fprintf(&w, searchMetadataSQL, b.arg(m.Field), b.arg(m.Value))
	}
	if b.user != 0 {
		w.WriteString(" AND " + visibleSQL("i", b.user, b.tokens))
	}
	return w.String()
}

// searchTerms are a statement's placeholders for the search terms, each
// added when first used (a statement holds only the placeholders it uses):
// the terms in any weight, and weighted to each of the first three tiers.
type searchTerms struct {
	b        *searchSQL
	tsquery  string
	any      string
	weighted [3]string
}

// terms are the search terms of a statement (nil without words).
func (q *SearchQuery) terms(b *searchSQL) *searchTerms {
	if q.tsquery == nil {
		return nil
	}
	return &searchTerms{b: b, tsquery: *q.tsquery}
}

// all is the terms in any weight, as a tsquery expression.
func (t *searchTerms) all() string {
	if t.any == "" {
		t.any = t.b.arg(t.tsquery) + "::tsquery"
	}
	return t.any
}

// weight is the terms weighted to tier (0–2), as a tsquery expression.
func (t *searchTerms) weight(tier int) string {
	if t.weighted[tier] == "" {
		t.weighted[tier] = t.b.arg(weightQuery(t.tsquery, searchTierWeights[tier])) + "::tsquery"
	}
	return t.weighted[tier]
}

// match is the condition that keeps the hits of any tier ("" without
// words).
func match(terms *searchTerms) string {
	if terms == nil {
		return ""
	}
	return fmt.Sprintf(searchMatchSQL, terms.all())
}

// tierCase is the tier of a hit whose vector is vector (0 without words).
func tierCase(terms *searchTerms, vector string) string {
	if terms == nil {
		return "0"
	}
	return fmt.Sprintf(searchTierCaseSQL, terms.weight(0), terms.weight(1), terms.weight(2), vector)
}

// hitsSQL is the first statement of a search (searchHitsSQL): at most
// limit hits, their total, their facets when asked, and the page when
// they are all the hits.
func (q *SearchQuery) hitsSQL(p *loupe.Principal, limit int) (string, []any) {
	b := newSearchSQL(p)
	cols, facets := "", ""
	if q.Facets {
		var field any
		if q.FacetField != "" {
			field = q.FacetField
		}
		cols, facets = fmt.Sprintf(searchFacetColumnsSQL, b.arg(field)), searchFacetsSQL
	}
	terms := q.terms(b)
	where := q.where(b) + match(terms)
	lim := b.arg(limit)
	tier, order := tierCase(terms, "h.search"), ""
	if terms != nil {
		cols += searchHitsVectorSQL
		order = tier + ", "
	}
	cte := fmt.Sprintf(searchHitsCTESQL, where, lim, cols)
	return q.with(b, cte) + fmt.Sprintf(searchHitsSQL, lim, b.arg(q.Size), b.arg(q.From), order, facets, tier), b.args
}

// estimateSQL is the planner's estimate of the hits (EXPLAIN, not run).
func (q *SearchQuery) estimateSQL(p *loupe.Principal) (string, []any) {
	b := newSearchSQL(p)
	where := q.where(b) + match(q.terms(b))
	return "EXPLAIN (FORMAT JSON) " + q.with(b) + fmt.Sprintf(searchEstimateSQL, where), b.args
}

// tierCondition is the condition of tier on the vector of alias: its
// terms in the tier's weights, and not in the tier before's. With index,
// the first part names the tier's indexed vector, so that its GIN index
// can answer it (the tier read); otherwise both are weighted queries on
// the vector as it is (the walk tests rows already read).
func tierCondition(terms *searchTerms, alias string, tier int, index bool) string {
	var in string
	switch {
	case tier == len(searchTierVectors)-1:
		in = alias + ".search @@ " + terms.all()
	case index:
		in = strings.Replace(searchTierVectors[tier], "i.", alias+".", 1) + " @@ " + terms.all()
	default:
		in = alias + ".search @@ " + terms.weight(tier)
	}
	if tier == 0 {
		return in
	}
	return in + " AND NOT " + alias + ".search @@ " + terms.weight(tier-1)
}

// walkSQL reads the newest hits of tier among at most walk of the
// newest items (searchWalkSQL), limit of them.
func (q *SearchQuery) walkSQL(p *loupe.Principal, tier, walk, limit int) (string, []any) {
	b := newSearchSQL(p)
	where := q.where(b)
	cond := tierCondition(q.terms(b), "w", tier, false)
	return q.with(b) + fmt.Sprintf(searchWalkSQL, where, cond, b.arg(walk), b.arg(limit)), b.args
}

// tierSQL reads the newest hits of tier from its index (searchTierSQL).
func (q *SearchQuery) tierSQL(p *loupe.Principal, tier, limit int) (string, []any) {
	b := newSearchSQL(p)
	where := q.where(b) + " AND " + tierCondition(q.terms(b), "i", tier, true)
	return q.with(b, fmt.Sprintf(searchTierCTESQL, where)) + fmt.Sprintf(searchTierSQL, b.arg(limit)), b.args
}

// listSQL is the page of a search without words (searchListSQL).
func (q *SearchQuery) listSQL(p *loupe.Principal, limit int) (string, []any) {
	b := newSearchSQL(p)
	where := q.where(b)
	return q.with(b) + fmt.Sprintf(searchListSQL, where, b.arg(limit)), b.args
}
