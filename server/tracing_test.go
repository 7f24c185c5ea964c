package server_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/platform/tracing"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/otlptest"
)

// tracedAPI starts a server that exports its spans to an in-process OTLP
// receiver.
func tracedAPI(t *testing.T, cfg tracing.Config) (*loupetest.API, *tracing.Tracing, *otlptest.Receiver) {
	t.Helper()
	rcv := otlptest.New(t)
	cfg.Endpoint = rcv.URL
	tr, err := tracing.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// After the server and its workers (cleanups run last first).
	t.Cleanup(func() { tr.Shutdown(context.Background()) }) //nolint:errcheck // the test is over
	return loupetest.New(t, loupetest.Traced(tr)), tr, rcv
}

// spanSet is what the receiver holds, looked at by trace.
type spanSet []otlptest.Span

func received(t *testing.T, tr *tracing.Tracing, rcv *otlptest.Receiver) spanSet {
	t.Helper()
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rcv.Spans()
}

// find answers the spans of trace (any trace when "") named name.
func (s spanSet) find(trace, name string) []otlptest.Span {
	var out []otlptest.Span
	for _, sp := range s {
		if (trace == "" || sp.TraceID == trace) && sp.Name == name {
			out = append(out, sp)
		}
	}
	return out
}

// byRequest answers the server span of the request whose X-Request-Id is id.
func (s spanSet) byRequest(t *testing.T, id string) otlptest.Span {
	t.Helper()
	for _, sp := range s {
		if sp.Attrs["loupe.request_id"] == id {
			return sp
		}
	}
	t.Fatalf("no span of request %s", id)
	return otlptest.Span{}
}

// under reports whether sp descends from the span ancestor.
func (s spanSet) under(sp otlptest.Span, ancestor string) bool {
	parent := map[string]string{}
	for _, x := range s {
		parent[x.SpanID] = x.ParentID
	}
	for id := sp.ParentID; id != ""; id = parent[id] {
		if id == ancestor {
			return true
		}
	}
	return false
}

// A traced server: a REST request's span by its route, its stored
// operation's span and its statements under it, the trace carried into
// the job it enqueued; a GraphQL operation by name; a storage call; no
// field spans unless asked for, and no bound value anywhere.
func TestTracingSpans(t *testing.T) {
	api, tr, rcv := tracedAPI(t, tracing.Config{ServiceName: "loupe-test"})
	a := api.Tenant(t, "acme")

	// The caller's trace, continued (W3C traceparent): the preset's dry
	// run (a check_preset job) is enqueued in the request's transaction.
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const secretName = "Preset 7f3c9e secret name"
	created := a.Send(t, "POST", "/prime/api/v1/presets", map[string]any{"name": secretName},
		map[string]string{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}).Status(http.StatusOK)
	presetReq := created.Header.Get("X-Request-Id")

	g := a.GraphQL(t, `query TracedPresets { presets(size: 5) { t } }`, nil)
	if len(g.Errors) > 0 {
		t.Fatalf("GraphQL errors: %v", g.Errors)
	}

	// A file through a signed link: the storage call is the request's.
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	var link string
	a.Post(t, "/api/v1/items/"+item+"/attachments", map[string]any{"fileName": "art.png", "type": "image", "role": "file"}).
		Status(http.StatusOK).JSON(&link)
	req, err := http.NewRequest("PUT", link, bytes.NewReader([]byte("\x89PNG\r\n\x1a\nfake")))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %v %v", resp, err)
	}
	resp.Body.Close()
	uploadReq := resp.Header.Get("X-Request-Id")

	// The job runs on its own time: wait for its span.
	var spans spanSet
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		spans = received(t, tr, rcv)
		if len(spans.find(traceID, "job check_preset")) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no job span in the request's trace; spans: %v", names(spans))
		}
	}

	// The REST request: its route pattern, in the caller's trace.
	post := spans.byRequest(t, presetReq)
	if post.Name != "POST /prime/api/v1/presets" || post.Attrs["http.route"] != "/prime/api/v1/presets" ||
		post.TraceID != traceID || post.ParentID != "00f067aa0ba902b7" || post.Service != "loupe-test" {
		t.Fatalf("request span %+v", post)
	}
	// Its stored operation, under it.
	op := spans.find(traceID, "mutation createPreset")
	if len(op) != 1 || op[0].ParentID != post.SpanID || op[0].Attrs["graphql.operation.name"] != "createPreset" {
		t.Fatalf("operation spans %+v", op)
	}
	// Its statements, under it, with their text and never a bound value.
	var inserts int
	for _, sp := range spans {
		if sp.Attrs["db.statement"] == "" || sp.TraceID != traceID {
			continue
		}
		if strings.HasPrefix(sp.Name, "INSERT") && spans.under(sp, post.SpanID) {
			inserts++
		}
	}
	if inserts == 0 {
		t.Fatalf("no INSERT span under the request's; spans: %v", names(spans))
	}
	for _, sp := range spans {
		for k, v := range sp.Attrs {
			if strings.Contains(v, "7f3c9e") {
				t.Fatalf("span %s: attribute %s holds a bound value: %q", sp.Name, k, v)
			}
		}
	}
	// The job: in the request's trace, under the request's span, its own
	// statements under it.
	job := spans.find(traceID, "job check_preset")[0]
	if !spans.under(job, post.SpanID) || job.Attrs["loupe.job.kind"] != "check_preset" {
		t.Fatalf("job span %+v is not under the request's %s", job, post.SpanID)
	}
	var jobStatements int
	for _, sp := range spans {
		if sp.Attrs["db.statement"] != "" && spans.under(sp, job.SpanID) {
			jobStatements++
		}
	}
	if jobStatements == 0 {
		t.Fatalf("no statement span under the job's; spans: %v", names(spans))
	}

	// The GraphQL operation, by name, under its request's span.
	gq := spans.find("", "query TracedPresets")
	if len(gq) != 1 || gq[0].Attrs["graphql.operation.type"] != "query" {
		t.Fatalf("GraphQL operation spans %+v", gq)
	}
	var graphqlReq otlptest.Span
	for _, sp := range spans.find(gq[0].TraceID, "POST /graphql") {
		graphqlReq = sp
	}
	if gq[0].ParentID != graphqlReq.SpanID || graphqlReq.Attrs["http.route"] != "/graphql" {
		t.Fatalf("operation %+v, request %+v", gq[0], graphqlReq)
	}

	// The upload: a storage span under the signed link's request.
	put := spans.byRequest(t, uploadReq)
	if !strings.HasPrefix(put.Name, "PUT /blobs/") || strings.Contains(put.Name, item) {
		t.Fatalf("upload span named %q", put.Name)
	}
	var stored bool
	for _, sp := range spans.find(put.TraceID, "blob.Put") {
		stored = stored || (sp.ParentID == put.SpanID && strings.Contains(sp.Attrs["loupe.blob.key"], item))
	}
	if !stored {
		t.Fatalf("no blob.Put span under the upload's; spans: %v", names(spans))
	}

	// No field spans: only asked for with LOUPE_TRACE_FIELDS.
	for _, sp := range spans {
		if sp.Attrs["graphql.field.path"] != "" {
			t.Fatalf("a field span without Fields: %+v", sp)
		}
	}
}

// Asked for, resolver fields are spans under their operation's.
func TestTracingFieldSpans(t *testing.T) {
	api, tr, rcv := tracedAPI(t, tracing.Config{Fields: true})
	a := api.Tenant(t, "acme")
	a.GraphQL(t, `query Fields { presets(size: 5) { t } }`, nil).OK(nil)
	spans := spanSet(received(t, tr, rcv))
	op := spans.find("", "query Fields")
	if len(op) != 1 {
		t.Fatalf("operation spans %v", names(spans))
	}
	f := spans.find(op[0].TraceID, "Query.presets")
	if len(f) != 1 || f[0].ParentID != op[0].SpanID || f[0].Attrs["graphql.field.path"] != "presets" {
		t.Fatalf("field spans %+v; all: %v", f, names(spans))
	}
}

func names(spans spanSet) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}
