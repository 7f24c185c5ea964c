package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/loupe-mam/loupe/internal/demo"
)

// demoConfig is what `loupe demo` was told.
type demoConfig struct {
	URL     string
	APIKey  string
	NoWait  bool
	Timeout time.Duration
	// Dir keeps the sample files (empty: a temporary directory, removed).
	Dir string
	// Samples shortens the clips in tests.
	Samples demo.Options
	// Poll is the time between progress reads (tests; at least 1 s).
	Poll time.Duration
}

// parseDemoFlags reads the flags, falling back to the environment: the URL
// to LOUPE_URL, then the address `loupe serve` itself would use from this
// environment (LOUPE_PUBLIC_URL, LOUPE_ADDR), so that right after `make run`
// only the key is needed.
func parseDemoFlags(args []string, getenv func(string) string) (demoConfig, error) {
	or := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	serveURL := or("LOUPE_PUBLIC_URL", "http://localhost"+portOf(or("LOUPE_ADDR", ":8080")))
	var c demoConfig
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.StringVar(&c.URL, "url", or("LOUPE_URL", serveURL), "the server's base URL (env LOUPE_URL)")
	fs.StringVar(&c.APIKey, "api-key", "", "an API key of the tenant to fill (env LOUPE_API_KEY, which keeps it out of the shell's history)")
	fs.BoolVar(&c.NoWait, "no-wait", false, "upload and return without waiting for the processing")
	fs.DurationVar(&c.Timeout, "timeout", 10*time.Minute, "how long to wait for the processing")
	fs.StringVar(&c.Dir, "dir", "", "make the sample files here and keep them (default: a temporary directory, removed)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("demo takes no arguments (got %q)", fs.Args())
	}
	if c.APIKey == "" {
		c.APIKey = getenv("LOUPE_API_KEY")
	}
	if c.APIKey == "" {
		return c, errors.New("demo needs an API key: --api-key KEY or LOUPE_API_KEY=KEY " +
			"(`make run` prints the admin key on its first start; `loupe user create --tenant-id T --email E` makes another)")
	}
	return c, nil
}

func cmdDemo(ctx context.Context, args []string) error {
	c, err := parseDemoFlags(args, os.Getenv)
	if err != nil {
		return err
	}
	return runDemo(ctx, c, os.Stdout)
}

// runDemo makes the samples, uploads them and, unless told not to, waits
// for their processing, writing what happens to out.
func runDemo(ctx context.Context, c demoConfig, out io.Writer) error {
	client := &demo.Client{URL: c.URL, APIKey: c.APIKey}
	// The URL and key first: a wrong one is said before samples are made.
	if err := client.Check(ctx); err != nil {
		return err
	}
	dir := c.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "loupe-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(out, "Making %d sample files with ffmpeg in %s…\n", len(demo.Samples()), dir)
	files, err := demo.Make(ctx, dir, c.Samples)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Uploading to %s:\n", client.URL)
	items, err := client.UploadAll(ctx, files, out)
	if err != nil {
		return err
	}
	if c.NoWait {
		fmt.Fprintf(out, "Uploaded; processing runs on the server (GET /api/v1/items/<id> shows transcodingState).\n")
		return nil
	}
	fmt.Fprintln(out, "Processing:")
	if _, err := client.Wait(ctx, items, demo.WaitOptions{Timeout: c.Timeout, Interval: c.Poll}, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "All %d items are processed: see them in %s/playground or GET %s/api/v1/items/<id>.\n", len(items), client.URL, client.URL)
	return nil
}
