package tracing_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/loupe-mam/loupe/internal/platform/tracing"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/otlptest"
)

type handler struct{}

func (*handler) ServeHTTP(http.ResponseWriter, *http.Request) {}

// Unconfigured, tracing is nil and installs nothing: no exporter, the
// no-op provider, every hook answering what it was given.
func TestUnconfiguredInstallsNothing(t *testing.T) {
	tr, err := tracing.New(context.Background(), tracing.Config{ServiceName: "x", Fields: true})
	if err != nil || tr != nil {
		t.Fatalf("New without an endpoint = %v, %v; want nil, nil", tr, err)
	}
	if _, ok := tr.Provider().(noop.TracerProvider); !ok {
		t.Fatalf("provider %T, want the no-op one", tr.Provider())
	}
	h := &handler{}
	if got := tr.HTTP(h); got != http.Handler(h) {
		t.Fatal("HTTP wrapped the handler")
	}
	if x := tr.GraphQL(); len(x) != 0 {
		t.Fatalf("GraphQL extensions %v", x)
	}
	if m := tr.JobMiddleware(); len(m) != 0 {
		t.Fatalf("job middleware %v", m)
	}
	files, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Files(files); got != blob.Store(files) {
		t.Fatal("Files wrapped the store")
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, cfg tracing.Config) (*tracing.Tracing, *otlptest.Receiver) {
	t.Helper()
	rcv := otlptest.New(t)
	cfg.Endpoint = rcv.URL
	tr, err := tracing.New(context.Background(), cfg)
	if err != nil || tr == nil {
		t.Fatalf("New: %v, %v", tr, err)
	}
	t.Cleanup(func() { tr.Shutdown(context.Background()) }) //nolint:errcheck // the test is over
	return tr, rcv
}

func flush(t *testing.T, tr *tracing.Tracing, rcv *otlptest.Receiver) []otlptest.Span {
	t.Helper()
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rcv.Spans()
}

// A request's span is named by its route pattern, never its path, and
// continues the caller's trace (W3C traceparent).
func TestHTTPSpans(t *testing.T) {
	tr, rcv := start(t, tracing.Config{ServiceName: "loupe-test"})
	r := chi.NewRouter()
	r.Use(tr.HTTP)
	r.Get("/items/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	srv := httptest.NewServer(r)
	defer srv.Close()
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	req, _ := http.NewRequest("GET", srv.URL+"/items/0199aa00-0000-7000-8000-000000000001", nil)
	req.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	spans := flush(t, tr, rcv)
	if len(spans) != 1 {
		t.Fatalf("spans %+v", spans)
	}
	s := spans[0]
	if s.Name != "GET /items/{id}" || s.Attrs["http.route"] != "/items/{id}" || s.Attrs["http.response.status_code"] != "418" ||
		s.TraceID != traceID || s.ParentID != "00f067aa0ba902b7" || s.Service != "loupe-test" {
		t.Fatalf("span %+v", s)
	}
	for k, v := range s.Attrs {
		if strings.Contains(v, "0199aa00") {
			t.Fatalf("attribute %s holds the path's id: %q", k, v)
		}
	}
}

// The operation's extension never intercepts fields (the executor's
// direct answer of leaves stays on); the fields' one is there only when
// asked for.
func TestFieldSpansOnlyWhenAskedFor(t *testing.T) {
	for _, fields := range []bool{false, true} {
		tr, _ := start(t, tracing.Config{Fields: fields})
		n := 0
		for _, x := range tr.GraphQL() {
			if _, ok := x.(graphql.FieldInterceptor); ok {
				n++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[fields]; n != want {
			t.Fatalf("Fields %v: %d field interceptors, want %d", fields, n, want)
		}
	}
}

// A job inserted inside a traced context carries the trace in its
// metadata, and its attempt's span is a child in that trace.
func TestJobCarriesTheTrace(t *testing.T) {
	tr, rcv := start(t, tracing.Config{})
	mw := tr.JobMiddleware()[0]
	ctx, parent := tr.Provider().Tracer("test").Start(context.Background(), "request")
	params := []*rivertype.JobInsertParams{{Kind: "check_preset", Metadata: []byte(`{"keep":1}`)}}
	_, err := mw.(rivertype.JobInsertMiddleware).InsertMany(ctx, params,
		func(context.Context) ([]*rivertype.JobInsertResult, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	parent.End()
	var meta map[string]any
	if err := json.Unmarshal(params[0].Metadata, &meta); err != nil || meta["keep"] != 1.0 ||
		!strings.Contains(meta[tracing.MetadataTraceparent].(string), parent.SpanContext().TraceID().String()) {
		t.Fatalf("metadata %s (%v)", params[0].Metadata, err)
	}
	job := &rivertype.JobRow{ID: 7, Kind: "check_preset", Queue: "interactive", Attempt: 1, Metadata: params[0].Metadata}
	var inner trace.SpanContext
	err = mw.(rivertype.WorkerMiddleware).Work(context.Background(), job, func(ctx context.Context) error {
		inner = trace.SpanContextFromContext(ctx)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if inner.TraceID() != parent.SpanContext().TraceID() {
		t.Fatalf("the job's context is in trace %s, want %s", inner.TraceID(), parent.SpanContext().TraceID())
	}
	for _, s := range flush(t, tr, rcv) {
		if s.Name == "job check_preset" {
			if s.TraceID != parent.SpanContext().TraceID().String() || s.ParentID != parent.SpanContext().SpanID().String() ||
				s.Attrs["loupe.job.id"] != "7" {
				t.Fatalf("job span %+v", s)
			}
			return
		}
	}
	t.Fatal("no job span")
}

// Outside a trace (a periodic job's insert) the metadata is left alone.
func TestJobInsertOutsideATrace(t *testing.T) {
	tr, _ := start(t, tracing.Config{})
	params := []*rivertype.JobInsertParams{{Kind: "x", Metadata: []byte(`{}`)}}
	tr.JobMiddleware()[0].(rivertype.JobInsertMiddleware).InsertMany(context.Background(), params, //nolint:errcheck // nil
		func(context.Context) ([]*rivertype.JobInsertResult, error) { return nil, nil })
	if string(params[0].Metadata) != `{}` {
		t.Fatalf("metadata %s", params[0].Metadata)
	}
}

// Storage calls inside a trace are spans; outside one, none.
func TestFilesSpans(t *testing.T) {
	tr, rcv := start(t, tracing.Config{})
	disk, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := tr.Files(disk)
	if _, ok := files.(blob.Multiparter); !ok {
		t.Fatal("the traced store is no Multiparter")
	}
	files.Put(context.Background(), "a/untraced.txt", strings.NewReader("x")) //nolint:errcheck // checked by Stat
	ctx, span := tr.Provider().Tracer("test").Start(context.Background(), "request")
	if _, err := files.Put(ctx, "a/b.txt", strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := files.Stat(ctx, "a/missing.txt"); err == nil {
		t.Fatal("Stat of a missing blob answered")
	}
	span.End()
	got := map[string]otlptest.Span{}
	for _, s := range flush(t, tr, rcv) {
		got[s.Name+" "+s.Attrs["loupe.blob.key"]] = s
	}
	if len(got) != 3 {
		t.Fatalf("spans %v", got)
	}
	if s := got["blob.Put a/b.txt"]; s.Attrs["loupe.blob.size"] != "5" || s.TraceID != span.SpanContext().TraceID().String() {
		t.Fatalf("Put span %+v", s)
	}
	if s := got["blob.Stat a/missing.txt"]; s.Error || s.Attrs["loupe.blob.not_found"] != "true" {
		t.Fatalf("Stat span %+v", s)
	}
}

func TestSettings(t *testing.T) {
	for _, c := range []struct{ base, traces, want string }{
		{"", "", ""},
		{"http://collector:4318", "", "http://collector:4318/v1/traces"},
		{"http://collector:4318/", "", "http://collector:4318/v1/traces"},
		{"http://collector:4318", "https://other/v1/x", "https://other/v1/x"},
		{"collector:4318", "", "error"},
	} {
		got, err := tracing.TracesEndpoint(c.base, c.traces)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("TracesEndpoint(%q, %q) = %q, want %q", c.base, c.traces, got, c.want)
		}
	}
	h, err := tracing.ParseHeaders("api-key=a%20b, x=1")
	if err != nil || h["api-key"] != "a b" || h["x"] != "1" {
		t.Errorf("ParseHeaders = %v, %v", h, err)
	}
	if _, err := tracing.ParseHeaders("novalue"); err == nil {
		t.Error("ParseHeaders took a pair without =")
	}
	for _, c := range []struct {
		name, arg string
		want      string // the sampler's description, or "name"/"ratio" for the error
	}{
		{"", "", "ParentBased{root:AlwaysOnSampler"},
		{"always_off", "", "AlwaysOffSampler"},
		{"traceidratio", "0.25", "TraceIDRatioBased{0.25}"},
		{"parentbased_traceidratio", "0.5", "ParentBased{root:TraceIDRatioBased{0.5}"},
		{"traceidratio", "2", "ratio"},
		{"sometimes", "", "name"},
	} {
		s, err := tracing.ParseSampler(c.name, c.arg)
		var got string
		switch {
		case tracing.IsRatioError(err):
			got = "ratio"
		case err != nil:
			got = "name"
		default:
			got = s.Description()
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("ParseSampler(%q, %q) = %q, want %q…", c.name, c.arg, got, c.want)
		}
	}
}
