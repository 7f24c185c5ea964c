// Command loupe is the Loupe media asset management server and its
// administration commands.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

const usage = `loupe: media asset management server

Usage:
  loupe serve                          start the server (migrates first)
  loupe worker                         work background jobs only (processing, ingest, moves): DATABASE_URL required
  loupe migrate                        apply database migrations
  loupe tenant create --name N --admin-email E
                                       make a tenant; prints {"tenantId","userId","apiKey"}
  loupe user create --tenant-id T --email E [--groups a,b] [--admin]
                                       make a user; prints {"userId","apiKey"}
  loupe system-key create [--label L]  make a system-scope key; prints {"keyId","apiKey"}
  loupe demo [--url U] [--api-key K] [--no-wait] [--timeout 10m] [--dir D]
                                       make sample media with ffmpeg and upload it to a running
                                       server (env LOUPE_URL, LOUPE_API_KEY); docs/demo.md
  loupe with-postgres -- CMD [ARGS]    run CMD against a throwaway Postgres (tests)

Configuration is read from the environment: loupe help serve lists every
setting with its default (README.md, Configuration).
`

func main() { runProcess(os.Args[1:]) }

// runProcess is the process: logging, signals, the command, the exit code
// (also the test binary's, when a test runs it as loupe).
func runProcess(args []string) {
	slog.SetDefault(slog.New(logHandler(os.Stderr, os.Getenv("LOUPE_LOG_FORMAT"))))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, args)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "serve":
		err = cmdServe(ctx, loadConfig())
	case cmd == "worker":
		err = cmdWorker(ctx, loadConfig())
	case cmd == "migrate":
		err = cmdMigrate(ctx, loadConfig())
	case cmd == "tenant" && len(rest) > 0 && rest[0] == "create":
		err = cmdTenantCreate(ctx, loadConfig(), rest[1:])
	case cmd == "user" && len(rest) > 0 && rest[0] == "create":
		err = cmdUserCreate(ctx, loadConfig(), rest[1:])
	case cmd == "system-key" && len(rest) > 0 && rest[0] == "create":
		err = cmdSystemKeyCreate(ctx, loadConfig(), rest[1:])
	case cmd == "demo":
		err = cmdDemo(ctx, rest)
	case cmd == "with-postgres":
		return cmdWithPostgres(ctx, rest)
	case (cmd == "help" || cmd == "-h" || cmd == "--help") && len(rest) > 0 && (rest[0] == "serve" || rest[0] == "worker"):
		if slices.Contains(rest, "--markdown") {
			settingsMarkdown(os.Stdout) // README.md's Configuration table
		} else {
			settingsHelp(os.Stdout)
		}
		return 0
	case cmd == "help" || cmd == "-h" || cmd == "--help":
		fmt.Print(usage)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "loupe: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err != nil {
		// One line per problem (the settings refused together).
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintln(os.Stderr, "loupe:", line)
		}
		return 1
	}
	return 0
}

// logHandler writes JSON lines (for log collectors) unless format is
// "text" or, with no format set, stderr is a terminal: a person reading
// `make run` gets one readable line a step.
func logHandler(stderr *os.File, format string) slog.Handler {
	opt := &slog.HandlerOptions{Level: logLevel()}
	if format == "text" || format == "" && isTerminal(stderr) {
		return slog.NewTextHandler(stderr, opt)
	}
	return slog.NewJSONHandler(stderr, opt)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("LOUPE_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}
