package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/bench/loadgen"
	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
	"github.com/loupe-mam/loupe/store"
)

// The scale run (`loupe-bench --scale N`, issue 34): one database holding a
// reference tenant of 100,000 items, 1,000 small tenants and one tenant of
// N items, all in the proportions of benchseed.Scale. The reference is
// measured first, before the database grows, then the big tenant with the
// same scenarios: the report sets them side by side.

// scaleReference is the reference tenant's size.
const scaleReference = 100_000

// scaleSmallTenants is how many small tenants share the database.
const scaleSmallTenants = 1000

// scaleSettings are the scale cluster's: a database of tens of GB, on disk,
// loaded once. The shared buffers hold the hot indexes, not the tables.
var scaleSettings = map[string]string{
	"shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "top",
	"shared_buffers": "4GB", "maintenance_work_mem": "1GB", "max_wal_size": "4GB",
	"checkpoint_timeout": "30min", "autovacuum": "off",
}

// scaleState is what a scale run keeps beside its database (seeded.json),
// so that a later run measures again without seeding: at 10M items the
// seed takes the best part of an hour.
type scaleState struct {
	Ref, Big  scaleTenant
	SmallTook time.Duration
}

// scaleTenant is a seeded tenant as the scenarios need it; its items are
// read back from the database.
type scaleTenant struct {
	TenantID, APIKey, BigFolder string
	Items                       int
	Took                        time.Duration
}

func tenantOf(s *benchseed.Seeded) scaleTenant {
	return scaleTenant{TenantID: s.TenantID, APIKey: s.APIKey, BigFolder: s.BigFolder, Items: len(s.ItemIDs), Took: s.Took}
}

// seeded reads t's items back: in creation (id) order, as Seed answers them.
func (t scaleTenant) seeded(ctx context.Context, db *sql.DB) (*benchseed.Seeded, error) {
	s := &benchseed.Seeded{TenantID: t.TenantID, APIKey: t.APIKey, BigFolder: t.BigFolder, Took: t.Took}
	read := func(query string) ([]string, error) {
		rows, err := db.QueryContext(ctx, query, t.TenantID, t.BigFolder)
		if err != nil {
			return nil, fmt.Errorf("bench: read back the seed: %w", err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}
	var err error
	if s.ItemIDs, err = read(`SELECT id FROM items WHERE tenant_id = $1 AND item_type <> 'folder' AND $2::uuid IS NOT NULL ORDER BY id`); err != nil {
		return nil, err
	}
	if s.BigFolderItems, err = read(`SELECT item_id FROM item_folders WHERE tenant_id = $1 AND folder_id = $2 ORDER BY item_id`); err != nil {
		return nil, err
	}
	if len(s.ItemIDs) != t.Items {
		return nil, fmt.Errorf("bench: the seeded tenant %s has %d items, not %d", t.TenantID, len(s.ItemIDs), t.Items)
	}
	return s, nil
}

func runScale(ctx context.Context, c benchConfig) error {
	log := os.Stderr
	// On disk (/dev/shm cannot hold it), and kept: see scaleState.
	if err := os.MkdirAll(c.scaleDir, 0o755); err != nil {
		return err
	}
	cl, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(c.scaleDir, "pg"), Fast: true, Log: log, Settings: scaleSettings})
	if err != nil {
		return err
	}
	defer cl.Stop()
	db, dbURL, err := benchDatabase(ctx, cl)
	if err != nil {
		return err
	}
	defer db.Close()
	state, err := scaleSeed(ctx, c, db, log)
	if err != nil {
		return err
	}
	ref, err := state.Ref.seeded(ctx, db)
	if err != nil {
		return err
	}
	big, err := state.Big.seeded(ctx, db)
	if err != nil {
		return err
	}
	var size int64
	if err := db.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&size); err != nil {
		return err
	}
	srv, err := startServer(ctx, c.loupe, dbURL, false, log, "LOUPE_WORKERS=-1")
	if err != nil {
		return err
	}
	defer srv.stop()
	measure := func(name string, cfg loadgen.Config) benchRow { return measureLoad(ctx, c, db, name, cfg, log) }
	// Each scenario runs on the reference and then on the big tenant, so
	// that the two meet the same machine.
	refScs, err := scaleScenarios(ctx, db, srv.url, ref)
	if err != nil {
		return err
	}
	bigScs, err := scaleScenarios(ctx, db, srv.url, big)
	if err != nil {
		return err
	}
	var rows []scaleRow
	for i, sc := range refScs {
		if c.only != "" && !strings.Contains(sc.name, c.only) {
			continue
		}
		rows = append(rows, scaleRow{name: sc.name, ref: measure(sc.name+" (100k)", sc.cfg), big: measure(sc.name+" (big)", bigScs[i].cfg)})
	}
	// The searches' latency goals (p99) are the latency of a server not
	// saturated: again with one client per core, where a request waits
	// for little but its own work. The rows above, at the bench's
	// concurrency, are their throughput.
	latency := c
	latency.concurrency = runtime.NumCPU()
	for i, sc := range refScs {
		name := fmt.Sprintf("%s, %d clients", sc.name, latency.concurrency)
		if !strings.HasPrefix(sc.name, "search:") || c.only != "" && !strings.Contains(name, c.only) ||
			latency.concurrency == c.concurrency {
			continue
		}
		rows = append(rows, scaleRow{name: name, ref: measureLoad(ctx, latency, db, name+" (100k)", sc.cfg, log),
			big: measureLoad(ctx, latency, db, name+" (big)", bigScs[i].cfg, log)})
	}
	for i, q := range scaleSearchSQL(ref) {
		if c.only != "" && !strings.Contains(q.name, c.only) {
			continue
		}
		rows = append(rows, scaleRow{name: q.name + " (SQL alone, pgbench -f)",
			ref: pgbenchFile(ctx, cl, dbURL, c, q.name, q.sql, log), big: pgbenchFile(ctx, cl, dbURL, c, q.name, scaleSearchSQL(big)[i].sql, log)})
	}
	fmt.Println(scaleReport(c, state, rows, size))
	fmt.Fprintf(log, "bench: the scale database stays in %s for the next run (remove the directory to seed again)\n", c.scaleDir)
	return nil
}

// scaleRow is one scenario on both tenants.
type scaleRow struct {
	name     string
	ref, big benchRow
}

// scaleSeed seeds the reference, the small tenants and the big one, or
// reads what an earlier run seeded into the same directory.
func scaleSeed(ctx context.Context, c benchConfig, db *sql.DB, log io.Writer) (*scaleState, error) {
	path := filepath.Join(c.scaleDir, "seeded.json")
	var state scaleState
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &state); err != nil {
			return nil, fmt.Errorf("bench: %s: %w", path, err)
		}
		if state.Big.Items != c.scale {
			return nil, fmt.Errorf("bench: %s holds a seed of %d items, not %d: remove the directory to seed again", c.scaleDir, state.Big.Items, c.scale)
		}
		fmt.Fprintf(log, "bench: measuring the seed of %s\n", path)
		return &state, nil
	}
	var tenants int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM tenants`).Scan(&tenants); err != nil {
		return nil, err
	}
	if tenants > 0 {
		return nil, fmt.Errorf("bench: %s holds a seed that was cut short: remove the directory to seed again", c.scaleDir)
	}
	fmt.Fprintf(log, "bench: seeding the reference tenant %+v\n", benchseed.Scale(scaleReference))
	ref, err := benchseed.Seed(ctx, db, benchseed.Scale(scaleReference))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "bench: reference seeded in %v\n", ref.Took.Round(time.Millisecond))
	began := time.Now()
	for k := range scaleSmallTenants {
		if _, err := benchseed.Seed(ctx, db, benchseed.Small()); err != nil {
			return nil, fmt.Errorf("bench: small tenant %d: %w", k, err)
		}
	}
	if err := benchseed.Settle(ctx, db); err != nil {
		return nil, err
	}
	state.SmallTook = time.Since(began)
	fmt.Fprintf(log, "bench: %d small tenants seeded in %v\n", scaleSmallTenants, state.SmallTook.Round(time.Millisecond))
	spec := benchseed.Scale(c.scale)
	fmt.Fprintf(log, "bench: seeding the big tenant %+v\n", spec)
	big, err := benchseed.Seed(ctx, db, spec)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "bench: big tenant seeded in %v\n", big.Took.Round(time.Millisecond))
	state.Ref, state.Big = tenantOf(ref), tenantOf(big)
	b, _ := json.MarshalIndent(state, "", "  ") // plain values always encode
	return &state, os.WriteFile(path, b, 0o600)
}

// scaleScenarios are the requests the issue holds to their 100k speed,
// against tenant s. The writes touch random items: at 10M, a write's cost
// is its index pages, which random items spread.
func scaleScenarios(ctx context.Context, db *sql.DB, base string, s *benchseed.Seeded) ([]scenario, error) {
	h := authHeader(s.APIKey)
	tokens, err := contentTokens(ctx, db, s)
	if err != nil {
		return nil, err
	}
	since, err := pollPositions(ctx, db, s.TenantID)
	if err != nil {
		return nil, err
	}
	gridCursors := gridPositions(s)
	grid := `query($f: ID!, $after: String) { items(first: 50, after: $after, filter: {folderId: $f}, orderBy: CREATED_ASC) {
  nodes { id title folders { name } comments(first: 3, orderBy: CREATED_DESC) { nodes { id text } } relations { item { title } } }
  pageInfo { hasNextPage endCursor } } }`
	get := func(path string) loadgen.Request { return loadgen.Request{Method: "GET", URL: base + path, Header: h} }
	out := []scenario{
		{"get item", getItemLoad(base, s)},
		{"folder content, page 50 to 99k deep in the 100k folder (nextToken)", loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
			return get(fmt.Sprintf("/api/v1/folders/%s/content?size=50&nextToken=%s", s.BigFolder, tokens[rand.IntN(len(tokens))]))
		}}},
		{"GraphQL grid: 50 items of the 100k folder, nested", loadgen.Config{Check: graphqlOK, Next: func(int, int) loadgen.Request {
			vars := map[string]any{"f": s.BigFolder}
			if c := gridCursors[rand.IntN(len(gridCursors))]; c != "" {
				vars["after"] = c
			}
			b, _ := json.Marshal(map[string]any{"query": grid, "variables": vars})
			return loadgen.Request{Method: "POST", URL: base + "/graphql", Header: h, Body: b}
		}}},
		{"PATCH itemMetadata of random items", loadgen.Config{Check: expect(200), Next: func(w, i int) loadgen.Request {
			body := fmt.Sprintf(`{"metadataDelta":{"formData":{"default_description":"w%d-%d"}}}`, w, i)
			return loadgen.Request{Method: "PATCH", URL: base + "/api/v1/itemMetadata/" + s.ItemIDs[rand.IntN(len(s.ItemIDs))],
				Header: h, Body: []byte(body)}
		}}},
		{"poll: GET /api/v1/items?since= (a page of 50 from a random point)", loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
			return get("/api/v1/items?size=50&since=" + url.QueryEscape(since[rand.IntN(len(since))]))
		}}},
	}
	for _, q := range scaleSearches(s) {
		out = append(out, scenario{q.name, loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
			return get(q.path())
		}}})
	}
	return out, nil
}

// pollPositions are 200 modifiedOn times of the tenant's items, sampled
// (an OFFSET into 10M rows would take minutes), as RFC 3339.
func pollPositions(ctx context.Context, db *sql.DB, tenantID string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT modified_on FROM items TABLESAMPLE SYSTEM (1)
WHERE tenant_id = $1 AND item_type <> 'folder' LIMIT 200`, tenantID)
	if err != nil {
		return nil, fmt.Errorf("bench: poll positions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var at time.Time
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, at.UTC().Format(time.RFC3339Nano))
	}
	if len(out) == 0 {
		out = append(out, "1970-01-01T00:00:00Z")
	}
	return out, rows.Err()
}

// scaleSearch is a search scenario: a REST path made per request.
type scaleSearch struct {
	name string
	path func() string
}

// scaleSearches are the searches issue 34 sets goals for.
func scaleSearches(s *benchseed.Seeded) []scaleSearch {
	n := len(s.ItemIDs)
	return []scaleSearch{
		{"search: selective (one item's number)", func() string {
			return "/api/v1/search?itemsPerPage=25&searchString=" + fmt.Sprintf("%06d", rand.IntN(n))
		}},
		{"search: broad (a keyword on a quarter of the items)", func() string {
			kw := []string{"news", "sports", "culture", "archive", "music", "travel"}
			return "/api/v1/search?itemsPerPage=25&searchString=" + kw[rand.IntN(len(kw))]
		}},
		{"search: filters and facets", func() string {
			return "/api/v1/search?itemsPerPage=25&searchString=berlin&itemType=video&facets=true&facetField=default_location"
		}},
		{"search: two words", func() string {
			q := []string{"interview berlin", "concert lisbon", "keynote osaka", "podcast oslo"}
			return "/api/v1/search?itemsPerPage=25&searchString=" + url.QueryEscape(q[rand.IntN(len(q))])
		}},
	}
}

// scaleSQL is a search's statements run by pgbench -f: the ceiling of its
// row.
type scaleSQL struct{ name, sql string }

// scaleSearchSQL are the statements the store sends for the searches of
// scaleSearches (store.SearchStatement, with the values written in): each
// script is one search's statements, the page's item read left out.
func scaleSearchSQL(s *benchseed.Seeded) []scaleSQL {
	p := &loupe.Principal{TenantID: s.TenantID, IsAdmin: true}
	bound := store.DefaultSearchExactBound + 1
	stmt := func(q store.SearchQuery, kind string, tier, limit int) string {
		q.Size = 25
		query, args := store.SearchStatement(p, q, kind, tier, limit)
		return inlineArgs(query, args) + ";\n"
	}
	broad := store.SearchQuery{Text: "news"}
	facets := store.SearchQuery{Text: "berlin", ItemTypes: []string{"video"}, Facets: true, FacetField: "default_location"}
	return []scaleSQL{
		{"search: selective (one item's number)", stmt(store.SearchQuery{Text: "042042"}, "hits", 0, bound)},
		// Past the bound: the hits, the estimate, the walk of the tier the
		// keyword is in (metadata values).
		{"search: broad (a keyword on a quarter of the items)",
			stmt(broad, "hits", 0, bound) + stmt(broad, "estimate", 0, 0) + stmt(broad, "walk", 2, 25)},
		{"search: filters and facets", stmt(facets, "hits", 0, bound) + stmt(facets, "walk", 0, 25)},
	}
}

// inlineArgs writes a statement's arguments into it, for pgbench's simple
// protocol: the plans depend on the values, as the store's do (it sends
// these statements unprepared).
func inlineArgs(query string, args []any) string {
	return regexp.MustCompile(`\$(\d+)`).ReplaceAllStringFunc(query, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		switch v := args[n-1].(type) {
		case string:
			return "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case *string:
			if v == nil {
				return "NULL"
			}
			return "'" + strings.ReplaceAll(*v, "'", "''") + "'"
		case nil:
			return "NULL"
		case driver.Valuer:
			b, _ := v.Value()
			if b == nil {
				return "NULL"
			}
			return "'" + strings.ReplaceAll(fmt.Sprint(b), "'", "''") + "'"
		}
		return fmt.Sprint(args[n-1])
	})
}

// pgbenchFile runs one SQL script with pgbench at the bench's concurrency.
func pgbenchFile(ctx context.Context, cl *pgcluster.Cluster, dbURL string, c benchConfig, name, script string, log io.Writer) benchRow {
	row := benchRow{Scenario: name + " (SQL alone, pgbench -f)", SQLPerReq: 1}
	f, err := os.CreateTemp("", "loupe-scale-*.sql")
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(script); err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	f.Close()
	out, err := exec.CommandContext(ctx, pgbenchPath(cl.BinDir()), "-n", "-M", "simple", "-f", f.Name(),
		"-c", strconv.Itoa(c.concurrency), "-j", strconv.Itoa(runtime.NumCPU()),
		"-T", strconv.Itoa(int(c.duration.Seconds())), dbURL).CombinedOutput()
	if err != nil {
		row.Unmeasured = fmt.Sprintf("%v: %.200s", err, out)
	}
	if m := regexp.MustCompile(`tps = ([\d.]+)`).FindSubmatch(out); m != nil {
		row.Result.RPS, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := regexp.MustCompile(`latency average = ([\d.]+) ms`).FindSubmatch(out); m != nil {
		avg, _ := strconv.ParseFloat(string(m[1]), 64)
		row.Note = fmt.Sprintf("average latency %.2f ms", avg)
	}
	fmt.Fprintf(log, "bench: %-40s %8.0f tps\n", row.Scenario, row.Result.RPS)
	return row
}

// scaleReport sets the reference tenant's rows beside the big tenant's.
func scaleReport(c benchConfig, st *scaleState, rows []scaleRow, size int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Scale (issue 34)\n\nMeasured by `loupe-bench --scale %d` on %s: %d cores, %s memory; one Postgres on disk (shared_buffers %s), concurrency %d, %v measured after %v warm-up per scenario; each scenario on the 100k tenant, then at once on the big one.\n\n",
		c.scale, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), memTotal(), scaleSettings["shared_buffers"],
		c.concurrency, c.duration, c.warmup)
	fmt.Fprintf(&b, "Seeded with COPY (benchseed.Scale): the reference tenant of %d items in %v; %d small tenants of %d items in %v; the big tenant of %d items in %v. Database: %.1f GiB.\n\n",
		st.Ref.Items, st.Ref.Took.Round(time.Second), scaleSmallTenants, benchseed.Small().Items,
		st.SmallTook.Round(time.Second), st.Big.Items, st.Big.Took.Round(time.Second), float64(size)/(1<<30))
	b.WriteString("| scenario | 100k req/s | 100k p99 | big req/s | big p99 | SQL/req (big) | req/s big/100k | p99 100k/big |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	ratio := func(x, y float64) string {
		if x == 0 || y == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", x/y)
	}
	for _, r := range rows {
		note := ""
		if u := r.ref.Unmeasured + " " + r.big.Unmeasured; strings.TrimSpace(u) != "" {
			note = " (" + oneLine(u) + ")"
		}
		if n := strings.TrimSpace(r.big.Note); n != "" {
			note += " (" + n + ")"
		}
		fmt.Fprintf(&b, "| %s%s | %.0f | %s | %.0f | %s | %.2f | %s | %s |\n", r.name, note, r.ref.Result.RPS, ms(r.ref.Result.P99),
			r.big.Result.RPS, ms(r.big.Result.P99), r.big.SQLPerReq, ratio(r.big.Result.RPS, r.ref.Result.RPS),
			ratio(float64(r.ref.Result.P99), float64(r.big.Result.P99)))
	}
	return b.String()
}
