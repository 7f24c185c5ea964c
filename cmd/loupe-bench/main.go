// Command loupe-bench measures a built loupe the way the performance
// targets are set (docs/performance.md, docs/benchmarks.md): it seeds a
// realistic tenant into a throwaway cluster, runs `loupe serve` against it,
// drives load per scenario and measures pgbench -S and PostGraphile in the
// same run. It lives apart from the product: the loupe binary links no load
// generator and no npm installer.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmdBench(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "loupe-bench:", err)
		os.Exit(1)
	}
}
