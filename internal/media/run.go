package media

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Niceness is the priority media tools run at: the lowest, so that the
// database and the API keep the machine while they work (measured in the
// issue: Postgres keeps 83 % of its idle throughput beside two transcodes at
// nice 19, 42 % at nice 0).
const Niceness = 19

// Start starts cmd as media tools run: at Niceness, in its own process
// group (cancelling its context kills what it started too). For the other
// engines that work on media (internal/analysis).
func Start(cmd *exec.Cmd) error { return start(cmd) }

// start starts cmd and lowers its priority. In its own process group, so
// that cancelling kills what it started too.
func start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", cmd.Path, err)
	}
	// Lowered right after the start: the moment before is the tool's own
	// start-up, not its work.
	syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, Niceness) //nolint:errcheck // best effort
	return nil
}

// Progress is what ffmpeg reports while it runs.
type Progress struct {
	// Done is the media time written so far.
	Done time.Duration
	// Speed is the media time written per wall-clock second (0: unknown).
	Speed float64
	// End is set on the last report.
	End bool
}

// Command is one ffmpeg run.
type Command struct {
	// Args are ffmpeg's arguments after the ones Run adds (quiet, no
	// stdin, progress on stdout).
	Args []string
	// OnProgress receives each progress report (about twice a second).
	OnProgress func(Progress)
}

// quiet are the arguments ffmpeg always runs with: no stdin, only errors
// said, outputs overwritten.
var quiet = []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"}

// FFmpegArgv is the ffmpeg command for args, as run without progress.
func FFmpegArgv(args []string) []string {
	return append(append([]string{"ffmpeg"}, quiet...), args...)
}

// Run runs ffmpeg and answers its error with the end of what it said.
func Run(ctx context.Context, c Command) error {
	args := append(append([]string{"-progress", "pipe:1"}, quiet...), c.Args...)
	cmd := exec.CommandContext(ctx, "ffmpeg", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{max: 8 << 10, buf: &stderr}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := start(cmd); err != nil {
		return err
	}
	readProgress(out, c.OnProgress)
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("ffmpeg: %s", toolError(err, stderr.String()))
	}
	return nil
}

// readProgress parses ffmpeg's -progress blocks (key=value lines, each
// block ending with progress=continue or progress=end).
func readProgress(r io.Reader, fn func(Progress)) {
	sc := bufio.NewScanner(r)
	var p Progress
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "out_time_us", "out_time_ms": // both are microseconds
			if us, err := strconv.ParseInt(v, 10, 64); err == nil && us >= 0 {
				p.Done = time.Duration(us) * time.Microsecond
			}
		case "speed":
			p.Speed = parseFloat(strings.TrimSuffix(strings.TrimSpace(v), "x"))
		case "progress":
			p.End = v == "end"
			if fn != nil {
				fn(p)
			}
		}
	}
	io.Copy(io.Discard, r) //nolint:errcheck // drain whatever is left
}

// toolError is err with the last lines the tool wrote to stderr.
func toolError(err error, stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return err.Error()
	}
	lines := strings.Split(stderr, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("%s (exit %d)", strings.Join(lines, "; "), ee.ExitCode())
	}
	return strings.Join(lines, "; ") + ": " + err.Error()
}

// limitedBuffer keeps the last max bytes written (the end of an error
// output is where the reason is).
type limitedBuffer struct {
	max int
	buf *bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	l.buf.Write(p)
	if over := l.buf.Len() - l.max; over > 0 {
		rest := append([]byte(nil), l.buf.Bytes()[over:]...)
		l.buf.Reset()
		l.buf.Write(rest)
	}
	return n, nil
}
