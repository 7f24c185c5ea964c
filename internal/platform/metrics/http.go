package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the requests by route pattern, method and status code,
// and their latency by route pattern and method.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	// series caches each label set's instruments: a request costs a map
	// lookup under a read lock and the atomic adds, no label hashing.
	mu     sync.RWMutex
	series map[httpKey]httpSeries
}

type httpKey struct {
	route, method string
	code          int
}

type httpSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// NoRoute is the route label of a request no route matched (404s).
const NoRoute = "none"

// methods are the methods that are their own label value; any other is
// Other (a client may send any token as a method).
var methods = map[string]string{}

// codes are the status codes' label values, made once.
var codes [600]string

func init() {
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions} {
		methods[m] = m
	}
	for i := range codes {
		codes[i] = strconv.Itoa(i)
	}
}

func (h *httpMetrics) init(reg *prometheus.Registry) {
	h.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "loupe_http_requests_total",
		Help: "HTTP requests answered, by route pattern (the router's, never the path: no ids), method and status code.",
	}, []string{"route", "method", "code"})
	h.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "loupe_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern and method (streams — WebSockets, SSE — are left out: their time is the connection's).",
		Buckets: latencyBuckets,
	}, []string{"route", "method"})
	h.series = map[httpKey]httpSeries{}
	reg.MustRegister(h.requests, h.duration)
}

// ObserveHTTP records a request that r's router has answered with status
// in elapsed; stream says it was a long-lived connection (a WebSocket, an
// SSE stream), counted but not timed. Call it after the router returns:
// the route pattern is known only then.
func (m *Metrics) ObserveHTTP(r *http.Request, status int, elapsed time.Duration, stream bool) {
	if m == nil {
		return
	}
	route := NoRoute
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			route = p
		}
	}
	method, ok := methods[r.Method]
	if !ok {
		method = Other
	}
	if status == 0 {
		status = http.StatusOK // nothing written: net/http answers 200
	}
	if status < 100 || status >= len(codes) {
		status = 0
	}
	s := m.http.get(httpKey{route: route, method: method, code: status})
	s.count.Inc()
	if !stream {
		s.duration.Observe(elapsed.Seconds())
	}
}

func (h *httpMetrics) get(k httpKey) httpSeries {
	h.mu.RLock()
	s, ok := h.series[k]
	h.mu.RUnlock()
	if ok {
		return s
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.series[k]; ok {
		return s
	}
	s = httpSeries{count: h.requests.WithLabelValues(k.route, k.method, codes[k.code]),
		duration: h.duration.WithLabelValues(k.route, k.method)}
	h.series[k] = s
	return s
}
