package tracing

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/loupe-mam/loupe"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// GraphQL is the executor extensions of tracing, for both forms of the
// engine (graph.Options.Extensions): a span per operation, /graphql's
// and REST's stored documents alike, and — only with Config.Fields — a
// span per resolver field. None when tracing is off. The operation's
// extension intercepts responses, never fields: installing it leaves the
// executor's direct answer of leaf fields on (graph/overrides.go,
// fieldsIntercepted); the fields' extension is the one field interceptor,
// installed only when asked for.
func (t *Tracing) GraphQL() []graphql.HandlerExtension {
	if t == nil {
		return nil
	}
	x := []graphql.HandlerExtension{operationSpans{t.tracer}}
	if t.fields {
		x = append(x, fieldSpans{t.tracer})
	}
	return x
}

// operationSpans makes a span of each operation, from its start (parsing
// and validation included) to its answer.
type operationSpans struct{ tracer trace.Tracer }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = operationSpans{}

func (operationSpans) ExtensionName() string                   { return "LoupeTracing" }
func (operationSpans) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse spans the operation: "query GetItem", with
// graphql.operation.type and graphql.operation.name. A name that is no
// plain identifier of at most 64 bytes is left out (clients choose names).
// The document is not recorded: its literals may be a user's data.
func (o operationSpans) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) {
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	kind, name := "operation", oc.OperationName
	if oc.Operation != nil {
		kind = string(oc.Operation.Operation)
		if oc.Operation.Name != "" {
			name = oc.Operation.Name
		}
	}
	attrs := []attribute.KeyValue{attribute.String("graphql.operation.type", kind)}
	spanName := kind
	if loupe.PlainName(name) {
		spanName = kind + " " + name
		attrs = append(attrs, attribute.String("graphql.operation.name", name))
	}
	opts := []trace.SpanStartOption{trace.WithAttributes(attrs...)}
	if start := oc.Stats.OperationStart; !start.IsZero() && start.Before(time.Now()) {
		opts = append(opts, trace.WithTimestamp(start))
	}
	ctx, span := o.tracer.Start(ctx, spanName, opts...)
	resp := next(ctx)
	if resp == nil || len(resp.Errors) > 0 {
		span.SetStatus(codes.Error, "the answer has errors")
		if resp != nil {
			span.SetAttributes(attribute.Int("graphql.errors", len(resp.Errors)))
		}
	}
	span.End()
	return resp
}

// fieldSpans makes a span of each field a resolver answers ("Item.media",
// with graphql.field.path); fields read from a struct are not spanned.
type fieldSpans struct{ tracer trace.Tracer }

var _ interface {
	graphql.HandlerExtension
	graphql.FieldInterceptor
} = fieldSpans{}

func (fieldSpans) ExtensionName() string                   { return "LoupeTracingFields" }
func (fieldSpans) Validate(graphql.ExecutableSchema) error { return nil }

func (f fieldSpans) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver || fc.Field.Field == nil {
		return next(ctx)
	}
	ctx, span := f.tracer.Start(ctx, fc.Object+"."+fc.Field.Name,
		trace.WithAttributes(attribute.String("graphql.field.path", fc.Path().String())))
	defer span.End()
	v, err := next(ctx)
	if err != nil {
		span.SetStatus(codes.Error, "resolver error")
	}
	return v, err
}
