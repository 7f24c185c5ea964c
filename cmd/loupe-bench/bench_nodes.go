package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/bench/loadgen"
	"github.com/loupe-mam/loupe/internal/testkit/pgbouncertest"
)

// The several-nodes rows (issue 34; docs/scaling.md, "Several nodes"):
// `loupe serve` processes on the bench's one Postgres, their request pools
// through PgBouncer in transaction mode (LOUPE_DATABASE_POOLER=transaction,
// their LISTEN connections on LOUPE_DATABASE_DIRECT_URL), each pinned to a
// core with taskset, the load spread over them; the reference, one node on
// one core straight to the database, is measured in the same run. A last
// row counts the jobs each node worked (webhook deliveries, from
// river_job.attempted_by).
//
// The nodes get a core each, but the database, PgBouncer and the load
// generator run on the same cores, unpinned: on a small machine the rows
// show what the pooler costs and that the load and the jobs spread, more
// than how far throughput grows with cores.

// nodesPoolSize is PgBouncer's server connections, for all the nodes
// together (each node's own pool, LOUPE_DB_POOL, stays 8).
const nodesPoolSize = 8

// nodesJobs is the webhook deliveries the jobs row makes.
const nodesJobs = 300

// nodesScenarios are the loads measured on each setup (loupeScenarios'
// own definitions).
var nodesScenarios = []string{getItemName, "REST POST /api/v1/items"}

// nodeSetup is a set of nodes measured together.
type nodeSetup struct {
	name   string
	cores  []int // the core each node is pinned to; nil: one node, unpinned
	pooled bool  // through PgBouncer
	// unnamed: straight to the database, but with the statements sent as
	// through the pooler (none prepared by name): what the pooler's hop
	// costs apart from the planning it makes every query pay.
	unnamed bool
}

// nodesRow is a row of the nodes section.
type nodesRow struct {
	benchRow
	Setup string
}

// nodesRows measures n nodes against one node on one core.
func nodesRows(ctx context.Context, c benchConfig, dbURL string, s *benchseed.Seeded,
	measure func(string, loadgen.Config, int) benchRow, log io.Writer) []nodesRow {
	n := c.nodes
	if n <= 0 {
		n = 3 // a full run
	}
	_, pin := exec.LookPath("taskset")
	cpus := runtime.NumCPU()
	pinned := func(k int) []int {
		cores := make([]int, k)
		for i := range cores {
			cores[i] = i % cpus
		}
		return cores
	}
	// Straight to the database first: the reference, one node on one core;
	// one node given every core; more nodes, a core each. Then what the
	// pooler costs: its statements alone, its hop, more nodes behind it.
	setups := []nodeSetup{
		{name: "1 node, 1 core, direct", cores: []int{0}},
		{name: fmt.Sprintf("1 node, %d cores (unpinned), direct", cpus)},
	}
	for k := 2; k <= n; k++ {
		setups = append(setups, nodeSetup{name: fmt.Sprintf("%d nodes, %d cores, direct", k, min(k, cpus)), cores: pinned(k)})
	}
	setups = append(setups,
		nodeSetup{name: "1 node, 1 core, direct, no named statements", cores: []int{0}, unnamed: true},
		nodeSetup{name: "1 node, 1 core, PgBouncer", cores: []int{0}, pooled: true})
	for k := 2; k <= n; k++ {
		setups = append(setups, nodeSetup{name: fmt.Sprintf("%d nodes, %d cores, PgBouncer", k, min(k, cpus)), cores: pinned(k), pooled: true})
	}
	// Each scenario on fresh nodes and, when pooled, a fresh PgBouncer:
	// 1.18 may crash when clients cancel statements (the load's end cuts
	// its connections, the nodes cancel what they were running), and a
	// scenario must not inherit a dead pooler.
	var rows []nodesRow
	for _, su := range setups {
		for _, name := range nodesScenarios {
			row := nodesRow{benchRow: benchRow{Scenario: name}, Setup: su.name}
			bouncer, nodes, stop, err := startSetup(ctx, c, su, dbURL, pin == nil, log, "LOUPE_WORKERS=-1")
			if err != nil {
				row.Unmeasured = err.Error()
				rows = append(rows, row)
				continue
			}
			bases := make([]string, len(nodes))
			for i, nd := range nodes {
				bases[i] = nd.url
			}
			row.benchRow = measure(name+" — "+su.name, spread(bases, s, name), nodes[0].pid)
			row.Scenario = name
			row.Note = pinNote(su, pin == nil)
			// The load's end has just cut its connections: the nodes
			// cancel what those were waiting for. Did the pooler survive?
			time.Sleep(time.Second)
			if bouncer != nil && bouncer.Exited() {
				row.Note += "; PgBouncer crashed right after, as the nodes cancelled the dropped clients' statements (pgbouncer#801)"
			}
			rows = append(rows, row)
			stop()
		}
	}
	rows = append(rows, jobsSpreadRow(ctx, c, s, setups[len(setups)-1], dbURL, pin == nil, log))
	return rows
}

// pinNote says where the nodes ran.
func pinNote(su nodeSetup, pinned bool) string {
	switch {
	case su.cores == nil:
		return "unpinned"
	case !pinned:
		return "not pinned: taskset is missing"
	}
	cs := make([]string, len(su.cores))
	for i, c := range su.cores {
		cs[i] = strconv.Itoa(c)
	}
	return "nodes on cores " + strings.Join(cs, ", ")
}

// startSetup starts the setup's PgBouncer (when pooled; nil otherwise) and
// nodes, and answers how to stop them all.
func startSetup(ctx context.Context, c benchConfig, su nodeSetup, dbURL string, pin bool, log io.Writer,
	env ...string) (*pgbouncertest.Bouncer, []*server, func(), error) {
	var bouncer *pgbouncertest.Bouncer
	pooled := dbURL
	if su.pooled {
		var err error
		bouncer, err = pgbouncertest.Start(ctx, dbURL, pgbouncertest.Options{PoolSize: nodesPoolSize, Log: log})
		if err != nil {
			return nil, nil, nil, err
		}
		pooled = bouncer.URL(dbURL)
	}
	nodes, stop, err := startNodes(ctx, c, su, dbURL, pooled, pin, log, env...)
	if err != nil {
		if bouncer != nil {
			bouncer.Stop()
		}
		return nil, nil, nil, err
	}
	return bouncer, nodes, func() {
		stop()
		if bouncer != nil {
			bouncer.Stop()
		}
	}, nil
}

// startNodes starts the setup's nodes, pinned to their cores when taskset
// is there (with GOMAXPROCS 1: one core's worth of Go), and answers how to
// stop them all.
func startNodes(ctx context.Context, c benchConfig, su nodeSetup, dbURL, pooled string, pin bool, log io.Writer,
	env ...string) ([]*server, func(), error) {
	count := max(len(su.cores), 1)
	var nodes []*server
	stop := func() {
		for _, nd := range nodes {
			nd.stop()
		}
	}
	for i := range count {
		e := append([]string{"LOUPE_METRICS_ADDR=off", "LOUPE_INSTANCE_ID=bench-node-" + strconv.Itoa(i+1)}, env...)
		url := dbURL
		switch {
		case su.pooled:
			url = pooled
			e = append(e, "LOUPE_DATABASE_POOLER=transaction", "LOUPE_DATABASE_DIRECT_URL="+dbURL)
		case su.unnamed:
			e = append(e, "LOUPE_DATABASE_POOLER=transaction", "LOUPE_DATABASE_DIRECT_URL="+dbURL)
		}
		if su.cores != nil && pin {
			e = append(e, "GOMAXPROCS=1")
		}
		nd, err := startServer(ctx, c.loupe, url, false, log, e...)
		if err != nil {
			stop()
			return nil, nil, err
		}
		nodes = append(nodes, nd)
		if su.cores != nil && pin {
			// Every thread of the process, and so the threads it makes later.
			if out, err := exec.CommandContext(ctx, "taskset", "-a", "-p", "-c", strconv.Itoa(su.cores[i]),
				strconv.Itoa(nd.pid)).CombinedOutput(); err != nil {
				stop()
				return nil, nil, fmt.Errorf("taskset: %v %s", err, out)
			}
		}
	}
	return nodes, stop, nil
}

// spread is scenario name's load with each client on one of the nodes, in
// turn: client w keeps its connection to node w mod len(bases), as behind a
// load balancer that balances connections.
func spread(bases []string, s *benchseed.Seeded, name string) loadgen.Config {
	cfgs := make([]loadgen.Config, len(bases))
	for i, base := range bases {
		for _, sc := range loupeScenarios(base, s, nil) {
			if sc.name == name {
				cfgs[i] = sc.cfg
			}
		}
	}
	return loadgen.Config{Check: cfgs[0].Check, Next: func(w, i int) loadgen.Request {
		return cfgs[w%len(cfgs)].Next(w, i)
	}}
}

// jobsSpreadRow starts the setup's nodes working their jobs, has them make
// nodesJobs webhook deliveries (a hook on item creations, the items
// created through the nodes in turn) and counts the deliveries each node
// worked (river_job.attempted_by).
func jobsSpreadRow(ctx context.Context, c benchConfig, s *benchseed.Seeded, su nodeSetup, dbURL string, pin bool,
	log io.Writer) nodesRow {
	row := nodesRow{benchRow: benchRow{Scenario: fmt.Sprintf("jobs worked per node (%d webhook deliveries)", nodesJobs)}, Setup: su.name}
	var got atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // counted only
		got.Add(1)
	}))
	defer recv.Close()
	_, nodes, stop, err := startSetup(ctx, c, su, dbURL, pin, log, "LOUPE_WEBHOOKS_ALLOW_PRIVATE=true")
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	defer stop()
	call := func(base, method, path, body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
		req.Header = authHeader(s.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := call(nodes[0].url, "POST", "/config/api/v1/config/webhooks", `{"type":"itemCreation","url":"`+recv.URL+`"}`)
	var hook struct{ Webhook struct{ ID string } }
	json.Unmarshal([]byte(body), &hook) //nolint:errcheck // checked below
	hookID := hook.Webhook.ID
	if code != 200 || hookID == "" {
		row.Unmeasured = fmt.Sprintf("the hook: %d %.200s", code, body)
		return row
	}
	defer call(nodes[0].url, "DELETE", "/config/api/v1/config/webhooks/"+hookID, "")
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range 16 {
		wg.Go(func() {
			base := nodes[w%len(nodes)].url
			for i := next.Add(1); i <= nodesJobs; i = next.Add(1) {
				call(base, "POST", "/api/v1/items", fmt.Sprintf(`{"title":"Spread %d","itemType":"video"}`, i))
			}
		})
	}
	wg.Wait()
	for deadline := time.Now().Add(3 * time.Minute); got.Load() < nodesJobs && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(start)
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, `
SELECT attempted_by[array_length(attempted_by, 1)], count(*) FROM river_job
WHERE kind = 'deliver_webhook' AND args->>'webhookId' = $1 GROUP BY 1 ORDER BY 1`, hookID)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	defer rs.Close()
	var per []string
	for rs.Next() {
		var node sql.NullString
		var n int
		if rs.Scan(&node, &n) == nil {
			per = append(per, fmt.Sprintf("%s: %d", node.String, n))
		}
	}
	row.Note = fmt.Sprintf("%s; %d of %d delivered in %.1f s", strings.Join(per, ", "), got.Load(), nodesJobs, took.Seconds())
	fmt.Fprintf(log, "bench: %s: %s\n", row.Scenario, row.Note)
	return row
}

// nodesReport renders the rows as the report's several-nodes section.
func nodesReport(rows []nodesRow) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Several nodes (issue 34)\n\n`loupe serve` nodes on the one database, straight to it (direct) or with their requests and job queues "+
		"through PgBouncer %s in transaction mode (%d server connections; `LOUPE_DATABASE_POOLER=transaction`), each pinned to a core "+
		"(taskset, GOMAXPROCS=1) unless said, each client of the load on one node in turn. The database, PgBouncer and the load "+
		"generator share the machine's %d cores with the nodes, unpinned (docs/scaling.md, \"Several nodes\").\n\n",
		pgbouncerVersion(), nodesPoolSize, runtime.NumCPU())
	b.WriteString("| scenario | setup | req/s | p50 | p99 | SQL/req | errors | note |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	rps := map[string]float64{}
	for _, r := range rows {
		rps[r.Scenario+"|"+r.Setup] = r.Result.RPS
		switch {
		case r.Unmeasured != "":
			fmt.Fprintf(&b, "| %s | %s | – | – | – | – | – | not measured: %s |\n", r.Scenario, r.Setup, oneLine(r.Unmeasured))
		case r.Result.Requests == 0 && r.Result.RPS == 0:
			fmt.Fprintf(&b, "| %s | %s | – | – | – | – | – | %s |\n", r.Scenario, r.Setup, oneLine(r.Note))
		default:
			fmt.Fprintf(&b, "| %s | %s | %.0f | %s | %s | %.2f | %d | %s |\n", r.Scenario, r.Setup, r.Result.RPS,
				ms(r.Result.P50), ms(r.Result.P99), r.SQLPerReq, r.Result.Errors, oneLine(r.Note+" "+r.Result.FirstError))
		}
	}
	// Each setup against the reference, one node on one core, direct.
	b.WriteString("\n| ratio | " + strings.Join(nodesScenarios, " | ") + " |\n|---|" + strings.Repeat("---:|", len(nodesScenarios)) + "\n")
	var setups []string
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Result.RPS > 0 && !seen[r.Setup] {
			seen[r.Setup] = true
			setups = append(setups, r.Setup)
		}
	}
	for _, su := range setups[min(1, len(setups)):] {
		fmt.Fprintf(&b, "| %s / %s |", su, setups[0])
		for _, sc := range nodesScenarios {
			if x, y := rps[sc+"|"+su], rps[sc+"|"+setups[0]]; x > 0 && y > 0 {
				fmt.Fprintf(&b, " %.2f |", x/y)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// pgbouncerVersion is the pooler's version ("" when unknown).
func pgbouncerVersion() string {
	bin, err := pgbouncertest.Binary()
	if err != nil {
		return ""
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.SplitN(string(out), "\n", 2)[0], "PgBouncer ")
}
