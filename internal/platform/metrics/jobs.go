package metrics

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// MaxJobKinds caps the distinct job kinds counted apart (the kinds are
// code constants, internal/jobs/kinds.go: the cap only guards against a
// table another program writes to).
const MaxJobKinds = 64

// QueueStates are the job states whose depth the queue collector reports.
var QueueStates = []string{"available", "scheduled", "running", "retryable", "discarded"}

// queueCache is how long a query of the queue answers scrapes: several
// Prometheus servers scraping one node, or one scraping every node, cost
// the database one query per window per node.
const queueCache = 5 * time.Second

// queueTimeout bounds the query of the queue at a scrape.
const queueTimeout = 2 * time.Second

// jobMetrics are this node's worked jobs, by kind.
type jobMetrics struct {
	worked   *prometheus.CounterVec
	duration *prometheus.HistogramVec

	mu    sync.RWMutex
	kinds map[string]*jobSeries
}

type jobSeries struct {
	outcomes map[string]prometheus.Counter
	duration prometheus.Observer
}

// The outcomes of a job's attempt (loupe_jobs_worked_total).
var jobOutcomes = []string{"succeeded", "error", "cancelled", "snoozed", "panic"}

func (j *jobMetrics) init(reg *prometheus.Registry) {
	j.worked = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "loupe_jobs_worked_total",
		Help: "Job attempts this node's workers finished, by kind and outcome: succeeded, error (to be retried, or discarded after the last attempt), cancelled (a permanent failure), snoozed, panic.",
	}, []string{"kind", "outcome"})
	j.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "loupe_job_duration_seconds",
		Help:    "Time of a job's attempt on this node, by kind.",
		Buckets: []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900, 3600},
	}, []string{"kind"})
	j.kinds = map[string]*jobSeries{}
	reg.MustRegister(j.worked, j.duration)
}

// kind answers kind's instruments (Other past MaxJobKinds kinds).
func (j *jobMetrics) kind(kind string) *jobSeries {
	j.mu.RLock()
	s := j.kinds[kind]
	j.mu.RUnlock()
	if s != nil {
		return s
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if s := j.kinds[kind]; s != nil {
		return s
	}
	label := kind
	if !loupe.PlainName(kind) || len(j.kinds) >= MaxJobKinds {
		label = Other
		if s := j.kinds[Other]; s != nil {
			return s
		}
	}
	s = &jobSeries{outcomes: map[string]prometheus.Counter{}, duration: j.duration.WithLabelValues(label)}
	for _, o := range jobOutcomes {
		s.outcomes[o] = j.worked.WithLabelValues(label, o)
	}
	j.kinds[label] = s
	return s
}

// JobMiddleware counts and times each job attempt of the node's workers
// (River worker middleware; nil without metrics).
func (m *Metrics) JobMiddleware() rivertype.Middleware {
	if m == nil {
		return nil
	}
	return &jobMiddleware{m: m}
}

type jobMiddleware struct {
	river.MiddlewareDefaults
	m *Metrics
}

var _ rivertype.WorkerMiddleware = (*jobMiddleware)(nil)

func (jm *jobMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	s := jm.m.jobs.kind(job.Kind)
	start := time.Now()
	outcome := "panic" // unless doInner returns
	defer func() {
		s.outcomes[outcome].Inc()
		s.duration.Observe(time.Since(start).Seconds())
	}()
	err := doInner(ctx)
	outcome = jobOutcome(err)
	return err
}

func jobOutcome(err error) string {
	var cancel *rivertype.JobCancelError
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return "succeeded"
	case errors.As(err, &cancel):
		return "cancelled"
	case errors.As(err, &snooze):
		return "snoozed"
	default:
		return "error"
	}
}

// WatchJobQueue adds the job queue's depth by kind and state and the age
// of its oldest available job by kind, read from River's table through db
// at most every queueCache (the whole cluster's queue: every node reports
// the same figures). Each of kinds (internal/jobs.Kinds) has its series
// in every state, 0 where no job is; another kind found in the table has
// them where it has jobs. A second call is ignored.
func (m *Metrics) WatchJobQueue(db *sql.DB, kinds []string) {
	if m == nil || db == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queue {
		return
	}
	m.queue = true
	register(m.reg, &queueCollector{db: db, kinds: kinds})
}

var (
	queueJobsDesc = prometheus.NewDesc("loupe_job_queue_jobs",
		"Jobs in River's queue (all nodes'), by kind and state: available, scheduled, running, retryable, discarded (failed for good, kept for River's retention).",
		[]string{"kind", "state"}, nil)
	queueAgeDesc = prometheus.NewDesc("loupe_job_queue_oldest_available_age_seconds",
		"Age of the oldest available job by kind: how long it has waited for a worker since it was due (0 when none waits).",
		[]string{"kind"}, nil)
	queueUpDesc = prometheus.NewDesc("loupe_job_queue_up",
		"1 when the last read of the job queue answered, 0 when it failed (then the queue's other series are left out).",
		nil, nil)
)

// queueQuery counts the jobs of QueueStates by kind and state, with the
// oldest due time of each group (River's fetching index leads with state).
const queueQuery = `SELECT kind, state::text, count(*), coalesce(extract(epoch FROM now() - min(scheduled_at)), 0)
FROM river_job WHERE state IN ('available', 'scheduled', 'running', 'retryable', 'discarded')
GROUP BY kind, state`

type queueRow struct {
	kind, state string
	count       float64
	age         float64
}

// queueCollector reads the queue on scrape, under a short timeout, and
// answers scrapes within queueCache from its last read.
type queueCollector struct {
	db    *sql.DB
	kinds []string

	mu   sync.Mutex // one read at a time: concurrent scrapes wait for it
	at   time.Time
	rows []queueRow
	err  error
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueJobsDesc
	ch <- queueAgeDesc
	ch <- queueUpDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	rows, err := c.read()
	if err != nil {
		ch <- prometheus.MustNewConstMetric(queueUpDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(queueUpDesc, prometheus.GaugeValue, 1)
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetric(queueJobsDesc, prometheus.GaugeValue, r.count, r.kind, r.state)
		if r.state == "available" {
			ch <- prometheus.MustNewConstMetric(queueAgeDesc, prometheus.GaugeValue, r.age, r.kind)
		}
	}
}

// read answers the queue's figures, read again when the last read is
// older than queueCache; kinds over MaxJobKinds fold into Other.
func (c *queueCollector) read() ([]queueRow, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < queueCache {
		return c.rows, c.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
	defer cancel()
	c.rows, c.err = queryQueue(ctx, c.db, c.kinds)
	c.at = time.Now()
	return c.rows, c.err
}

func queryQueue(ctx context.Context, db *sql.DB, known []string) ([]queueRow, error) {
	rs, err := db.QueryContext(ctx, queueQuery)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	type key struct{ kind, state string }
	byKey := map[key]*queueRow{}
	var order []key
	kinds := map[string]bool{}
	for _, k := range known {
		if !loupe.PlainName(k) || kinds[k] || len(kinds) >= MaxJobKinds {
			continue
		}
		kinds[k] = true
		for _, st := range QueueStates {
			byKey[key{k, st}] = &queueRow{kind: k, state: st}
			order = append(order, key{k, st})
		}
	}
	for rs.Next() {
		var r queueRow
		if err := rs.Scan(&r.kind, &r.state, &r.count, &r.age); err != nil {
			return nil, err
		}
		if !loupe.PlainName(r.kind) || (!kinds[r.kind] && len(kinds) >= MaxJobKinds) {
			r.kind = Other
		} else {
			kinds[r.kind] = true
		}
		k := key{r.kind, r.state}
		if have := byKey[k]; have != nil {
			have.count += r.count
			have.age = max(have.age, r.age)
			continue
		}
		byKey[k] = &r
		order = append(order, k)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	out := make([]queueRow, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out, nil
}
