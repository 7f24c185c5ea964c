package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/loupe-mam/loupe"
	"github.com/prometheus/client_golang/prometheus"
)

// MaxOperations caps the distinct GraphQL operation names counted apart;
// the names after it count as Other. Clients choose the names: without a
// cap each new one would be new series.
const MaxOperations = 256

// Anonymous is the operation label of an operation without a name.
const Anonymous = "anonymous"

// gqlMetrics are /graphql's operations by name and outcome, and their
// latency by name.
type gqlMetrics struct {
	operations *prometheus.CounterVec
	duration   *prometheus.HistogramVec

	mu     sync.RWMutex
	series map[string]*gqlSeries // by label value: at most MaxOperations names, Anonymous and Other
	names  int
}

type gqlSeries struct {
	ok, failed prometheus.Counter
	duration   prometheus.Observer
}

func (g *gqlMetrics) init(reg *prometheus.Registry) {
	g.operations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "loupe_graphql_operations_total",
		Help: "GraphQL operations /graphql answered, by operation name (\"anonymous\" without one; \"other\" past " +
			"the cap of distinct names or for a name that is no plain identifier) and outcome (ok, or error: the answer has errors).",
	}, []string{"operation", "outcome"})
	g.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "loupe_graphql_operation_duration_seconds",
		Help:    "Time from reading a /graphql request to its answer, by operation name (labels as loupe_graphql_operations_total).",
		Buckets: latencyBuckets,
	}, []string{"operation"})
	g.series = map[string]*gqlSeries{}
	reg.MustRegister(g.operations, g.duration)
}

// operation answers the instruments of the operation named name.
func (g *gqlMetrics) operation(name string) *gqlSeries {
	switch {
	case name == "":
		name = Anonymous
	case !loupe.PlainName(name):
		name = Other
	}
	g.mu.RLock()
	s := g.series[name]
	g.mu.RUnlock()
	if s != nil {
		return s
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.series[name]; s != nil {
		return s
	}
	if name != Anonymous && name != Other {
		if g.names >= MaxOperations {
			return g.make(Other)
		}
		g.names++
	}
	return g.make(name)
}

// make answers label's instruments, made once (g.mu held).
func (g *gqlMetrics) make(label string) *gqlSeries {
	if s := g.series[label]; s != nil {
		return s
	}
	s := &gqlSeries{ok: g.operations.WithLabelValues(label, "ok"), failed: g.operations.WithLabelValues(label, "error"),
		duration: g.duration.WithLabelValues(label)}
	g.series[label] = s
	return s
}

// GraphQL is the handler extension that counts and times /graphql's
// operations (nil without metrics). Register it on the /graphql handler
// alone: REST's stored documents are counted by their routes.
func (m *Metrics) GraphQL() graphql.HandlerExtension {
	if m == nil {
		return nil
	}
	return gqlExtension{m}
}

type gqlExtension struct{ m *Metrics }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = gqlExtension{}

func (gqlExtension) ExtensionName() string                   { return "LoupeMetrics" }
func (gqlExtension) Validate(graphql.ExecutableSchema) error { return nil }
func (e gqlExtension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	start := time.Now()
	resp := next(ctx)
	// A request refused before it had an operation (a bad body, a
	// document over the size limit) is counted by its route alone.
	if !graphql.HasOperationContext(ctx) {
		return resp
	}
	oc := graphql.GetOperationContext(ctx)
	name := oc.OperationName
	if oc.Operation != nil && oc.Operation.Name != "" {
		name = oc.Operation.Name
	}
	if t := oc.Stats.OperationStart; !t.IsZero() && t.Before(start) {
		start = t
	}
	s := e.m.gql.operation(name)
	if resp == nil || len(resp.Errors) > 0 {
		s.failed.Inc()
	} else {
		s.ok.Inc()
	}
	s.duration.Observe(time.Since(start).Seconds())
	return resp
}
