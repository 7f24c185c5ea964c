package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// `loupe serve` serves /metrics on LOUPE_METRICS_ADDR, and only there:
// the API's public port answers 404 for it, and the metrics listener
// serves nothing of the API.
func TestServeMetricsOnTheirOwnAddress(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.DB(t))
	metricsAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	env := nodeEnv(t, "LOUPE_METRICS_ADDR="+metricsAddr)
	n := startNode(t, env, "127.0.0.1:"+strconv.Itoa(freePort(t)))

	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(n.base + "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz answered %d", code)
	}
	code, body := get("http://" + metricsAddr + "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics on LOUPE_METRICS_ADDR answered %d: %s", code, body)
	}
	for _, want := range []string{`loupe_http_requests_total{code="200",method="GET",route="/healthz"} `,
		`go_sql_open_connections{db_name="api"}`, `go_sql_open_connections{db_name="jobs"}`, `loupe_job_queue_up 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	if code, _ := get(n.base + "/metrics"); code != http.StatusNotFound {
		t.Errorf("the API's port answered /metrics with %d, want 404", code)
	}
	if code, _ := get("http://" + metricsAddr + "/healthz"); code != http.StatusNotFound {
		t.Errorf("the metrics address answered the API's /healthz with %d, want 404", code)
	}
}
