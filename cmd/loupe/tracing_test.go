package main

import (
	"context"
	"strings"
	"testing"
)

// Without an OTLP endpoint nothing is traced: no exporter, no wrapper of
// the pool, nothing installed in the server (a nil server.Config.Tracing).
func TestTracingOffByDefault(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	c := loadConfig()
	if c.Tracing.Enabled() || c.Tracing.ServiceName != "loupe" {
		t.Fatalf("tracing config %+v", c.Tracing)
	}
	stop, err := startTracing(&c)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if c.App.Tracing != nil || sqlTracing(c) != nil {
		t.Fatalf("tracing started without an endpoint: %v", c.App.Tracing)
	}
}

func TestTracingSettings(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=base,x=1")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "api-key=traces")
	t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_traceidratio")
	t.Setenv("OTEL_TRACES_SAMPLER_ARG", "0.25")
	t.Setenv("OTEL_SERVICE_NAME", "loupe-eu")
	t.Setenv("LOUPE_TRACE_FIELDS", "true")
	c := loadConfig()
	tc := c.Tracing
	if len(c.Problems) > 0 || tc.Endpoint != "http://collector:4318/v1/traces" || tc.Headers["api-key"] != "traces" ||
		tc.Headers["x"] != "1" || tc.ServiceName != "loupe-eu" || !tc.Fields ||
		!strings.Contains(tc.Sampler.Description(), "TraceIDRatioBased{0.25}") {
		t.Fatalf("tracing config %+v, problems %v", tc, c.Problems)
	}
	stop, err := startTracing(&c)
	if err != nil || c.App.Tracing == nil || len(sqlTracing(c)) != 1 {
		t.Fatalf("tracing not started: %v", err)
	}
	stop()
}

// A bad tracing setting stops the start with its line; a header's value
// (a key) is never shown.
func TestTracingBadSettings(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "secret-key-123")
	t.Setenv("OTEL_TRACES_SAMPLER", "traceidratio")
	t.Setenv("OTEL_TRACES_SAMPLER_ARG", "lots")
	t.Setenv("DATABASE_URL", "postgres://loupe.invalid:1/none?connect_timeout=1")
	err := cmdServe(context.Background(), loadConfig())
	if err == nil {
		t.Fatal("started with bad tracing settings")
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ", "OTEL_EXPORTER_OTLP_HEADERS: ", "OTEL_TRACES_SAMPLER_ARG: "} {
		if !strings.Contains(err.Error(), "\n"+name) && !strings.HasPrefix(err.Error(), name) {
			t.Errorf("no line for %s in:\n%v", name, err)
		}
	}
	if strings.Contains(err.Error(), "secret-key-123") {
		t.Errorf("a header's value is shown:\n%v", err)
	}
}
