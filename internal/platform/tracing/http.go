package tracing

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// methods are the request methods that name spans as they are; any other
// (a client may send any token) is "_OTHER", as the HTTP conventions say.
var methods = map[string]string{}

func init() {
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions} {
		methods[m] = m
	}
}

// RequestIDHeader is the header the request log answers the request's id
// in (server/middleware.go); the span carries it as loupe.request_id.
const RequestIDHeader = "X-Request-Id"

// HTTP makes a server span of every request next answers (next unchanged
// when tracing is off). The span continues the caller's trace when the
// request carries a W3C traceparent header, and is named by the method and
// the router's route pattern ("GET /items/{id}"), never the path: ids and
// share tokens stay out of span names and attributes. Install it inside
// chi's router (Router.Use): the pattern is known once routing is done.
func (t *Tracing) HTTP(next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, ok := methods[r.Method]
		if !ok {
			method = "_OTHER"
		}
		ctx := t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := t.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", method)))
		defer span.End()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r.WithContext(ctx))
		// The route context is the router's own (r's): filled in by the
		// routing that has now happened.
		if rc := chi.RouteContext(r.Context()); rc != nil {
			if p := rc.RoutePattern(); p != "" {
				span.SetName(method + " " + p)
				span.SetAttributes(attribute.String("http.route", p))
			}
		}
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK // nothing written: net/http answers 200
		}
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if id := w.Header().Get(RequestIDHeader); id != "" {
			span.SetAttributes(attribute.String("loupe.request_id", id))
		}
		if status >= 500 {
			span.SetStatus(codes.Error, strconv.Itoa(status))
		}
	})
}
