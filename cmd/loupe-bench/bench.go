package main

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/bench/loadgen"
	"github.com/loupe-mam/loupe/internal/bench/mediabench"
	"github.com/loupe-mam/loupe/internal/bench/postgraphile"
	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
	"github.com/loupe-mam/loupe/migrations"
	"github.com/loupe-mam/loupe/store"
)

// benchSharedBuffers is the bench cluster's shared_buffers.
const benchSharedBuffers = "1GB"

// benchConfig is loupe-bench's flags.
type benchConfig struct {
	loupe         string // the loupe binary measured
	quick         bool
	concurrency   int
	duration      time.Duration
	warmup        time.Duration
	out           string
	postgraphile  bool
	cacheDir      string
	profileDir    string
	only          string
	hold          bool
	uploadBytes   int64
	bigUpload     int64
	ingestObjects int
	// baseLoupe is a build from before the outbox (issue 29's reference).
	baseLoupe string
	// scale is the big tenant's items of the scale run (0: no scale run),
	// its database under scaleDir.
	scale    int
	scaleDir string
	nodes    int // the several-nodes rows' nodes (bench_nodes.go)
}

// cmdBench runs the performance benchmark of issue 5: a throwaway Postgres
// seeded with a realistic tenant, a built `loupe serve` against it, load
// over loopback per scenario, and the references measured in the same run
// (pgbench -S, PostGraphile). It prints a table and writes it to --out.
func cmdBench(ctx context.Context, args []string) error {
	var c benchConfig
	fs := flag.NewFlagSet("loupe-bench", flag.ContinueOnError)
	fs.StringVar(&c.loupe, "loupe", besideUs("loupe"), "the loupe binary to measure (make bench builds bin/loupe)")
	fs.BoolVar(&c.quick, "quick", false, "small data and short runs (a smoke test of the harness)")
	fs.IntVar(&c.concurrency, "concurrency", 16, "concurrent clients per scenario")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "measured time per scenario")
	fs.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured time before each scenario")
	fs.StringVar(&c.out, "out", "docs/benchmarks.md", "where the report is written (empty: nowhere)")
	fs.BoolVar(&c.postgraphile, "postgraphile", true, "measure PostGraphile too (npm install postgraphile@4.14.1)")
	fs.StringVar(&c.cacheDir, "cache", ".loupe/bench", "where npm packages are kept between runs")
	fs.StringVar(&c.profileDir, "profile", "", "write a CPU profile of the server per Loupe scenario into this directory")
	fs.StringVar(&c.only, "only", "", "run only the scenarios whose name contains this (events-cost, events-latency: half of the events rows; process-kill: the takeover of a killed node's transcode)")
	fs.IntVar(&c.ingestObjects, "ingest-objects", 20000, "the objects of the ingest scenarios (quick: 2,000)")
	fs.Int64Var(&c.uploadBytes, "upload-bytes", 2<<30, "the size of the media upload scenarios (quick: 64 MiB)")
	fs.Int64Var(&c.bigUpload, "big-upload-bytes", 50<<30, "the size of the large resumed upload to local disk (0 or quick: none)")
	fs.StringVar(&c.baseLoupe, "base-loupe", "", "a loupe built from before the outbox (issue 29): the events rows measure the writes' cost against it")
	fs.IntVar(&c.nodes, "nodes", 0, "run only the several-nodes rows, with this many nodes behind PgBouncer (a full run: 3)")
	fs.IntVar(&c.scale, "scale", 0, "instead of the other scenarios, the scale run of issue 34: a tenant of this many items beside a 100k one and 1,000 small ones, in one database on disk (10000000 takes about an hour and 40 GB)")
	fs.StringVar(&c.scaleDir, "scale-dir", filepath.Join(os.TempDir(), "loupe-scale"), "where the scale run's database goes (on disk: tens of GB), kept for the next run")
	fs.BoolVar(&c.hold, "hold", false, "seed, print the database URL and key, and wait (for exploring plans) instead of measuring")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.nodes > 0 && c.only == "" {
		c.only = "nodes"
	}
	if c.quick {
		c.duration, c.warmup = 2*time.Second, 500*time.Millisecond
		c.uploadBytes = 64 << 20
		c.bigUpload = 0
		c.ingestObjects = 2000
	}
	if c.scale > 0 {
		return runScale(ctx, c)
	}
	return runBench(ctx, c)
}

type benchRow struct {
	Scenario   string
	Result     loadgen.Result
	SQLPerReq  float64
	RSSMiB     float64
	Note       string
	Unmeasured string // why the row has no numbers
}

func runBench(ctx context.Context, c benchConfig) error {
	log := os.Stderr
	dir, err := pgcluster.MkdirTemp("loupe-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cl, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "pg"), Fast: true, Log: log,
		Settings: map[string]string{"shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "top",
			// Plans are counted too: a prepared statement that is planned
			// on every execution (custom plans) shows plans ≈ calls.
			"pg_stat_statements.track_planning": "on",
			// The seeded data (~450 MB) fits in memory, as a served
			// database's working set does; the default 128 MB made the
			// scenarios measure copies from the OS cache.
			"shared_buffers": benchSharedBuffers}})
	if err != nil {
		return err
	}
	defer cl.Stop()
	db, dbURL, err := benchDatabase(ctx, cl)
	if err != nil {
		return err
	}
	defer db.Close()

	spec := benchseed.Full()
	if c.quick {
		spec = benchseed.Quick()
	}
	fmt.Fprintf(log, "bench: seeding %+v\n", spec)
	seeded, err := benchseed.Seed(ctx, db, spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "bench: seeded in %v\n", seeded.Took.Round(time.Millisecond))
	if c.hold {
		fmt.Printf("DATABASE_URL=%s\nAPI_KEY=%s\nTENANT=%s\nFOLDER=%s\n", dbURL, seeded.APIKey, seeded.TenantID, seeded.BigFolder)
		<-ctx.Done()
		return nil
	}

	// The load scenarios' server only serves the API: the media
	// scenarios' servers, each with its own storage, work their jobs.
	srv, err := startServer(ctx, c.loupe, dbURL, c.profileDir != "", log, "LOUPE_WORKERS=-1")
	if err != nil {
		return err
	}
	defer srv.stop()

	var rows []benchRow
	measure := func(name string, cfg loadgen.Config, pid int) benchRow {
		row := measureLoad(ctx, c, db, name, cfg, log)
		row.RSSMiB = mediabench.RSSMiB(pid)
		return row
	}

	tokens, err := contentTokens(ctx, db, seeded)
	if err != nil {
		return err
	}
	for _, sc := range loupeScenarios(srv.url, seeded, tokens) {
		if c.only != "" && !strings.Contains(sc.name, c.only) {
			continue
		}
		done := profileServer(ctx, c, srv, sc.name, log)
		rows = append(rows, measure(sc.name, sc.cfg, srv.pid))
		<-done
		if sc.name == getItemName {
			rows = append(rows, referenceRow(ctx, dbURL, seeded, measure))
		}
	}
	if c.only == "" || strings.HasPrefix(c.only, "tracing") {
		rows = append(rows, tracingRows(ctx, c, dbURL, srv, seeded, measure, log)...)
	}
	var media []mediaRow
	var ingest []ingestRow
	if c.only == "" || strings.HasPrefix(c.only, "upload") || strings.HasPrefix(c.only, "ingest") {
		media = mediaRows(ctx, c, dbURL, seeded.APIKey, log, &ingest)
	}
	var proc []procRow
	switch {
	case c.only == "" || strings.HasPrefix(c.only, "process"):
		proc = processingRows(ctx, c, dir, dbURL, seeded, log)
	case strings.HasPrefix(c.only, "analysis"):
		proc = analysisRows(ctx, dir)
	}
	if c.only == "" || strings.HasPrefix(c.only, "render") {
		proc = append(proc, renderRows(ctx, c, dir, dbURL, seeded, log)...)
	}
	if c.only == "" || strings.HasPrefix(c.only, "transfer") {
		proc = append(proc, transferRows(ctx, c, dir, dbURL, seeded, log)...)
	}
	if c.only == "" || strings.HasPrefix(c.only, "recording") {
		proc = append(proc, recordingRows(ctx, dir, log)...)
	}
	var events []eventRow
	var cost []benchRow
	if c.only == "" || strings.HasPrefix(c.only, "events") {
		// events-cost and events-latency: one half alone, for a quick look.
		if c.only != "events-latency" {
			cost = outboxCostRows(ctx, c, dbURL, srv, seeded, measure, log)
		}
		if c.only != "events-cost" {
			events = eventsRows(ctx, c, dbURL, srv, seeded, log)
		}
	}
	var nodes []nodesRow
	if c.only == "" || strings.HasPrefix(c.only, "nodes") {
		nodes = nodesRows(ctx, c, dbURL, seeded, measure, log)
	}
	if c.only != "" {
		fmt.Println(benchReport(c, seeded, rows) + mediaReport(media) + ingestReport(ingest) + processingReport(proc) +
			eventsReport(events, cost) + nodesReport(nodes))
		return nil
	}
	rows = append(rows, pgbenchRows(ctx, cl, c, log)...)
	if c.postgraphile {
		rows = append(rows, postgraphileRows(ctx, c, dbURL, seeded, measure, log)...)
	}
	report := benchReport(c, seeded, rows) + mediaReport(media) + ingestReport(ingest) + processingReport(proc) +
		eventsReport(events, cost) + nodesReport(nodes)
	fmt.Println(report)
	if c.out != "" {
		return os.WriteFile(c.out, []byte(report), 0o644)
	}
	return nil
}

// benchDatabase makes the bench's database on cl: migrated, with
// pg_stat_statements.
func benchDatabase(ctx context.Context, cl *pgcluster.Cluster) (*sql.DB, string, error) {
	if err := cl.EnsureDatabase(ctx, "loupe"); err != nil {
		return nil, "", err
	}
	dbURL := cl.URL("loupe")
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return nil, "", err
	}
	if err := migrations.Up(ctx, db); err != nil {
		db.Close()
		return nil, "", err
	}
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("bench: pg_stat_statements: %w", err)
	}
	return db, dbURL, nil
}

// measureLoad runs one scenario's load at the bench's concurrency and
// reads what it cost Postgres.
func measureLoad(ctx context.Context, c benchConfig, db *sql.DB, name string, cfg loadgen.Config, log io.Writer) benchRow {
	cfg.Concurrency, cfg.Duration, cfg.Warmup = c.concurrency, c.duration, c.warmup
	db.ExecContext(ctx, `SELECT pg_stat_statements_reset()`) //nolint:errcheck // best effort
	res, err := loadgen.Run(ctx, cfg)
	row := benchRow{Scenario: name, Result: res}
	if err != nil {
		row.Unmeasured = err.Error()
	}
	// Statements are counted from the reset, warm-up included: divided
	// by every request sent, not only the measured ones.
	row.SQLPerReq = statementsPerRequest(ctx, db, res.Sent)
	logTopStatements(ctx, db, log)
	fmt.Fprintf(log, "bench: %-40s %8.0f req/s  p50 %v  p99 %v  errors %d %s\n", name, res.RPS,
		res.P50.Round(10*time.Microsecond), res.P99.Round(10*time.Microsecond), res.Errors, res.FirstError)
	return row
}

type scenario struct {
	name string
	cfg  loadgen.Config
}

func authHeader(key string) http.Header {
	return http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}}
}

func expect(codes ...int) func(int, []byte) error {
	return func(status int, body []byte) error {
		for _, c := range codes {
			if status == c {
				return nil
			}
		}
		return fmt.Errorf("status %d: %.200s", status, body)
	}
}

// loupeScenarios are the requests of issue 5, each a closed loop.
func loupeScenarios(base string, s *benchseed.Seeded, contentTokens []string) []scenario {
	h := authHeader(s.APIKey)
	gridCursors := gridPositions(s)
	grid := `query($f: ID!, $after: String) { items(first: 50, after: $after, filter: {folderId: $f}, orderBy: CREATED_ASC) {
  nodes { id title folders { name } comments(first: 3, orderBy: CREATED_DESC) { nodes { id text } } relations { item { title } } }
  pageInfo { hasNextPage endCursor } } }`
	return []scenario{
		{getItemName, getItemLoad(base, s)},
		{"REST POST /api/v1/items", loadgen.Config{Check: expect(200), Next: func(w, i int) loadgen.Request {
			body := fmt.Sprintf(`{"title":"Bench %d-%d","itemType":"video","metadata":{"formData":{"default_description":"load"}}}`, w, i)
			return loadgen.Request{Method: "POST", URL: base + "/api/v1/items", Header: h, Body: []byte(body)}
		}}},
		{"REST folder content, page 50, deep in 100k (from)", loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
			from := 50_000 + rand.IntN(49_000)
			return loadgen.Request{Method: "GET", URL: fmt.Sprintf("%s/api/v1/folders/%s/content?from=%d&size=50", base, s.BigFolder, from), Header: h}
		}}},
		{"REST folder content, page 50, deep in 100k (nextToken)", loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
			token := contentTokens[rand.IntN(len(contentTokens))]
			return loadgen.Request{Method: "GET", URL: fmt.Sprintf("%s/api/v1/folders/%s/content?size=50&nextToken=%s", base, s.BigFolder, token), Header: h}
		}}},
		{"REST GET /api/v1/search", loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
			words := []string{"interview", "sunset", "harbour", "concert", "press"}
			return loadgen.Request{Method: "GET", URL: base + "/api/v1/search?itemsPerPage=25&searchString=" + words[rand.IntN(len(words))], Header: h}
		}}},
		{"GraphQL grid: 50 items of the 100k folder, nested", loadgen.Config{Check: graphqlOK, Next: func(int, int) loadgen.Request {
			vars := map[string]any{"f": s.BigFolder}
			if c := gridCursors[rand.IntN(len(gridCursors))]; c != "" {
				vars["after"] = c
			}
			b, _ := json.Marshal(map[string]any{"query": grid, "variables": vars})
			return loadgen.Request{Method: "POST", URL: base + "/graphql", Header: h, Body: b}
		}}},
		{"REST PATCH itemMetadata under contention", loadgen.Config{Check: expect(200, 409), Next: func(w, i int) loadgen.Request {
			// Eight hot items; writers race with a version that is
			// often stale, as concurrent editors do.
			id := s.ItemIDs[rand.IntN(min(8, len(s.ItemIDs)))]
			body := fmt.Sprintf(`{"metadataDelta":{"formData":{"default_description":"w%d-%d"}}}`, w, i)
			return loadgen.Request{Method: "PATCH", URL: fmt.Sprintf("%s/api/v1/itemMetadata/%s?requiredMetadataVersion=%d", base, id, 1+i%4),
				Header: h, Body: []byte(body)}
		}}},
	}
}

const getItemName = "REST GET /api/v1/items/{id}"

// getItemLoad reads random items by id from base.
func getItemLoad(base string, s *benchseed.Seeded) loadgen.Config {
	h := authHeader(s.APIKey)
	return loadgen.Config{Check: expect(200), Next: func(int, int) loadgen.Request {
		return loadgen.Request{Method: "GET", URL: base + "/api/v1/items/" + s.ItemIDs[rand.IntN(len(s.ItemIDs))], Header: h}
	}}
}

// referenceRow measures the hand-written get-item handler on the same load.
func referenceRow(ctx context.Context, dbURL string, s *benchseed.Seeded, measure func(string, loadgen.Config, int) benchRow) benchRow {
	url, stop, err := startReference(ctx, dbURL, s)
	if err != nil {
		return benchRow{Scenario: referenceName, Unmeasured: err.Error()}
	}
	defer stop()
	row := measure(referenceName, getItemLoad(url, s), 0)
	row.Note = "in the bench process"
	return row
}

// contentTokens are 200 nextTokens of the big folder's content by name,
// spread over its back half (50,000 to 99,000 deep): what a client holds
// after paging there.
func contentTokens(ctx context.Context, db *sql.DB, s *benchseed.Seeded) ([]string, error) {
	var out []string
	for k := range 200 {
		from := 50_000 + k*49_000/200
		var name, id string
		err := db.QueryRowContext(ctx, `SELECT child_name, item_id FROM item_folders
WHERE tenant_id = $1 AND folder_id = $2 AND NOT child_deleted ORDER BY child_name, item_id OFFSET $3 LIMIT 1`,
			s.TenantID, s.BigFolder, from-1).Scan(&name, &id)
		if errors.Is(err, sql.ErrNoRows) {
			break // a small (--quick) folder
		}
		if err != nil {
			return nil, fmt.Errorf("bench: content tokens: %w", err)
		}
		out = append(out, (&store.ContentCursor{From: from, ByName: true, Name: name, ID: id}).Token())
	}
	if len(out) == 0 {
		// The folder is smaller than the depth: continue after its first hit.
		var name, id string
		if err := db.QueryRowContext(ctx, `SELECT child_name, item_id FROM item_folders
WHERE tenant_id = $1 AND folder_id = $2 AND NOT child_deleted ORDER BY child_name, item_id LIMIT 1`,
			s.TenantID, s.BigFolder).Scan(&name, &id); err != nil {
			return nil, fmt.Errorf("bench: content tokens: %w", err)
		}
		out = append(out, (&store.ContentCursor{From: 1, ByName: true, Name: name, ID: id}).Token())
	}
	return out, nil
}

// gridPositions are 200 cursors spread from the start to the end of the
// big folder (by id, as the grid pages CREATED_ASC): "" is the first page.
func gridPositions(s *benchseed.Seeded) []string {
	ids := s.BigFolderItems
	out := []string{""}
	for k := 1; k < 200 && len(ids) > 0; k++ {
		id := ids[k*len(ids)/200]
		out = append(out, base64URL(id))
	}
	return out
}

func graphqlOK(status int, body []byte) error {
	if status != 200 {
		return fmt.Errorf("status %d", status)
	}
	if strings.Contains(string(body[:min(len(body), 64)]), `"errors"`) {
		return fmt.Errorf("graphql errors: %.200s", body)
	}
	return nil
}

// statementsPerRequest reads the statements Postgres ran since the last
// reset (pg_stat_statements), over the requests made.
func statementsPerRequest(ctx context.Context, db *sql.DB, requests int64) float64 {
	if requests == 0 {
		return 0
	}
	var calls float64
	err := db.QueryRowContext(ctx, `
SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND query NOT ILIKE '%pg_stat_statements%' AND query NOT IN ('BEGIN', 'COMMIT', 'ROLLBACK')`).Scan(&calls)
	if err != nil {
		return -1
	}
	return calls / float64(requests)
}

// logTopStatements writes the scenario's costliest statements (Postgres
// time) to the bench log: where the database's share of a request goes.
func logTopStatements(ctx context.Context, db *sql.DB, log io.Writer) {
	rows, err := db.QueryContext(ctx, `
SELECT calls, plans, total_exec_time + total_plan_time, mean_exec_time, mean_plan_time, left(regexp_replace(query, '\s+', ' ', 'g'), 100)
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND query NOT ILIKE '%pg_stat_statements%'
ORDER BY total_exec_time + total_plan_time DESC LIMIT 5`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var calls, plans int64
		var total, mean, meanPlan float64
		var query string
		if rows.Scan(&calls, &plans, &total, &mean, &meanPlan, &query) == nil {
			fmt.Fprintf(log, "bench:   %8d calls %8d plans %9.0f ms total %7.3f ms mean exec %7.3f ms mean plan  %s\n",
				calls, plans, total, mean, meanPlan, query)
		}
	}
}

// server is `loupe serve` run as a child process, as in production.
type server struct {
	url   string
	pprof string
	pid   int
	stop  func()
}

// profileServer takes a CPU profile of the server over a scenario's
// measured phase, when asked to; done closes when it is written.
func profileServer(ctx context.Context, c benchConfig, srv *server, name string, log io.Writer) <-chan struct{} {
	done := make(chan struct{})
	if c.profileDir == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		time.Sleep(c.warmup)
		u := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", srv.pprof, max(1, int(c.duration.Seconds())-1))
		saveProfile(u, filepath.Join(c.profileDir, slug(name)+".pprof"), log)
	}()
	return done
}

// slug is a scenario's name as a file name.
func slug(name string) string {
	return strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(name), "-"), "-")
}

// saveProfile writes what the pprof URL u answers to path.
func saveProfile(u, path string, log io.Writer) {
	resp, err := http.Get(u)
	if err != nil {
		fmt.Fprintln(log, "bench: profile:", err)
		return
	}
	defer resp.Body.Close()
	os.MkdirAll(filepath.Dir(path), 0o755) //nolint:errcheck
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(log, "bench: profile:", err)
		return
	}
	defer f.Close()
	io.Copy(f, resp.Body) //nolint:errcheck
}

// besideUs is the path of a program next to this one's executable (make
// bench builds both into bin/).
func besideUs(name string) string {
	exe, err := os.Executable()
	if err != nil {
		return name
	}
	return filepath.Join(filepath.Dir(exe), name)
}

func startServer(ctx context.Context, exe, dbURL string, profile bool, log io.Writer, env ...string) (*server, error) {
	port, err := freeTCPPort()
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	cmd := exec.CommandContext(ctx, exe, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "LOUPE_ADDR=127.0.0.1:"+strconv.Itoa(port),
		"LOUPE_LOG_LEVEL=warn", "LOUPE_BLOB_KEY="+hex.EncodeToString(key),
		// Every node on one database shares the credentials key: any of
		// them may work a job that opens a sealed secret (an ingest scan).
		"LOUPE_CREDENTIALS_KEY="+strings.Repeat("6b", 32))
	cmd.Env = append(cmd.Env, env...)
	pprofURL := ""
	if profile {
		pp, err := freeTCPPort()
		if err != nil {
			return nil, err
		}
		pprofURL = "http://127.0.0.1:" + strconv.Itoa(pp)
		cmd.Env = append(cmd.Env, "LOUPE_PPROF_ADDR=127.0.0.1:"+strconv.Itoa(pp))
	}
	cmd.Stdout, cmd.Stderr = io.Discard, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{url: "http://127.0.0.1:" + strconv.Itoa(port), pprof: pprofURL, pid: cmd.Process.Pid, stop: func() {
		cmd.Process.Signal(os.Interrupt) //nolint:errcheck
		cmd.Wait()                       //nolint:errcheck
	}}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("bench: loupe serve did not become ready")
}

func freeTCPPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// pgbenchRows measures `pgbench -S` (select-only, the physical limit of a
// one-row read here) at the same concurrency, with the simple and the
// prepared protocol.
func pgbenchRows(ctx context.Context, cl *pgcluster.Cluster, c benchConfig, log io.Writer) []benchRow {
	bin := pgbenchPath(cl.BinDir())
	if err := cl.EnsureDatabase(ctx, "pgbench"); err != nil {
		return []benchRow{{Scenario: "pgbench -S", Unmeasured: err.Error()}}
	}
	url := cl.URL("pgbench")
	if out, err := exec.CommandContext(ctx, bin, "-i", "-q", "-s", "10", url).CombinedOutput(); err != nil {
		return []benchRow{{Scenario: "pgbench -S", Unmeasured: fmt.Sprintf("%v: %s", err, out)}}
	}
	var rows []benchRow
	for _, mode := range []string{"simple", "prepared"} {
		out, err := exec.CommandContext(ctx, bin, "-S", "-M", mode, "-c", strconv.Itoa(c.concurrency),
			"-j", strconv.Itoa(runtime.NumCPU()), "-T", strconv.Itoa(int(c.duration.Seconds())), url).CombinedOutput()
		row := benchRow{Scenario: "pgbench -S (" + mode + ")", SQLPerReq: 1}
		if err != nil {
			row.Unmeasured = fmt.Sprintf("%v", err)
		}
		if m := regexp.MustCompile(`tps = ([\d.]+)`).FindSubmatch(out); m != nil {
			row.Result.RPS, _ = strconv.ParseFloat(string(m[1]), 64)
		}
		if m := regexp.MustCompile(`latency average = ([\d.]+) ms`).FindSubmatch(out); m != nil {
			avg, _ := strconv.ParseFloat(string(m[1]), 64)
			row.Note = fmt.Sprintf("average latency %.3f ms", avg)
		}
		fmt.Fprintf(log, "bench: %-40s %8.0f tps\n", row.Scenario, row.Result.RPS)
		rows = append(rows, row)
	}
	return rows
}

// postgraphileRows measures PostGraphile on the same database with the
// equivalent by-id and grid queries.
func postgraphileRows(ctx context.Context, c benchConfig, dbURL string, s *benchseed.Seeded,
	measure func(string, loadgen.Config, int) benchRow, log io.Writer) []benchRow {
	cli, err := postgraphile.Install(ctx, filepath.Join(c.cacheDir, "postgraphile"), log)
	if err != nil {
		return []benchRow{{Scenario: "PostGraphile", Unmeasured: err.Error()}}
	}
	port, err := freeTCPPort()
	if err != nil {
		return []benchRow{{Scenario: "PostGraphile", Unmeasured: err.Error()}}
	}
	stop, err := postgraphile.Start(ctx, cli, dbURL, port, log)
	if err != nil {
		return []benchRow{{Scenario: "PostGraphile", Unmeasured: err.Error()}}
	}
	defer stop() //nolint:errcheck
	url := fmt.Sprintf("http://127.0.0.1:%d/graphql", port)
	byID, grid := postgraphile.Queries()
	h := http.Header{"Content-Type": {"application/json"}}
	post := func(q string, vars map[string]any) loadgen.Request {
		b, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
		return loadgen.Request{Method: "POST", URL: url, Header: h, Body: b}
	}
	positions := len(s.BigFolderItems)
	return []benchRow{
		measure("PostGraphile by id", loadgen.Config{Check: graphqlOK, Next: func(int, int) loadgen.Request {
			return post(byID(s.TenantID, s.ItemIDs[rand.IntN(len(s.ItemIDs))]))
		}}, 0),
		measure("PostGraphile grid (equivalent nested page)", loadgen.Config{Check: graphqlOK, Next: func(int, int) loadgen.Request {
			return post(grid(s.TenantID, s.BigFolder, (rand.IntN(200)*positions/200)/50*50))
		}}, 0),
	}
}

// pgbenchPath finds pgbench beside the server binaries the cluster runs,
// following a symlinked initdb (Debian links some tools into /usr/local/bin
// but not pgbench).
func pgbenchPath(binDir string) string {
	if p := filepath.Join(binDir, "pgbench"); fileExists(p) {
		return p
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(binDir, "initdb")); err == nil {
		if p := filepath.Join(filepath.Dir(real), "pgbench"); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	return "pgbench"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
