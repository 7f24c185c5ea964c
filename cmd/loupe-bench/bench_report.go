package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/bench/benchseed"
)

// base64URL is a cursor as Loupe's connections write it.
func base64URL(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// benchReport renders the rows as Markdown with the run's conditions and the
// ratios issue 5 sets targets for.
func benchReport(c benchConfig, s *benchseed.Seeded, rows []benchRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\nMeasured by `make bench` (`cmd/loupe-bench`) on %s: %d cores, %s memory, Go %s.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), memTotal(), runtime.Version())
	fmt.Fprintf(&b, "Concurrency %d, %v measured after %v warm-up per scenario, loopback, one throwaway Postgres (shared_buffers %s).\n",
		c.concurrency, c.duration, c.warmup, benchSharedBuffers)
	fmt.Fprintf(&b, "Seeded in %v: %d items, %d folders, one folder of %d children, comments, audit records and relations.\n\n",
		s.Took.Round(time.Millisecond), len(s.ItemIDs), len(s.FolderIDs), len(s.BigFolderItems))
	b.WriteString("| scenario | req/s | p50 | p99 | SQL/req | server RSS | errors | note |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	byName := map[string]benchRow{}
	for _, r := range rows {
		byName[r.Scenario] = r
		if r.Unmeasured != "" && r.Result.Requests == 0 && r.Result.RPS == 0 {
			fmt.Fprintf(&b, "| %s | – | – | – | – | – | – | not measured: %s |\n", r.Scenario, oneLine(r.Unmeasured))
			continue
		}
		rss := "–"
		if r.RSSMiB > 0 {
			rss = fmt.Sprintf("%.0f MiB", r.RSSMiB)
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %.2f | %s | %d | %s |\n", r.Scenario, r.Result.RPS,
			ms(r.Result.P50), ms(r.Result.P99), r.SQLPerReq, rss, r.Result.Errors, oneLine(r.Note+" "+r.Result.FirstError))
	}
	b.WriteString("\n| ratio | value | target |\n|---|---:|---:|\n")
	ratio := func(name, a, bName string, target float64) {
		x, y := byName[a].Result.RPS, byName[bName].Result.RPS
		want := fmt.Sprintf("≥ %.2f", target)
		if target == 0 {
			want = "(yardstick)"
		}
		if x == 0 || y == 0 {
			fmt.Fprintf(&b, "| %s | – | %s |\n", name, want)
			return
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s |\n", name, x/y, want)
	}
	ratio("REST get-item / pgbench -S (simple)", getItemName, "pgbench -S (simple)", 0.25)
	ratio("REST get-item / hand-written chi + sqlx handler", getItemName, referenceName, 0)
	ratio("REST get-item / PostGraphile by id", getItemName, "PostGraphile by id", 2)
	ratio("GraphQL grid / PostGraphile grid", "GraphQL grid: 50 items of the 100k folder, nested", "PostGraphile grid (equivalent nested page)", 20)
	return b.String()
}

func ms(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func oneLine(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "?"
	}
	var kb int64
	fmt.Sscanf(string(b), "MemTotal: %d kB", &kb)
	return fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
}
