// Package tracing is Loupe's OpenTelemetry tracing (docs/operations.md,
// "Tracing"): a tracer provider that exports over OTLP/HTTP when an
// endpoint is configured, and the instrumentation the server installs
// with it — HTTP requests, GraphQL operations (and, when asked for,
// resolver fields), SQL statements, storage calls, and jobs, whose trace
// is carried from the request that enqueued them.
//
// Unconfigured, New answers nil and a nil *Tracing is valid: every method
// answers "nothing to install" (the handler unchanged, no extension, no
// middleware), so that tracing off costs nothing at all — no no-op span is
// even started. Nothing here touches OpenTelemetry's process-wide globals:
// two servers in one test process trace apart.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of Loupe's spans.
const ScopeName = "github.com/loupe-mam/loupe"

// DefaultServiceName is service.name unless OTEL_SERVICE_NAME says
// otherwise.
const DefaultServiceName = "loupe"

// Config is what tracing is set up from (cmd/loupe reads it from the
// standard OTEL_* variables and LOUPE_TRACE_FIELDS).
type Config struct {
	// Endpoint is the full URL spans are posted to (OTLP/HTTP, protobuf):
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or
	// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces (TracesEndpoint).
	// Empty: tracing is off.
	Endpoint string
	// Headers are sent with every export (OTEL_EXPORTER_OTLP_HEADERS,
	// OTEL_EXPORTER_OTLP_TRACES_HEADERS: a backend's API key).
	Headers map[string]string
	// ServiceName is the resource's service.name (DefaultServiceName
	// when empty).
	ServiceName string
	// ServiceVersion is the resource's service.version (omitted when
	// empty).
	ServiceVersion string
	// Sampler decides which traces are kept (ParseSampler; nil: every
	// trace a caller did not sample out, parentbased_always_on).
	Sampler sdktrace.Sampler
	// Fields makes a span of every resolver field of every GraphQL
	// operation (LOUPE_TRACE_FIELDS). Off by default: it turns off the
	// executor's direct answer of leaf fields (graph/overrides.go).
	Fields bool
}

// Enabled reports whether c exports anything.
func (c Config) Enabled() bool { return c.Endpoint != "" }

// Tracing is a running tracer provider and what the server installs with
// it. Nil is tracing off.
type Tracing struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	fields   bool
}

// New sets tracing up from cfg: nil, and no exporter made, when cfg has
// no endpoint. The exporter sends in batches in the background; Shutdown
// sends what is left.
func New(ctx context.Context, cfg Config) (*Tracing, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	if _, err := checkURL(cfg.Endpoint); err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(cfg.Endpoint),
		otlptracehttp.WithHeaders(cfg.Headers))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = DefaultServiceName
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if cfg.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", cfg.ServiceVersion))
	}
	sampler := cfg.Sampler
	if sampler == nil {
		sampler = sdktrace.ParentBased(sdktrace.AlwaysSample())
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
		sdktrace.WithSampler(sampler),
	)
	return &Tracing{provider: tp, tracer: tp.Tracer(ScopeName), prop: propagation.TraceContext{}, fields: cfg.Fields}, nil
}

// Provider is the tracer provider: OpenTelemetry's no-op one when tracing
// is off.
func (t *Tracing) Provider() trace.TracerProvider {
	if t == nil {
		return noop.NewTracerProvider()
	}
	return t.provider
}

// ForceFlush exports the spans ended so far (tests; a no-op when off).
func (t *Tracing) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}

// Shutdown exports what is left and stops the exporter (a no-op when
// off). Call it once the server and the workers have stopped: their last
// spans are in the batch.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// TracesEndpoint is the URL spans are posted to: traces (the
// signal-specific variable) as it is, else base with /v1/traces, as the
// OTLP exporter specification says; "" when neither is set. A URL that is
// not http(s)://host… is an error (the exporter would silently fall back
// to localhost).
func TracesEndpoint(base, traces string) (string, error) {
	if traces != "" {
		return checkURL(traces)
	}
	if base == "" {
		return "", nil
	}
	u, err := checkURL(base)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(u, "/") + "/v1/traces", nil
}

func checkURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("an http:// or https:// URL")
	}
	return s, nil
}

// ParseHeaders reads OTEL_EXPORTER_OTLP_HEADERS' format: comma-separated
// key=value pairs, values percent-encoded.
func ParseHeaders(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	h := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, errors.New("comma-separated key=value pairs")
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, errors.New("comma-separated key=value pairs (values percent-encoded)")
		}
		h[k] = dv
	}
	return h, nil
}

// errRatio is ParseSampler's answer to a ratio that is not one.
var errRatio = errors.New("a ratio from 0 to 1")

// IsRatioError reports whether ParseSampler's err is about its ratio
// (OTEL_TRACES_SAMPLER_ARG) rather than its name.
func IsRatioError(err error) bool { return errors.Is(err, errRatio) }

// ParseSampler reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG:
// always_on, always_off, traceidratio, and their parentbased_ forms (the
// default, "", is parentbased_always_on: a request whose caller sampled
// it out is not traced). The ratio (0 to 1) defaults to 1.
func ParseSampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := 1.0
	if arg != "" && strings.HasSuffix(name, "traceidratio") {
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, errRatio
		}
		ratio = r
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio), nil
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)), nil
	}
	return nil, errors.New("always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio")
}
