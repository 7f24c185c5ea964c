// Package pgcluster runs a local PostgreSQL cluster from the stock server
// binaries, for development and tests: it initialises a data directory once,
// starts a server listening only on 127.0.0.1 and stops it again.
//
// It shells out to initdb and pg_ctl rather than embedding a server so that the
// cluster is an ordinary one a developer can inspect with psql. PostgreSQL
// refuses to run as root, so when we are root the tools run as the "postgres"
// OS user (via runuser) and the data directory is handed to that user.
package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Role is the superuser initdb creates; URL connects as it. Using our own name
// rather than "postgres" keeps it clear which clusters are ours.
const Role = "loupe"

// Options says where the cluster lives and how it runs.
type Options struct {
	Dir  string    // data directory; initdb runs when Dir has no PG_VERSION file, otherwise the cluster is reused
	Port int       // TCP port on 127.0.0.1; 0 picks a free one
	Fast bool      // tests: fsync=off, synchronous_commit=off, full_page_writes=off
	Log  io.Writer // where initdb/pg_ctl output goes (nil = discard); the server log is LogFile()
	// Settings are extra server settings (-c name=value), e.g.
	// shared_preload_libraries=pg_stat_statements for benchmarks.
	Settings map[string]string
}

// Cluster is a running server.
type Cluster struct {
	dir     string
	port    int
	logFile string
	tools   tools
	owned   bool // we started it, so Stop stops it
	created bool // Start ran initdb

	stopOnce sync.Once
	stopErr  error
}

// readyTimeout bounds how long Start waits for a server to accept connections
// after pg_ctl says it is up (or, for a reused cluster, while it finishes
// starting).
const readyTimeout = 30 * time.Second

// Start initialises opt.Dir if needed and starts the server, or attaches to
// the server already running in opt.Dir. It returns once the server accepts
// connections.
func Start(ctx context.Context, opt Options) (*Cluster, error) {
	if opt.Dir == "" {
		return nil, errors.New("pgcluster: Options.Dir is empty")
	}
	dir, err := filepath.Abs(opt.Dir) // the tools run with cwd "/" when we are root
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	bin, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	t, err := newTools(bin, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, logFile: logFileFor(dir), tools: t}

	initialised := fileExists(filepath.Join(dir, "PG_VERSION"))
	if initialised {
		running, err := t.running(ctx, dir)
		if err != nil {
			return nil, err
		}
		if running {
			return c.attach(ctx, opt.Port)
		}
	} else {
		if err := c.initdb(ctx, opt.Fast); err != nil {
			return nil, err
		}
		c.created = true
	}
	if err := c.start(ctx, opt); err != nil {
		return nil, err
	}
	if err := waitReady(ctx, c.URL("postgres")); err != nil {
		c.abort()
		return nil, fmt.Errorf("pgcluster: server started but does not accept connections (log: %s): %w", c.logFile, err)
	}
	return c, nil
}

// attach adopts a server somebody else started in c.dir. It is not ours, so
// Stop leaves it running.
func (c *Cluster) attach(ctx context.Context, wantPort int) (*Cluster, error) {
	port, err := readPostmasterPort(filepath.Join(c.dir, "postmaster.pid"))
	if err != nil {
		return nil, fmt.Errorf("pgcluster: cluster in %s is running: %w", c.dir, err)
	}
	if wantPort != 0 && wantPort != port {
		return nil, fmt.Errorf("pgcluster: cluster in %s is already running on port %d, not %d", c.dir, port, wantPort)
	}
	c.port = port
	if err := waitReady(ctx, c.URL("postgres")); err != nil {
		return nil, fmt.Errorf("pgcluster: cluster in %s is running on port %d but does not accept connections as %q on 127.0.0.1: %w", c.dir, port, Role, err)
	}
	return c, nil
}

func (c *Cluster) initdb(ctx context.Context, fast bool) error {
	if err := c.tools.prepareDataDir(c.dir); err != nil {
		return err
	}
	args := []string{"-D", c.dir, "-U", Role, "--auth=trust", "-E", "UTF8", "--locale=C"}
	if fast {
		args = append(args, "--no-sync") // don't fsync the new cluster; saves about a second
	}
	return c.tools.run(ctx, "initdb", args...)
}

// start runs pg_ctl start. With an automatic port another process may take the
// port between our probe and the server's bind, so that case is retried.
func (c *Cluster) start(ctx context.Context, opt Options) error {
	if err := c.tools.prepareLogFile(c.logFile); err != nil {
		return err
	}
	attempts := 1
	if opt.Port == 0 {
		attempts = 3
	}
	var err error
	for range attempts {
		c.port = opt.Port
		if c.port == 0 {
			if c.port, err = freePort(); err != nil {
				return fmt.Errorf("pgcluster: %w", err)
			}
		}
		err = c.tools.run(ctx, "pg_ctl", "start", "-w", "-t", "60", "-D", c.dir, "-l", c.logFile,
			"-o", serverOptions(c.port, opt.Fast, opt.Settings))
		if err == nil {
			c.owned = true
			return nil
		}
		// pg_ctl may have launched a postmaster before failing or being
		// cancelled; don't leave it running on a directory we are about to
		// give up on.
		c.abort()
		if ctx.Err() != nil {
			break
		}
	}
	// pg_ctl only says "could not start server"; the reason is in the log.
	return fmt.Errorf("%w\nend of server log %s:\n%s", err, c.logFile, tailFile(c.logFile, 1500))
}

// serverOptions is the postgres command line pg_ctl passes through a shell:
// TCP on loopback only and no Unix socket, so nothing outside this process
// tree's reach can talk to it and no socket directory needs to be writable.
func serverOptions(port int, fast bool, settings map[string]string) string {
	o := "-c listen_addresses=127.0.0.1 -p " + strconv.Itoa(port) +
		" -c unix_socket_directories='' -c max_connections=200"
	if fast {
		// Durability is pointless for a throwaway test cluster.
		o += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		o += " -c " + k + "=" + settings[k]
	}
	return o
}

// BinDir is the directory of the server binaries the cluster runs with
// (pgbench and psql sit beside them).
func (c *Cluster) BinDir() string { return c.tools.bin }

// abort stops a server we may have launched, without waiting for clients.
func (c *Cluster) abort() {
	if !fileExists(filepath.Join(c.dir, "postmaster.pid")) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.tools.run(ctx, "pg_ctl", "stop", "-m", "immediate", "-w", "-D", c.dir)
}

// URL is the lib/pq connection URL for database dbname on this cluster.
func (c *Cluster) URL(dbname string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Role, c.port, dbname)
}

// Created reports whether Start made the cluster (ran initdb) rather than
// reusing one.
func (c *Cluster) Created() bool { return c.created }

// Owned says whether Start started the server (Stop stops it) rather than
// attaching to one already running in its directory.
func (c *Cluster) Owned() bool { return c.owned }

// Dir is the cluster's data directory (absolute).
func (c *Cluster) Dir() string { return c.dir }

// Port is the TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// LogFile is the server log of a cluster Start started; it sits next to the
// data directory because initdb wants an empty directory to start with.
func (c *Cluster) LogFile() string { return c.logFile }

// Stop shuts down a server Start started, waiting for it to exit. It does
// nothing if Start found the server already running: that one was not ours.
// It is safe to call more than once.
func (c *Cluster) Stop() error {
	if !c.owned {
		return nil
	}
	c.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c.stopErr = c.tools.run(ctx, "pg_ctl", "stop", "-m", "fast", "-w", "-D", c.dir)
	})
	return c.stopErr
}

func logFileFor(dir string) string {
	return filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".log")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
