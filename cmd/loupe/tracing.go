package main

import (
	"context"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"time"

	"github.com/loupe-mam/loupe/internal/platform/tracing"
)

// startTracing sets up OpenTelemetry tracing from c.Tracing into
// c.App.Tracing (nil, nothing installed, without an endpoint) and answers
// how to stop it: the spans still in the batch are sent, within a few
// seconds. Call it before the database opens (its pool is traced) and
// stop it last, after the server and the workers.
func startTracing(c *config) (func(), error) {
	tr, err := tracing.New(context.Background(), c.Tracing)
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %w", err)
	}
	c.App.Tracing = tr
	if tr == nil {
		return func() {}, nil
	}
	slog.Info("tracing: exporting spans over OTLP/HTTP", "endpoint", c.Tracing.Endpoint,
		"service", c.Tracing.ServiceName, "fields", c.Tracing.Fields)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tr.Shutdown(ctx); err != nil {
			slog.Warn("tracing: spans not sent at shutdown", "err", err)
		}
	}, nil
}

// sqlTracing is what store.Open wraps the pool's connector in: a span per
// statement when tracing is on, nothing when off.
func sqlTracing(c config) []func(driver.Connector) driver.Connector {
	if c.App.Tracing == nil {
		return nil
	}
	return []func(driver.Connector) driver.Connector{tracing.SQL}
}

// startObservability starts the metrics listener and tracing, before the
// database (whose pool both watch; a taken metrics address set by the
// operator stops the start), and answers what stops them — after the
// database and the workers, so that their last spans are sent.
func startObservability(c *config) (func(), error) {
	stopMetrics, err := startMetrics(*c)
	if err != nil {
		return nil, err
	}
	stopTracing, err := startTracing(c)
	if err != nil {
		stopMetrics()
		return nil, err
	}
	return func() { stopTracing(); stopMetrics() }, nil
}
