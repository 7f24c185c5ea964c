package main

import (
	"context"
	"fmt"
	"io"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/internal/bench/loadgen"
	"github.com/loupe-mam/loupe/internal/testkit/otlptest"
)

// tracingRows measures what tracing costs (docs/operations.md,
// "Tracing"): the get-item load on the main server (tracing off: nothing
// installed) and, right after it, on a server of the same binary that
// traces every request (the default sampler: every trace) and exports
// its spans over OTLP/HTTP to a receiver in this process, which decodes
// each export and counts the spans, as a collector beside the node
// would. The receiver shares the machine's cores with the server and the
// load, as such a collector does.
func tracingRows(ctx context.Context, c benchConfig, dbURL string, main *server, s *benchseed.Seeded,
	measure func(string, loadgen.Config, int) benchRow, log io.Writer) []benchRow {
	const name = getItemName + ", tracing "
	rcv, stop := otlptest.Start(false)
	defer stop()
	on, err := startServer(ctx, c.loupe, dbURL, false, log, "LOUPE_WORKERS=-1", "LOUPE_METRICS_ADDR=off",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="+rcv.URL)
	if err != nil {
		return []benchRow{{Scenario: name + "on", Unmeasured: err.Error()}}
	}
	off := measure(name+"off", getItemLoad(main.url, s), main.pid)
	traced := measure(name+"on (OTLP/HTTP, every trace)", getItemLoad(on.url, s), on.pid)
	on.stop() // sends the last batch
	spans, exports := rcv.Count()
	if sent := traced.Result.Sent; sent > 0 {
		traced.Note = fmt.Sprintf("%.1f spans a request, %d exports", float64(spans)/float64(sent), exports)
	}
	if off.Result.RPS > 0 && traced.Result.RPS > 0 {
		traced.Note += fmt.Sprintf("; %.0f%% of the untraced rate", 100*traced.Result.RPS/off.Result.RPS)
	}
	return []benchRow{off, traced}
}
