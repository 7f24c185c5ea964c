package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loupe-mam/loupe/internal/platform/pgcluster"
	"github.com/loupe-mam/loupe/internal/tool"
)

// cmdWithPostgres runs `loupe with-postgres -- CMD ARGS...` (args are what
// follows "with-postgres"; a leading "--" is optional): if DATABASE_URL is
// already set it just runs CMD; else it starts a throwaway cluster
// (pgcluster, Fast, temp dir, port 0), runs CMD with DATABASE_URL=<cluster URL
// for db "postgres"> in the environment (stdin/stdout/stderr passed through),
// stops the cluster and removes the dir (also on SIGINT/SIGTERM), and returns
// CMD's exit code.
//
// `make test` uses it so that tests need nothing but the PostgreSQL binaries.
func cmdWithPostgres(ctx context.Context, args []string) (exitCode int) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: loupe with-postgres -- CMD [ARGS...]")
		return 2
	}
	// Until we return, signals are ours to act on: they must not kill us
	// before the cluster is stopped.
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)

	if os.Getenv("DATABASE_URL") != "" {
		return runChild(args, nil, sigc)
	}

	// On tmpfs when there is room (much faster), reachable by the postgres
	// user when we are root.
	tmp, err := pgcluster.MkdirTemp("loupe-pg-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "with-postgres:", err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(tmp); err != nil {
			fmt.Fprintln(os.Stderr, "with-postgres:", err)
		}
	}()

	cluster, sig, err := startCluster(ctx, pgcluster.Options{Dir: filepath.Join(tmp, "data"), Fast: true}, sigc)
	if err != nil {
		if sig != nil {
			return tool.SignalCode(sig)
		}
		fmt.Fprintln(os.Stderr, "with-postgres:", err)
		return 1
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "with-postgres:", err)
		}
	}()

	return runChild(args, []string{"DATABASE_URL=" + cluster.URL("postgres")}, sigc)
}

// startCluster starts the cluster, giving up if a signal arrives meanwhile
// (the signal is returned then).
func startCluster(ctx context.Context, opt pgcluster.Options, sigc <-chan os.Signal) (*pgcluster.Cluster, os.Signal, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		c   *pgcluster.Cluster
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := pgcluster.Start(ctx, opt)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() != nil {
			// Cancelled from outside, most likely by the signal that is
			// on its way to sigc too; report that rather than "context
			// canceled".
			select {
			case sig := <-sigc:
				return nil, sig, r.err
			case <-time.After(100 * time.Millisecond):
			}
		}
		return r.c, nil, r.err
	case sig := <-sigc:
		cancel()
		if r := <-done; r.err == nil {
			r.c.Stop() // it made it just before the cancel
		}
		return nil, sig, errors.New("interrupted")
	}
}

// runChild runs args[0] with args[1:] and returns its exit code, forwarding
// SIGINT/SIGTERM to it (a terminal's Ctrl-C reaches it directly as well; a
// second SIGINT is harmless). The child is not told when ctx ends: main's ctx
// ends on those same signals, and turning a Ctrl-C into a SIGTERM as well
// would kill `go test` before it has stopped its test binaries. env is added
// to our environment.
func runChild(args, env []string, sigc <-chan os.Signal) int {
	code, err := tool.Passthrough(args, env, sigc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "with-postgres:", err)
	}
	return code
}
