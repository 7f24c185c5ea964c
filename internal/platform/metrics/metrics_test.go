package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/internal/testkit/sqlcount"
	"github.com/loupe-mam/loupe/store"
)

// A route's label is the pattern it matched through every level of
// mounted routers, never the path (with its ids); a request no route
// matched is NoRoute; an odd method is Other.
func TestRouteLabelIsThePattern(t *testing.T) {
	m := metrics.New()
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			start := time.Now()
			next.ServeHTTP(w, req)
			m.ObserveHTTP(req, w.(interface{ Status() int }).Status(), time.Since(start), false)
		})
	})
	items := chi.NewRouter()
	items.Get("/{itemId}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	r.Route("/api/v1", func(r chi.Router) { r.Mount("/items", items) })
	serve := func(method, path string) {
		rec := &statusRecorder{ResponseRecorder: httptest.NewRecorder()}
		r.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	}
	serve("GET", "/api/v1/items/0191d2a3-aaaa")
	serve("GET", "/api/v1/items/0191d2a3-bbbb")
	serve("GET", "/nowhere/42")
	serve("BREW", "/nowhere/43")
	want := `
# HELP loupe_http_requests_total HTTP requests answered, by route pattern (the router's, never the path: no ids), method and status code.
# TYPE loupe_http_requests_total counter
loupe_http_requests_total{code="404",method="GET",route="none"} 1
loupe_http_requests_total{code="405",method="other",route="none"} 1
loupe_http_requests_total{code="418",method="GET",route="/api/v1/items/{itemId}"} 2
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "loupe_http_requests_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.Registry(), "loupe_http_request_duration_seconds"); n != 3 {
		t.Fatalf("%d latency series, want 3", n)
	}
}

// statusRecorder remembers the status, as the server's request log does.
type statusRecorder struct {
	*httptest.ResponseRecorder
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseRecorder.WriteHeader(code) }
func (s *statusRecorder) Status() int          { return s.status }

// Code built without metrics calls the same handles.
func TestNilMetricsCountNothing(t *testing.T) {
	var m *metrics.Metrics
	m.ObserveHTTP(httptest.NewRequest("GET", "/", nil), 200, time.Millisecond, false)
	m.UploadReceived(10)
	m.ProcessingRun(metrics.ProcessingSucceeded, 3)
	m.EventsRead(1, time.Now())
	m.WatchDB("api", nil)
	m.WatchJobQueue(nil, nil)
	if m.GraphQL() != nil || m.JobMiddleware() != nil {
		t.Fatal("nil metrics made an extension or a middleware")
	}
}

// values answers family name's values by the value of label.
func values(t *testing.T, m *metrics.Metrics, name, label string) map[string]float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.Metric {
			out[labelOf(s, label)] += value(s)
		}
	}
	return out
}

func labelOf(s *dto.Metric, name string) string {
	for _, l := range s.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func value(s *dto.Metric) float64 {
	switch {
	case s.Counter != nil:
		return s.Counter.GetValue()
	case s.Gauge != nil:
		return s.Gauge.GetValue()
	}
	return 0
}

// Each attempt is counted by its kind and outcome, a panic too (and the
// panic goes on to River's recovery).
func TestJobMiddlewareCountsOutcomes(t *testing.T) {
	m := metrics.New()
	mw := m.JobMiddleware().(rivertype.WorkerMiddleware)
	job := &rivertype.JobRow{Kind: "process_item"}
	for _, err := range []error{nil, errors.New("down"), river.JobCancel(errors.New("bad media")), river.JobSnooze(time.Second)} {
		mw.Work(context.Background(), job, func(context.Context) error { return err }) //nolint:errcheck // the outcome is the test
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not go on")
			}
		}()
		mw.Work(context.Background(), job, func(context.Context) error { panic("boom") }) //nolint:errcheck // panics
	}()
	got := values(t, m, "loupe_jobs_worked_total", "outcome")
	for _, o := range []string{"succeeded", "error", "cancelled", "snoozed", "panic"} {
		if got[o] != 1 {
			t.Errorf("outcome %s counted %v, want 1 (all: %v)", o, got[o], got)
		}
	}
	if n := testutil.CollectAndCount(m.Registry(), "loupe_job_duration_seconds"); n != 1 {
		t.Errorf("%d duration series, want 1", n)
	}
}

// The queue is read once per window however many scrapes come, reports
// every known kind (0 where none waits) and the others it finds; a queue
// that cannot be read leaves its series out but not the scrape.
func TestJobQueueCollector(t *testing.T) {
	counter := &sqlcount.Counter{}
	db := sqlcount.Open(store.DSN(pgtest.DB(t)), counter)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`INSERT INTO river_job (kind, args, state, scheduled_at, max_attempts, queue, priority)
		VALUES ('test_waiting', '{}', 'available', now() - interval '1 minute', 1, 'default', 1)`); err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	m.WatchJobQueue(db, []string{"process_item"})
	counter.Reset()
	depth := values(t, m, "loupe_job_queue_jobs", "kind")
	values(t, m, "loupe_job_queue_jobs", "kind")
	if n := counter.Count(); n != 1 {
		t.Errorf("two scrapes read the queue %d times, want 1", n)
	}
	if depth["test_waiting"] != 1 || depth["process_item"] != 0 {
		t.Errorf("depth by kind: %v", depth)
	}
	if _, ok := depth["process_item"]; !ok {
		t.Errorf("no series of a known kind with no job: %v", depth)
	}
	if age := values(t, m, "loupe_job_queue_oldest_available_age_seconds", "kind")["test_waiting"]; age < 59 {
		t.Errorf("oldest available job's age %v s, want about 60", age)
	}
	if up := values(t, m, "loupe_job_queue_up", "")[""]; up != 1 {
		t.Errorf("loupe_job_queue_up = %v, want 1", up)
	}

	// A queue that cannot be read.
	down := sqlcount.Open("postgres://loupe.invalid:1/none?connect_timeout=1", nil)
	t.Cleanup(func() { down.Close() })
	m = metrics.New()
	m.WatchJobQueue(down, []string{"process_item"})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", metrics.Path, nil))
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "loupe_job_queue_up 0") || strings.Contains(body, "loupe_job_queue_jobs{") ||
		!strings.Contains(body, "go_goroutines") {
		t.Fatalf("scrape with the queue down: %d\n%s", rec.Code, body)
	}
}
