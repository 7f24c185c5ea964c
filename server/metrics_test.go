package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// scrape reads the server's metrics as Prometheus does: the exposition
// text its /metrics answers, parsed.
func scrape(t *testing.T, api *loupetest.API) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	api.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", metrics.Path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics answered %d: %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("/metrics is not the text format: %v", err)
	}
	return fams
}

// series answers the metric of family name whose labels include want
// (nil when none does).
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func counter(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	m := series(fams, name, labels)
	if m == nil {
		t.Fatalf("no series %s%v", name, labels)
	}
	return m.GetCounter().GetValue()
}

func observations(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) uint64 {
	t.Helper()
	m := series(fams, name, labels)
	if m == nil {
		t.Fatalf("no series %s%v", name, labels)
	}
	return m.GetHistogram().GetSampleCount()
}

type waitingArgs struct{}

func (waitingArgs) Kind() string { return "test_metrics_waiting" }

// The metrics an operator scrapes move with the requests: REST by route
// pattern (never the id in the path), /graphql by operation name (named and
// anonymous; REST's stored documents not among them), with latency
// observations for both; the pools, the job queue, uploads, processing and
// the events feed are there.
func TestMetricsScrape(t *testing.T) {
	api := loupetest.New(t)
	c := api.Tenant(t, "metrics")
	var created struct {
		CreateItem struct{ Item struct{ ID string } }
	}
	c.GraphQL(t, `mutation CreateClip($in: CreateItemInput!) { createItem(input: $in) { item { id } } }`,
		map[string]any{"in": map[string]any{"title": "Clip", "itemType": "video"}}).OK(&created)
	id := created.CreateItem.Item.ID
	for range 3 {
		c.Do(t, "GET", "/api/v1/items/"+id, nil).Status(http.StatusOK)
	}
	missing := uuid.NewString()
	c.Do(t, "GET", "/api/v1/items/"+missing, nil).Status(http.StatusNotFound)
	c.GraphQL(t, `query WhoAmI { __typename }`, nil).OK(nil)
	c.GraphQL(t, `{ __typename }`, nil).OK(nil)
	// A document that does not validate has no operation to name it: it
	// counts under the operationName the request gives.
	c.Post(t, "/graphql", map[string]any{"query": `query Broken { nope }`, "operationName": "Broken"})
	// A job no node works waits in the queue.
	if _, err := api.Jobs.Insert(context.Background(), waitingArgs{}, nil); err != nil {
		t.Fatal(err)
	}

	fams := scrape(t, api)
	item := map[string]string{"route": "/api/v1/items/{itemId}", "method": "GET"}
	if got := counter(t, fams, "loupe_http_requests_total", with(item, "code", "200")); got != 3 {
		t.Errorf("GET item answered 200: counted %v, want 3", got)
	}
	if got := counter(t, fams, "loupe_http_requests_total", with(item, "code", "404")); got != 1 {
		t.Errorf("GET item answered 404: counted %v, want 1", got)
	}
	if got := observations(t, fams, "loupe_http_request_duration_seconds", item); got != 4 {
		t.Errorf("GET item latency: %d observations, want 4", got)
	}
	if got := observations(t, fams, "loupe_http_request_duration_seconds", map[string]string{"route": "/graphql", "method": "POST"}); got < 4 {
		t.Errorf("/graphql latency: %d observations, want at least 4", got)
	}
	for _, c := range []struct {
		op, outcome string
		want        float64
	}{
		{"CreateClip", "ok", 1}, {"WhoAmI", "ok", 1}, {"Broken", "error", 1},
	} {
		if got := counter(t, fams, "loupe_graphql_operations_total", map[string]string{"operation": c.op, "outcome": c.outcome}); got != c.want {
			t.Errorf("operation %s (%s): counted %v, want %v", c.op, c.outcome, got, c.want)
		}
	}
	// The client's warm-up and the query above.
	if got := counter(t, fams, "loupe_graphql_operations_total", map[string]string{"operation": "anonymous", "outcome": "ok"}); got < 2 {
		t.Errorf("anonymous operations: counted %v, want at least 2", got)
	}
	if got := observations(t, fams, "loupe_graphql_operation_duration_seconds", map[string]string{"operation": "WhoAmI"}); got != 1 {
		t.Errorf("WhoAmI latency: %d observations, want 1", got)
	}
	// REST runs its stored document (getItem) in-process: counted by its
	// route, not as a GraphQL operation.
	if m := series(fams, "loupe_graphql_operations_total", map[string]string{"operation": "getItem"}); m != nil {
		t.Errorf("a REST route's stored document counted as a /graphql operation: %v", m)
	}
	// No id anywhere in a label.
	for name, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if strings.Contains(l.GetValue(), id) || strings.Contains(l.GetValue(), missing) {
					t.Errorf("%s has an id in label %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}

	// The pools, as client_golang's DB stats collector names them.
	for _, db := range []string{"api", "jobs"} {
		if series(fams, "go_sql_max_open_connections", map[string]string{"db_name": db}) == nil {
			t.Errorf("no pool statistics of the %s pool", db)
		}
	}
	// The job queue: up, every kind in every state (0 where none is), the
	// waiting job by its kind.
	if m := series(fams, "loupe_job_queue_up", nil); m == nil || m.GetGauge().GetValue() != 1 {
		t.Fatalf("the job queue was not read: %v", m)
	}
	for _, st := range metrics.QueueStates {
		if series(fams, "loupe_job_queue_jobs", map[string]string{"kind": jobs.Kinds[0], "state": st}) == nil {
			t.Errorf("no queue depth of %s in state %s", jobs.Kinds[0], st)
		}
	}
	if m := series(fams, "loupe_job_queue_jobs", map[string]string{"kind": "test_metrics_waiting", "state": "available"}); m == nil || m.GetGauge().GetValue() != 1 {
		t.Errorf("the waiting job is not counted: %v", m)
	}
	if series(fams, "loupe_job_queue_oldest_available_age_seconds", map[string]string{"kind": "test_metrics_waiting"}) == nil {
		t.Errorf("no age of the waiting job's kind")
	}
	for _, name := range []string{"loupe_upload_received_bytes_total", "loupe_processing_runs_total",
		"loupe_processing_media_seconds_total", "loupe_events_feed_lag_seconds", "loupe_events_feed_read_total",
		"go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("no family %s", name)
		}
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

// However many ids appear in paths and operation names clients choose,
// the series stay bounded: routes are the router's patterns, methods a
// fixed list, operation names capped (metrics.MaxOperations, then "other").
func TestMetricsCardinalityIsBounded(t *testing.T) {
	api := loupetest.New(t)
	c := api.Tenant(t, "bounded")
	before := scrape(t, api)

	const ids, ops = 200, 1000
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	send := func(method, path string, body []byte) error {
		req, _ := http.NewRequest(method, api.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.Key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < ids; i += 4 {
				id := uuid.NewString()
				for _, r := range [][2]string{{"GET", "/api/v1/items/" + id}, {"GET", "/api/v1/items/" + id + "/ancestry"},
					{"GET", "/no/such/" + id}, {"BREW" + fmt.Sprint(i), "/api/v1/items/" + id}} {
					if err := send(r[0], r[1], nil); err != nil {
						errs <- err
						return
					}
				}
			}
			for i := w; i < ops; i += 4 {
				name := "Op_" + strings.ReplaceAll(uuid.NewString(), "-", "")
				b, _ := json.Marshal(map[string]any{"query": "query " + name + " { __typename }"})
				if err := send("POST", "/graphql", b); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	after := scrape(t, api)
	for _, b := range []struct {
		family string
		max    int
	}{
		// A handful of routes × methods × codes, whatever the ids.
		{"loupe_http_requests_total", 20},
		{"loupe_http_request_duration_seconds", 12},
		// The names under the cap, anonymous and other; ok and error.
		{"loupe_graphql_operations_total", 2 * (metrics.MaxOperations + 2)},
		{"loupe_graphql_operation_duration_seconds", metrics.MaxOperations + 2},
	} {
		f := after[b.family]
		if f == nil {
			t.Fatalf("no family %s", b.family)
		}
		if n := len(f.Metric); n > b.max {
			t.Errorf("%s has %d series after %d ids and %d operation names, want at most %d", b.family, n, ids, ops, b.max)
		}
		t.Logf("%s: %d series (at most %d; %d before)", b.family, len(f.Metric), b.max, len(before[b.family].GetMetric()))
	}
	if got := counter(t, after, "loupe_graphql_operations_total", map[string]string{"operation": metrics.Other, "outcome": "ok"}); got != ops-metrics.MaxOperations {
		t.Errorf("operations counted as other: %v, want %d", got, ops-metrics.MaxOperations)
	}
	if got := counter(t, after, "loupe_http_requests_total", map[string]string{"route": metrics.NoRoute, "method": "GET"}); got != ids {
		t.Errorf("requests no route matched: %v, want %d", got, ids)
	}
	methods := map[string]bool{}
	for _, m := range after["loupe_http_requests_total"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "method" {
				methods[l.GetValue()] = true
			}
		}
	}
	if !methods[metrics.Other] || len(methods) != 3 { // GET, POST, other
		t.Errorf("method labels %v, want GET, POST and other (the BREWs)", methods)
	}
}
