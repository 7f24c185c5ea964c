package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/bench/loadgen"
)

// The events rows (issue 29, docs/events.md): what the outbox costs the
// writes it rides on, against a build without it on the same database;
// how long a committed change takes to reach a thousand subscribers, on
// the node that took it and across two; how many webhook deliveries a
// node makes per second.

const (
	costRounds      = 4
	subscribers     = 1000
	latencyChanges  = 100
	webhookMessages = 2000
)

// eventRow is one line of the events table.
type eventRow struct {
	Scenario string
	Count    int
	P50, P99 time.Duration
	PerSec   float64
	Note     string
}

// outboxCostRows measures the write scenarios on main's server and on
// base's (a build from before the outbox, c.baseLoupe), costRounds times
// each in A B B A order: the ratio is the outbox's cost.
func outboxCostRows(ctx context.Context, c benchConfig, dbURL string, main *server, s *benchseed.Seeded,
	measure func(string, loadgen.Config, int) benchRow, log io.Writer) []benchRow {
	if c.baseLoupe == "" {
		return nil
	}
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return []benchRow{{Scenario: "outbox cost", Unmeasured: err.Error()}}
	}
	defer db.Close()
	var rows []benchRow
	for _, name := range []string{"REST POST /api/v1/items", "REST PATCH itemMetadata under contention"} {
		var with, without []benchRow
		run := func(srv *server, label string, into *[]benchRow) {
			// Each run from a vacuumed database: the tables the runs grow
			// would otherwise be vacuumed in the middle of one or another.
			if _, err := db.ExecContext(ctx, `VACUUM (ANALYZE)`); err != nil {
				fmt.Fprintf(log, "bench: vacuum before %s: %v\n", label, err)
			}
			for _, sc := range loupeScenarios(srv.url, s, nil) {
				if sc.name == name {
					*into = append(*into, measure(name+label, sc.cfg, srv.pid))
				}
			}
		}
		// The base build runs only for its own runs: a node that is up
		// but idle still hears every commit's notification (its listener),
		// which a one-node deployment of the outbox does not pay.
		runBase := func() {
			base, err := startServer(ctx, c.baseLoupe, dbURL, false, log, "LOUPE_WORKERS=-1")
			if err != nil {
				without = append(without, benchRow{Scenario: name + " (no outbox: base build)", Unmeasured: err.Error()})
				return
			}
			defer base.stop()
			run(base, " (no outbox: base build)", &without)
		}
		// A B B A A B B A: a drift over the runs (the tables grow,
		// checkpoints) weighs on both builds alike.
		for round := range costRounds {
			if round%2 == 0 {
				run(main, " (outbox)", &with)
				runBase()
			} else {
				runBase()
				run(main, " (outbox)", &with)
			}
		}
		rows = append(rows, meanRow(with), meanRow(without))
	}
	return rows
}

// meanRow is runs as one row: their mean rate, the first's latencies, each
// rate in the note.
func meanRow(runs []benchRow) benchRow {
	r := runs[0]
	var sum float64
	var each []string
	for _, x := range runs {
		sum += x.Result.RPS
		each = append(each, fmt.Sprintf("%.0f", x.Result.RPS))
	}
	r.Result.RPS = sum / float64(len(runs))
	r.Note = "runs alternated with the other build: " + strings.Join(each, ", ") + " req/s"
	return r
}

// latencyRow subscribes `subscribers` times over SSE on sub to one item's
// events, changes the item latencyChanges times through change (paced,
// one at a time) and measures, per subscriber and change, from sending the
// change to receiving its event.
func latencyRow(ctx context.Context, name string, change, sub *server, s *benchseed.Seeded) eventRow {
	row := eventRow{Scenario: name}
	item := s.ItemIDs[len(s.ItemIDs)/2]
	key := s.APIKey
	var (
		mu      sync.Mutex
		sent    = map[float64]time.Time{}
		lat     []time.Duration
		ready   sync.WaitGroup
		dropped atomic.Int64
	)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subscribers, MaxConnsPerHost: 0}}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": `subscription($i: ID) { itemEvents(itemId: $i) { data } }`,
		"variables": map[string]any{"i": item}})
	ready.Add(subscribers)
	for range subscribers {
		go func() {
			req, _ := http.NewRequestWithContext(sctx, "POST", sub.url+"/graphql", strings.NewReader(string(body)))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "text/event-stream")
			resp, err := client.Do(req)
			ready.Done()
			if err != nil {
				dropped.Add(1)
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				now := time.Now()
				var r struct {
					Data struct {
						ItemEvents struct {
							Data struct{ MetadataVersion float64 }
						}
					}
				}
				if json.Unmarshal([]byte(data), &r) != nil {
					continue
				}
				v := r.Data.ItemEvents.Data.MetadataVersion
				mu.Lock()
				if at, ok := sent[v]; ok {
					lat = append(lat, now.Sub(at))
				}
				mu.Unlock()
			}
		}()
	}
	ready.Wait()
	time.Sleep(2 * time.Second) // every subscription in place
	version, err := metadataVersion(ctx, change.url, key, item)
	if err != nil {
		row.Note = "not measured: " + err.Error()
		return row
	}
	h := authHeader(key)
	for i := range latencyChanges {
		b := fmt.Sprintf(`{"metadataDelta":{"formData":{"default_description":"latency %d"}}}`, i)
		req, _ := http.NewRequestWithContext(ctx, "PATCH", change.url+"/api/v1/itemMetadata/"+item, strings.NewReader(b))
		req.Header = h.Clone()
		req.Header.Set("Content-Type", "application/json")
		mu.Lock()
		sent[float64(version+i+1)] = time.Now()
		mu.Unlock()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			row.Note = "not measured: " + err.Error()
			return row
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck // drained
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // the last events arrive
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	row.Count = len(lat)
	if len(lat) > 0 {
		row.P50, row.P99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	row.Note = fmt.Sprintf("%d subscribers (SSE) × %d changes, %d deliveries of %d expected; %d subscriptions failed",
		subscribers, latencyChanges, len(lat), subscribers*latencyChanges, dropped.Load())
	return row
}

func metadataVersion(ctx context.Context, base, key, item string) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/items/"+item, nil)
	req.Header = authHeader(key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var it struct {
		MetadataVersion int `json:"metadataVersion"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&it); err != nil {
		return 0, err
	}
	return it.MetadataVersion, nil
}

// webhookRow creates webhookMessages items through a node that works its
// jobs and measures how fast a hook for item creations receives them.
func webhookRow(ctx context.Context, c benchConfig, dbURL string, s *benchseed.Seeded, log io.Writer) eventRow {
	row := eventRow{Scenario: "webhook deliveries to a local receiver", Count: webhookMessages}
	var (
		got         atomic.Int64
		first, last atomic.Int64
	)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // counted only
		now := time.Now().UnixNano()
		first.CompareAndSwap(0, now)
		last.Store(now)
		got.Add(1)
	}))
	defer recv.Close()
	srv, err := startServer(ctx, c.loupe, dbURL, false, log, "LOUPE_WEBHOOKS_ALLOW_PRIVATE=true")
	if err != nil {
		row.Note = "not measured: " + err.Error()
		return row
	}
	defer srv.stop()
	h := authHeader(s.APIKey)
	post := func(path, body string) (map[string]any, error) {
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.url+path, strings.NewReader(body))
		req.Header = h.Clone()
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // checked by the caller
		return out, nil
	}
	hook, err := post("/config/api/v1/config/webhooks", `{"type":"itemCreation","url":"`+recv.URL+`"}`)
	if err != nil || hook["webhook"] == nil {
		row.Note = fmt.Sprintf("not measured: the hook: %v %v", err, hook)
		return row
	}
	hookID := hook["webhook"].(map[string]any)["id"].(string)
	defer func() {
		req, _ := http.NewRequest("DELETE", srv.url+"/config/api/v1/config/webhooks/"+hookID, nil)
		req.Header = h
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= webhookMessages; i = next.Add(1) {
				post("/api/v1/items", fmt.Sprintf(`{"title":"Hooked %d","itemType":"video"}`, i)) //nolint:errcheck // counted at the receiver
			}
		}()
	}
	wg.Wait()
	created := time.Since(start)
	for deadline := time.Now().Add(5 * time.Minute); got.Load() < webhookMessages && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	n := got.Load()
	span := time.Duration(last.Load() - first.Load())
	if n > 1 && span > 0 {
		row.PerSec = float64(n-1) / span.Seconds()
	}
	row.Note = fmt.Sprintf("%d of %d received; items created at %.0f/s meanwhile (16 clients); one node's workers",
		n, webhookMessages, float64(webhookMessages)/created.Seconds())
	return row
}

// eventsRows are the latency and webhook rows.
func eventsRows(ctx context.Context, c benchConfig, dbURL string, main *server, s *benchseed.Seeded, log io.Writer) []eventRow {
	var rows []eventRow
	rows = append(rows, latencyRow(ctx, "commit → subscriber, one node", main, main, s))
	other, err := startServer(ctx, c.loupe, dbURL, false, log, "LOUPE_WORKERS=-1")
	if err != nil {
		rows = append(rows, eventRow{Scenario: "commit → subscriber, across two nodes", Note: "not measured: " + err.Error()})
	} else {
		rows = append(rows, latencyRow(ctx, "commit → subscriber, across two nodes", main, other, s))
		other.stop()
	}
	return append(rows, webhookRow(ctx, c, dbURL, s, log))
}

// eventsReport renders the events rows and the outbox's cost.
func eventsReport(rows []eventRow, cost []benchRow) string {
	if len(rows) == 0 && len(cost) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Events (issue 29)\n\n| scenario | count | p50 | p99 | per second | note |\n|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		per := "–"
		if r.PerSec > 0 {
			per = fmt.Sprintf("%.0f", r.PerSec)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", r.Scenario, r.Count, ms(r.P50), ms(r.P99), per, oneLine(r.Note))
	}
	b.WriteString("\n| ratio | value | target |\n|---|---:|---:|\n")
	for _, r := range rows {
		if strings.HasPrefix(r.Scenario, "commit") && r.P99 > 0 {
			fmt.Fprintf(&b, "| %s, p99 | %s | < 100 ms |\n", r.Scenario, ms(r.P99))
		}
	}
	for i := 0; i+1 < len(cost); i += 2 {
		with, without := cost[i], cost[i+1]
		if with.Result.RPS > 0 && without.Result.RPS > 0 {
			fmt.Fprintf(&b, "| %s / the same without the outbox | %.2f | ≥ 0.90 |\n", strings.TrimSuffix(with.Scenario, " (outbox)"),
				with.Result.RPS/without.Result.RPS)
		}
	}
	return b.String()
}
