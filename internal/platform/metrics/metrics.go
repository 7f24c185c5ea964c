// Package metrics is Loupe's Prometheus instrumentation (docs/operations.md,
// "Metrics"): one registry per server, of its own (never the process-wide
// default, so that two servers in one test process count apart), the
// collectors, and the small handles the product code calls. A nil
// *Metrics is valid and counts nothing: code built without one (a unit
// test of a worker) needs no special case.
//
// Every label's values are bounded: route patterns (never raw paths),
// methods from a fixed list, status codes, job kinds and GraphQL operation
// names under a cap (bounded.go). No id ever becomes a label.
package metrics

import (
	"database/sql"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultAddr is where `loupe serve` serves /metrics unless
// LOUPE_METRICS_ADDR says otherwise: loopback, apart from the API's port.
const DefaultAddr = "127.0.0.1:9464"

// Path is where the metrics are served on their own listener.
const Path = "/metrics"

// latencyBuckets are the request and operation latency buckets, in
// seconds: Loupe answers most reads in well under a millisecond to a few
// milliseconds, so the default buckets (from 5 ms) would put them all in
// the first.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics is one server's registry and its instruments.
type Metrics struct {
	reg *prometheus.Registry

	http httpMetrics
	gql  gqlMetrics
	jobs jobMetrics

	uploadBytes      prometheus.Counter
	processingRuns   *prometheus.CounterVec
	processedSeconds prometheus.Counter
	eventsRead       prometheus.Counter
	eventsLag        prometheus.Gauge

	mu    sync.Mutex
	pools map[string]bool
	queue bool
}

// New makes a registry with the process's and Go runtime's collectors and
// Loupe's own instruments.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), pools: map[string]bool{}}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.http.init(m.reg)
	m.gql.init(m.reg)
	m.jobs.init(m.reg)
	m.uploadBytes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "loupe_upload_received_bytes_total",
		Help: "Bytes of resumable (tus) uploads received and durably stored, parts and tails.",
	})
	m.processingRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "loupe_processing_runs_total",
		Help: "Processing (transcode) runs of items' media on this node, by outcome: succeeded, failed (the media: not retried), retried (transient), superseded (a newer run or the item's deletion took over).",
	}, []string{"outcome"})
	for _, o := range ProcessingOutcomes {
		m.processingRuns.WithLabelValues(o)
	}
	m.processedSeconds = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "loupe_processing_media_seconds_total",
		Help: "Seconds of media (the originals' durations) processed by succeeded runs on this node.",
	})
	m.eventsRead = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "loupe_events_feed_read_total",
		Help: "Events this node's outbox reader (the feed) handed to its subscribers.",
	})
	m.eventsLag = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "loupe_events_feed_lag_seconds",
		Help: "How far this node's outbox reader is behind: at its last read, the age of the newest event it read (0 once it finds nothing newer, or while nobody subscribes).",
	})
	m.reg.MustRegister(m.uploadBytes, m.processingRuns, m.processedSeconds, m.eventsRead, m.eventsLag)
	return m
}

// Registry is the registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in Prometheus's exposition formats. A
// collector that fails (the job queue's query) leaves its own series out,
// not the whole scrape.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:            m.reg,
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
}

// WatchDB adds a connection pool's statistics (go_sql_* with
// db_name=name; client_golang's DBStatsCollector). A second pool under
// the same name is ignored.
func (m *Metrics) WatchDB(name string, db *sql.DB) {
	if m == nil || db == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pools[name] {
		return
	}
	m.pools[name] = true
	register(m.reg, collectors.NewDBStatsCollector(db, name))
}

// register adds c, once: a collector already there is kept.
func register(reg *prometheus.Registry, c prometheus.Collector) {
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(c); err != nil && !errors.As(err, &are) {
		panic(err) // a collector of this package clashing with another: a bug
	}
}

// UploadReceived counts n bytes of an upload stored.
func (m *Metrics) UploadReceived(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.uploadBytes.Add(float64(n))
}

// The outcomes of a processing run (ProcessingRun).
const (
	ProcessingSucceeded  = "succeeded"
	ProcessingFailed     = "failed"
	ProcessingRetried    = "retried"
	ProcessingSuperseded = "superseded"
)

// ProcessingOutcomes lists them.
var ProcessingOutcomes = []string{ProcessingSucceeded, ProcessingFailed, ProcessingRetried, ProcessingSuperseded}

// ProcessingRun counts a processing run that ended with outcome (one of
// ProcessingOutcomes; anything else counts as failed) and, when it
// succeeded, the seconds of media it processed.
func (m *Metrics) ProcessingRun(outcome string, mediaSeconds float64) {
	if m == nil {
		return
	}
	switch outcome {
	case ProcessingSucceeded, ProcessingFailed, ProcessingRetried, ProcessingSuperseded:
	default:
		outcome = ProcessingFailed
	}
	m.processingRuns.WithLabelValues(outcome).Inc()
	if outcome == ProcessingSucceeded && mediaSeconds > 0 {
		m.processedSeconds.Add(mediaSeconds)
	}
}

// EventsRead records a read of the outbox by this node's feed: n events,
// the newest of which occurred at newest (n 0: caught up).
func (m *Metrics) EventsRead(n int, newest time.Time) {
	if m == nil {
		return
	}
	if n <= 0 {
		m.eventsLag.Set(0)
		return
	}
	m.eventsRead.Add(float64(n))
	m.eventsLag.Set(max(0, time.Since(newest).Seconds()))
}
