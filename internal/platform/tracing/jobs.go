package tracing

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The job metadata keys the inserting context's trace travels under (W3C
// trace context's header names).
const (
	MetadataTraceparent = "traceparent"
	MetadataTracestate  = "tracestate"
)

// JobMiddleware is tracing's River middleware (none when tracing is off),
// for the client that inserts jobs and the one that works them:
//
//   - at insert, the inserting context's trace (a request's, a job's) is
//     written into each job's metadata as traceparent (and tracestate);
//   - each attempt is a consumer span, "job <kind>", a child of the span
//     that inserted the job — in the same trace as the request that asked
//     for the work — or a trace of its own when nothing traced inserted it
//     (a periodic job). The job's own statements and storage calls are its
//     children.
func (t *Tracing) JobMiddleware() []rivertype.Middleware {
	if t == nil {
		return nil
	}
	return []rivertype.Middleware{&jobSpans{tracer: t.tracer, prop: t.prop}}
}

type jobSpans struct {
	river.MiddlewareDefaults
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

var _ interface {
	rivertype.JobInsertMiddleware
	rivertype.WorkerMiddleware
} = (*jobSpans)(nil)

// InsertMany adds the context's trace to each job's metadata.
func (j *jobSpans) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams,
	doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		carrier := propagation.MapCarrier{}
		j.prop.Inject(ctx, carrier)
		for _, p := range params {
			p.Metadata = withTrace(p.Metadata, carrier)
		}
	}
	return doInner(ctx)
}

// withTrace answers metadata (a JSON object) with carrier's keys set.
func withTrace(metadata []byte, carrier propagation.MapCarrier) []byte {
	m := map[string]json.RawMessage{}
	if len(metadata) > 0 && json.Unmarshal(metadata, &m) != nil {
		return metadata // not an object: left as it is
	}
	for _, k := range []string{MetadataTraceparent, MetadataTracestate} {
		if v := carrier[k]; v != "" {
			b, _ := json.Marshal(v) //nolint:errcheck // a string
			m[k] = b
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return metadata
	}
	return out
}

// Work spans the attempt, continuing the trace its metadata carries.
func (j *jobSpans) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	var meta map[string]any
	if len(job.Metadata) > 0 {
		json.Unmarshal(job.Metadata, &meta) //nolint:errcheck // no trace then
	}
	carrier := propagation.MapCarrier{}
	for _, k := range []string{MetadataTraceparent, MetadataTracestate} {
		if v, ok := meta[k].(string); ok {
			carrier[k] = v
		}
	}
	ctx = j.prop.Extract(ctx, carrier)
	ctx, span := j.tracer.Start(ctx, "job "+job.Kind, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("messaging.system", "river"),
			attribute.String("loupe.job.kind", job.Kind), attribute.String("loupe.job.queue", job.Queue),
			attribute.Int64("loupe.job.id", job.ID), attribute.Int("loupe.job.attempt", job.Attempt)))
	defer span.End()
	err := doInner(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "job attempt failed")
	}
	return err
}
