package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
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

// run runs bin/name with args, copying its output to t.log. On failure the
// error carries the end of that output, which is where initdb and pg_ctl say
// what went wrong.
func (t tools) run(ctx context.Context, name string, args ...string) error {
	_, err := t.exec(ctx, name, args...)
	return err
}

func (t tools) exec(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	path := filepath.Join(t.bin, name)
	var cmd *exec.Cmd
	if t.as != nil {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", t.as.name, "--", path}, args...)...)
		cmd.Dir = "/" // our cwd may not be readable by postgres, which makes the tools complain
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	ownProcessGroup(cmd)
	// pg_ctl start leaves a daemon behind; it redirects the daemon's output to
	// the log file, but should anything hold our pipe open, don't hang on it.
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(t.log, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return cmd, fmt.Errorf("pgcluster: %s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	return cmd, nil
}

// running reports whether a server is running on the data directory dir.
func (t tools) running(ctx context.Context, dir string) (bool, error) {
	cmd, err := t.exec(ctx, "pg_ctl", "status", "-D", dir)
	if err == nil {
		return true, nil
	}
	// pg_ctl status: 3 = no server running; 4 = no accessible data directory.
	var exit *exec.ExitError
	if errors.As(err, &exit) && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 3 {
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

// tail is the last n bytes of s, from a line start where possible.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "..." + s
}

// tailFile is the end of the file at path, or why it could not be read.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return tail(string(b), n)
}
