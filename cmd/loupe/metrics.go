package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/platform/metrics"
)

// metricsOff are the values of LOUPE_METRICS_ADDR that serve no metrics.
func metricsOff(addr string) bool {
	switch strings.ToLower(addr) {
	case "", "off", "none", "false", "0":
		return true
	}
	return false
}

// startMetrics serves the node's metrics (c.App.Metrics) at /metrics on
// their own listener, LOUPE_METRICS_ADDR, never on the API's public
// address (docs/operations.md, "Metrics"), and answers how to stop it. An
// address set that cannot be listened on stops the start; the default
// taken (another node on this machine) is a warning.
func startMetrics(c config) (func(), error) {
	if metricsOff(c.MetricsAddr) || c.App.Metrics == nil {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", c.MetricsAddr)
	if err != nil {
		if c.MetricsAddrSet {
			return nil, fmt.Errorf("LOUPE_METRICS_ADDR: %w", err)
		}
		slog.Warn("metrics are not served: their default address is taken (set LOUPE_METRICS_ADDR, or off)",
			"addr", c.MetricsAddr, "err", err)
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+metrics.Path, c.App.Metrics.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics", "err", err)
		}
	}()
	slog.Info("metrics serving", "addr", ln.Addr().String(), "path", metrics.Path)
	return func() { srv.Close() }, nil
}
