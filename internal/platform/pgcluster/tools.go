package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupe-mam/loupe/internal/tool"
)

// tools runs the PostgreSQL programs in bin, as the postgres OS user when we
// are root (initdb and the server refuse to run as root).
type tools struct {
	bin string
	log io.Writer
	as  *osUser // nil: run as ourselves
}

func newTools(bin string, log io.Writer) (tools, error) {
	t := tools{bin: bin, log: log}
	if os.Geteuid() == 0 {
		u, err := lookupPostgresUser()
		if err != nil {
			return t, err
		}
		t.as = u
	}
	return t, nil
}

// run runs bin/name with args at normal priority (the server it starts
// is what the service stands on), copying its output to t.log. On failure
// the error carries the end of that output, which is where initdb and
// pg_ctl say what went wrong.
func (t tools) run(ctx context.Context, name string, args ...string) error {
	path := filepath.Join(t.bin, name)
	c := tool.Cmd{Program: path, Args: args, Name: "pgcluster: " + name + " " + strings.Join(args, " "),
		Stdout: t.log, Stderr: t.log, NormalPriority: true}
	if t.as != nil {
		c.Program, c.Args = "runuser", append([]string{"-u", t.as.name, "--", path}, args...)
		c.Dir = "/" // our cwd may not be readable by postgres, which makes the tools complain
	}
	// In its own process group, which cancelling kills: not just the
	// runuser wrapper (which would leave initdb writing into a directory
	// the caller is about to remove). pg_ctl detaches the server into its
	// own session, so a running cluster survives this. pg_ctl start leaves
	// a daemon behind; it redirects the daemon's output to the log file,
	// but should anything hold our pipe open, the run does not hang on it
	// (tool's WaitDelay).
	return tool.Run(ctx, c)
}

// running reports whether a server is running on the data directory dir.
func (t tools) running(ctx context.Context, dir string) (bool, error) {
	err := t.run(ctx, "pg_ctl", "status", "-D", dir)
	if err == nil {
		return true, nil
	}
	// pg_ctl status: 3 = no server running; 4 = no accessible data directory.
	var exit *tool.Error
	if errors.As(err, &exit) && exit.Code == 3 {
		return false, nil
	}
	return false, err
}

// prepareDataDir creates the directory initdb will fill and, when the tools run
// as another user, hands it to that user.
func (t tools) prepareDataDir(dir string) error {
	// Directories made on the way stay reachable for the server's user.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if t.as == nil {
		return nil
	}
	if err := t.as.checkTraversable(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Chown(dir, t.as.uid, t.as.gid); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return nil
}

// prepareLogFile creates the server log, which the server opens as whichever
// user it runs as, and which sits in a directory that user may not write to.
func (t tools) prepareLogFile(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("pgcluster: server log: %w", err)
	}
	f.Close()
	if t.as != nil {
		if err := os.Chown(path, t.as.uid, t.as.gid); err != nil {
			return fmt.Errorf("pgcluster: server log: %w", err)
		}
	}
	return nil
}

// tailFile is the end of the file at path, or why it could not be read.
func tailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	t := tool.NewTail(n)
	if _, err := io.Copy(t, f); err != nil {
		return err.Error()
	}
	return t.String()
}
