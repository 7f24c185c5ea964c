package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
)

// SearchQuery is a full-text search over the live items of a tenant
// (docs/search.md). Zero values do not filter.
type SearchQuery struct {
	// Text is the words to find; each matches as a prefix and all must
	// match; words in double quotes are a phrase (adjacent, in order, whole
	// words). Empty (or without any word) lists everything, newest first.
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

	// ItemTypes keeps the items of these types (any of them).
	ItemTypes []string
	// TranscodingStates keeps the items in these processing states.
	TranscodingStates []string
	// CreatedFrom (inclusive) and CreatedTo (exclusive) bound createdOn.
	CreatedFrom, CreatedTo *time.Time
	// Metadata keeps the items whose form data holds every one of these
	// values (exactly; an element of a multiple-choice value counts).
	Metadata []MetadataMatch

	// Facets asks for the facets of the hits; FacetField names a form
	// field whose most frequent values are counted too.
	Facets     bool
	FacetField string

	// tsquery is the search terms as Postgres made them a query (nil: no
	// words), set by Search.
	tsquery *string
}

// MetadataMatch is a value of a form field, matched exactly.
type MetadataMatch struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// SearchPage is the answer of a search: the total, one page of hits,
// and the facets when asked.
type SearchPage struct {
	// Total is exact up to the store's exact bound (SearchExactBound);
	// past it TotalIsEstimate is set and Total is the planner's estimate,
	// never below the bound plus one.
	Total           int
	TotalIsEstimate bool
	Items           []*Item
	Facets          *SearchFacets
}

// SearchFacets count the hits by item type, by metadata form and by the
// values of one form field. IsEstimate: the hits were more than the exact
// bound and the counts are those of a sample (the first bound+1 hits
// found), scaled to the estimated total.
type SearchFacets struct {
	IsEstimate    bool                `json:"isEstimate"`
	SampleSize    int                 `json:"sampleSize"`
	ItemTypes     []*SearchFacetCount `json:"itemTypes"`
	MetadataForms []*SearchFacetCount `json:"metadataForms"`
	Field         *string             `json:"field"`
	FieldValues   []*SearchFacetCount `json:"fieldValues"`
}

// SearchFacetCount is how many hits have one value.
type SearchFacetCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Search limits.
const (
	MaxSearchPage = 100
	// MaxSearchFrom bounds the offset: deep offsets cost a scan of every
	// hit before them (the same window Elasticsearch allows by default).
	MaxSearchFrom = 10000
	// MaxSearchText bounds the search string, in characters.
	MaxSearchText = 1000
	// DefaultSearchExactBound is how many hits are counted exactly; past
	// it the total (and the facets) are estimates. Counting them reads
	// about bound ÷ (the share of items that match) rows: at 10M items
	// and 10,000, two common words that rarely meet took 2.2 s; at 1,000,
	// 36 ms (docs/search.md, "Known limits").
	DefaultSearchExactBound = 1000
	// maxSearchFilterValues bounds each list filter.
	maxSearchFilterValues = 50
	// maxSearchFilterValue bounds a filter's value, in characters.
	maxSearchFilterValue = 1000
)

// TranscodingStates are the states items.transcoding_state takes.
var TranscodingStates = []string{"none", TranscodingQueued, TranscodingProcessing, TranscodingComplete,
	TranscodingFailed, TranscodingSkipped}

// formFieldRE is what a form field's id may be (mdf: fieldIDRE).
var formFieldRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// Validate checks the paging, the search string and the filters, naming
// the parameter. Returns EINVALID.
func (q *SearchQuery) Validate() error {
	if q.Size < 1 || q.Size > MaxSearchPage {
		return loupe.Invalid("itemsPerPage must be between 1 and %d", MaxSearchPage)
	}
	if q.From < 0 || q.From > MaxSearchFrom {
		return loupe.Invalid("from must be between 0 and %d", MaxSearchFrom)
	}
	if err := validSearchText("searchString", q.Text); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(q.Text); n > MaxSearchText {
		return loupe.Invalid("searchString must be at most %d characters, got %d", MaxSearchText, n)
	}
	if len(q.ItemTypes) > maxSearchFilterValues {
		return loupe.Invalid("itemType takes at most %d values", maxSearchFilterValues)
	}
	for _, t := range q.ItemTypes {
		if t == "" {
			return loupe.Invalid("itemType must not be empty")
		}
		if err := validSearchText("itemType", t); err != nil {
			return err
		}
	}
	for _, s := range q.TranscodingStates {
		if !slices.Contains(TranscodingStates, s) {
			return loupe.Invalid("transcodingState must be one of %s, got %q", strings.Join(TranscodingStates, ", "), s)
		}
	}
	if q.CreatedFrom != nil && q.CreatedTo != nil && q.CreatedTo.Before(*q.CreatedFrom) {
		return loupe.Invalid("createdTo must not be before createdFrom")
	}
	if len(q.Metadata) > maxSearchFilterValues {
		return loupe.Invalid("metadata takes at most %d field values", maxSearchFilterValues)
	}
	for _, m := range q.Metadata {
		if !formFieldRE.MatchString(m.Field) {
			return loupe.Invalid("metadataField must be a form field's id (1 to 128 letters, digits, _ or -), got %q", m.Field)
		}
		if err := validSearchText("metadataValue", m.Value); err != nil {
			return err
		}
	}
	if q.FacetField != "" && !formFieldRE.MatchString(q.FacetField) {
		return loupe.Invalid("facetField must be a form field's id (1 to 128 letters, digits, _ or -), got %q", q.FacetField)
	}
	return nil
}

// validSearchText checks a string Postgres will take as text.
func validSearchText(name, s string) error {
	if !utf8.ValidString(s) {
		return loupe.Invalid("%s must be valid UTF-8", name)
	}
	if err := loupe.ValidText(s); err != nil {
		return loupe.Invalid("%s: %s", name, err.Message)
	}
	if name != "searchString" && utf8.RuneCountInString(s) > maxSearchFilterValue {
		return loupe.Invalid("%s must be at most %d characters", name, maxSearchFilterValue)
	}
	return nil
}

// HasSearchText is whether a search string holds more than blanks and
// quotes: a search without it lists instead of matching.
func HasSearchText(text string) bool { return strings.Trim(text, " \t\r\n\"\u201c\u201d\u201e") != "" }

// SearchTerms splits a search string into its loose words and its phrases
// (the text between double quotes, straight or curly). A quote left open
// is ignored: what follows it is loose words. Neither part is query
// syntax: Postgres splits both into words (loupe_search_query_2).
func SearchTerms(text string) (words string, phrases []string) {
	text = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u201e", `"`).Replace(text)
	parts := strings.Split(text, `"`)
	var loose []string
	for i, p := range parts {
		// Odd parts are inside quotes, but the last one only when its
		// quote was closed.
		if i%2 == 1 && i < len(parts)-1 {
			if strings.TrimSpace(p) != "" {
				phrases = append(phrases, p)
			}
			continue
		}
		loose = append(loose, p)
	}
	return strings.Join(loose, " "), phrases
}

// SetSearchExactBound sets how many hits this store counts exactly
// (n >= 1); past it totals and facets are estimates. For tests and
// operators of very large tenants. Call it before the store is used.
func (s *Store) SetSearchExactBound(n int) { s.searchBound = max(n, 1) }

// SearchExactBound is how many hits this store counts exactly.
func (s *Store) SearchExactBound() int {
	if s.searchBound > 0 {
		return s.searchBound
	}
	return DefaultSearchExactBound
}

// Search returns one page of hits, best tier first then newest, the total
// (exact up to SearchExactBound, estimated past it) and, when asked, the
// facets (docs/search.md). Returns EINVALID for bad paging, an unusable
// search string or a bad filter.
func (s *Store) Search(ctx context.Context, p *loupe.Principal, q SearchQuery) (*SearchPage, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	res := &SearchPage{Items: []*Item{}}
	if q.Facets {
		res.Facets = &SearchFacets{ItemTypes: []*SearchFacetCount{}, MetadataForms: []*SearchFacetCount{},
			FieldValues: []*SearchFacetCount{}}
		if q.FacetField != "" {
			res.Facets.Field = &q.FacetField
		}
	}
	if q.FolderID != "" && !loupe.ValidID(q.FolderID) {
		return res, nil
	}
	s.countUsage(p.TenantID, MetricSearchesPerformed, 1)
	if HasSearchText(q.Text) {
		words, phrases := SearchTerms(q.Text)
		if phrases == nil {
			phrases = []string{}
		}
		if err := s.getPrepared(ctx, &q.tsquery, searchTsquerySQL, words, stringArray(phrases)); err != nil {
			return nil, fmt.Errorf("store: unable to read the search words: %w", err)
		}
	}
	bound := s.SearchExactBound()
	ids, sample, err := s.searchHits(ctx, p, &q, bound, res)
	if err != nil {
		return nil, err
	}
	if res.TotalIsEstimate {
		if ids, err = s.searchPage(ctx, p, &q, sample); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 {
		return res, nil
	}
	var items []*Item
	// The two fixed statements of a search are prepared (planning the
	// item read took three times as long as running it); the others are
	// planned with their values (items_search_sql.go).
	if err := s.selectPrepared(ctx, &items, searchItemsSQL, p.TenantID, stringArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to read search hits: %w", err)
	}
	if err := decodeMedia(items...); err != nil {
		return nil, err
	}
	byID := make(map[string]*Item, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	for _, id := range ids {
		if it := byID[id]; it != nil { // gone since the page was read
			res.Items = append(res.Items, it)
		}
	}
	return res, nil
}

// searchHits runs the first statement (searchHitsSQL): the total up to the
// bound, the facets when asked and, when the hits are at most the bound,
// the page's ids. Past the bound it sets the estimate.
func (s *Store) searchHits(ctx context.Context, p *loupe.Principal, q *SearchQuery, bound int,
	res *SearchPage) (ids []string, sample *tierSample, err error) {
	query, args := q.hitsSQL(p, bound+1)
	var rows []struct {
		Kind  string  `db:"kind"`
		Value string  `db:"value"`
		N     int     `db:"n"`
		ID    *string `db:"id"`
	}
	if err := s.db.SelectContext(ctx, &rows, query, args...); err != nil {
		return nil, nil, fmt.Errorf("store: unable to search items: %w", err)
	}
	sample = &tierSample{words: q.tsquery != nil}
	found := 0
	for _, r := range rows {
		c := &SearchFacetCount{Value: r.Value, Count: r.N}
		switch r.Kind {
		case "total":
			found = r.N
		case "tier":
			if t, err := strconv.Atoi(r.Value); err == nil && t >= 0 && t < len(sample.counts) {
				sample.counts[t] = r.N
			}
		case "hit":
			ids = append(ids, *r.ID)
		case "itemType":
			res.Facets.ItemTypes = append(res.Facets.ItemTypes, c)
		case "form":
			res.Facets.MetadataForms = append(res.Facets.MetadataForms, c)
		case "field":
			res.Facets.FieldValues = append(res.Facets.FieldValues, c)
		}
	}
	res.Total = found
	if found <= bound {
		return ids, sample, nil
	}
	query, args = q.estimateSQL(p)
	var doc []byte
	if err := s.db.GetContext(ctx, &doc, query, args...); err != nil {
		return nil, nil, fmt.Errorf("store: unable to estimate search hits: %w", err)
	}
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &plan); err != nil || len(plan) == 0 {
		return nil, nil, fmt.Errorf("store: unable to read the search estimate: %v", err)
	}
	res.Total = max(found, int(plan[0].Plan.Rows))
	res.TotalIsEstimate = true
	if res.Facets != nil {
		res.Facets.IsEstimate = true
		res.Facets.SampleSize = found
		for _, list := range [][]*SearchFacetCount{res.Facets.ItemTypes, res.Facets.MetadataForms, res.Facets.FieldValues} {
			for _, c := range list {
				c.Count = int(float64(c.Count) * float64(res.Total) / float64(found))
			}
		}
	}
	return nil, sample, nil
}

// tierSample is what the first statement tells of the hits when they are
// more than the bound: whether the search has words, and how many of the
// newest hits (searchTierSample) fall in each tier.
type tierSample struct {
	words  bool
	counts [4]int
}

// searchWalk is how many of the newest items a tier's walk reads at most
// beyond the hits it needs (searchWalkSQL): a tier holding one item in
// 800 of the newest fills a page of 25 within it; a sparser tier is read
// from its index, where it holds few items (unless its hits are all old).
const searchWalk = 20000

// searchPage reads the page's ids when the hits are more than the bound:
// tier by tier, newest first, until the page is full. Each tier first
// walks the newest items (it stops at the page: a common word costs a few
// rows whatever the table's size) and, when the walk finds too few, reads
// the tier from its GIN index. Without words there is one tier: every
// item that meets the filters.
func (s *Store) searchPage(ctx context.Context, p *loupe.Principal, q *SearchQuery, sample *tierSample) ([]string, error) {
	need := q.From + q.Size
	if !sample.words {
		query, args := q.listSQL(p, need)
		var ids []string
		if err := s.db.SelectContext(ctx, &ids, query, args...); err != nil {
			return nil, fmt.Errorf("store: unable to list items: %w", err)
		}
		return cut(ids, q.From), nil
	}
	var ids []string
	for tier := range searchTierVectors {
		want := need - len(ids)
		var got []string
		if sample.counts[tier] > 0 {
			query, args := q.walkSQL(p, tier, searchWalk+want, want)
			if err := s.db.SelectContext(ctx, &got, query, args...); err != nil {
				return nil, fmt.Errorf("store: unable to search items: %w", err)
			}
		}
		if len(got) < want {
			query, args := q.tierSQL(p, tier, want)
			got = nil
			if err := s.db.SelectContext(ctx, &got, query, args...); err != nil {
				return nil, fmt.Errorf("store: unable to search items: %w", err)
			}
		}
		ids = append(ids, got...)
		if len(ids) >= need {
			break
		}
	}
	return cut(ids, q.From), nil
}

// cut is ids from the from-th on.
func cut(ids []string, from int) []string {
	if from >= len(ids) {
		return nil
	}
	return ids[from:]
}
