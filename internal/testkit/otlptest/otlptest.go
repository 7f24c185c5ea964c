// Package otlptest is an in-process OpenTelemetry collector for tests and
// the bench: an HTTP server that accepts OTLP/HTTP protobuf trace exports
// (what otlptracehttp sends to /v1/traces) and keeps the spans, decoded,
// for a test to look at — or only counts them (Discard).
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is a received span, flattened.
type Span struct {
	TraceID, SpanID, ParentID string // hex; ParentID "" for a root
	Name                      string
	Kind                      tracepb.Span_SpanKind
	// Attrs are the span's attributes as text (ints and bools formatted).
	Attrs map[string]string
	// Service is the resource's service.name.
	Service string
	// Error says the span's status is an error.
	Error bool
}

// Receiver is a running collector.
type Receiver struct {
	// URL is where to export: the full traces URL (…/v1/traces).
	URL string

	keep bool

	mu      sync.Mutex
	spans   []Span
	count   int
	exports int
}

// New starts a receiver that keeps every span, closed with the test.
func New(t testing.TB) *Receiver {
	r, closeFn := Start(true)
	t.Cleanup(closeFn)
	return r
}

// Start starts a receiver (keep: the spans are kept, else only counted)
// and answers it and how to close it.
func Start(keep bool) (*Receiver, func()) {
	r := &Receiver{keep: keep}
	srv := httptest.NewServer(r)
	r.URL = srv.URL + "/v1/traces"
	return r, srv.Close
}

// ServeHTTP takes one export.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "not an OTLP traces export", http.StatusNotFound)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in collectortrace.ExportTraceServiceRequest
	if req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(b, &in) != nil {
		http.Error(w, "not an OTLP protobuf body", http.StatusBadRequest)
		return
	}
	r.add(&in)
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{}) //nolint:errcheck // an empty message
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out) //nolint:errcheck // the exporter's problem
}

func (r *Receiver) add(in *collectortrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exports++
	for _, rs := range in.GetResourceSpans() {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.count++
				if !r.keep {
					continue
				}
				r.spans = append(r.spans, Span{
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(), Kind: s.GetKind(),
					Attrs: attrs(s.GetAttributes()), Service: service,
					Error: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
				})
			}
		}
	}
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.GetKey()] = fmt.Sprint(x.IntValue)
		case *commonpb.AnyValue_BoolValue:
			m[kv.GetKey()] = fmt.Sprint(x.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			m[kv.GetKey()] = fmt.Sprint(x.DoubleValue)
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}

// Spans answers the spans kept so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Count answers how many spans and exports were received.
func (r *Receiver) Count() (spans, exports int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count, r.exports
}
