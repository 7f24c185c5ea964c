// Package tool runs every external program Loupe starts: the media tools
// and analysis engines (at low priority, in their own process group, the
// end of what they say on stderr in their errors), the helpers kept running
// between requests (Kept, Pool), PostgreSQL's programs and with-postgres's
// child (at normal priority). The packages that use it build arguments and
// parse answers; how a process is started, lowered, killed and waited for
// is here alone.
package tool

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Niceness is the priority media tools run at: the lowest, so that the
// database and the API keep the machine while they work (docs/performance.md,
// "Numbers behind the code": tools' priority).
const Niceness = 19

// waitDelay bounds how long a run waits, once the program has exited or its
// context ended, for pipes that something it started still holds open.
const waitDelay = 5 * time.Second

// tailBytes is how much of a program's stderr is kept for its error.
const tailBytes = 8 << 10

// Cmd is a program to run.
type Cmd struct {
	// Program is the executable: a name looked up on PATH, or a path.
	Program string
	Args    []string
	// Name is the program's name in errors (Program's base name when
	// empty).
	Name string
	// Env is added to this process's environment.
	Env []string
	// Dir is the working directory (empty: ours).
	Dir   string
	Stdin io.Reader
	// Stdout receives the program's output; else OnLine receives it a
	// line at a time; else Start's caller reads it (Process.Stdout).
	Stdout io.Writer
	OnLine func(line string)
	// Stderr receives a copy of what the program writes to stderr (its
	// last lines are in the error either way). When it is Stdout the two
	// are one stream, in the order written, and the error ends with its
	// last lines.
	Stderr io.Writer
	// NormalPriority runs the program at this process's priority rather
	// than at Niceness: for the programs the service itself stands on
	// (PostgreSQL's).
	NormalPriority bool
}

func (c *Cmd) name() string {
	if c.Name != "" {
		return c.Name
	}
	return filepath.Base(c.Program)
}

// command is c as an exec.Cmd bound to ctx: in its own process group,
// which ending ctx kills.
func (c *Cmd) command(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.Program, c.Args...)
	if c.Env != nil {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	cmd.Dir = c.Dir
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	return cmd
}

// started lowers a started program's priority unless c keeps it normal:
// right after the start, as the moment before is the program's own
// start-up, not its work.
func (c *Cmd) started(cmd *exec.Cmd) {
	if !c.NormalPriority {
		lower(cmd.Process.Pid)
	}
}

// Process is a program started by Start.
type Process struct {
	// Stdout is the program's output as it writes it, when the Cmd gave
	// it no Stdout or OnLine; Wait reads what is left of it.
	Stdout io.Reader

	ctx    context.Context
	cmd    *exec.Cmd
	out    io.Reader // the stdout pipe, if there is one
	name   string
	tail   *Tail
	onLine func(string)
}

// Start starts c. Ending ctx kills it and whatever it started.
func Start(ctx context.Context, c Cmd) (*Process, error) {
	cmd := c.command(ctx)
	p := &Process{ctx: ctx, cmd: cmd, name: c.name(), tail: NewTail(tailBytes), onLine: c.OnLine}
	cmd.Stdin = c.Stdin
	switch {
	case c.Stderr != nil && same(c.Stderr, c.Stdout):
		w := io.MultiWriter(p.tail, c.Stdout)
		cmd.Stdout, cmd.Stderr = w, w
	case c.Stderr != nil:
		cmd.Stdout, cmd.Stderr = c.Stdout, io.MultiWriter(p.tail, c.Stderr)
	default:
		cmd.Stdout, cmd.Stderr = c.Stdout, p.tail
	}
	if c.Stdout == nil {
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		p.out = out
		if c.OnLine == nil {
			p.Stdout = out
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	c.started(cmd)
	return p, nil
}

// Wait reads what is left of the program's output (to OnLine, if the Cmd
// had it) and waits for it to end. Its error is ctx's when the context
// ended, else an *Error.
func (p *Process) Wait() error {
	if p.out != nil {
		if p.onLine != nil {
			sc := bufio.NewScanner(p.out)
			sc.Buffer(make([]byte, 4<<10), 1<<20)
			for sc.Scan() {
				p.onLine(sc.Text())
			}
		}
		io.Copy(io.Discard, p.out) //nolint:errcheck // drained so that it can finish
	}
	err := p.cmd.Wait()
	if err == nil {
		return nil
	}
	if p.ctx.Err() != nil {
		return p.ctx.Err()
	}
	return newError(p.name, p.tail, err)
}

// Run runs c to its end (Start, then Wait).
func Run(ctx context.Context, c Cmd) error {
	p, err := Start(ctx, c)
	if err != nil {
		return err
	}
	return p.Wait()
}

// same reports whether a and b are one writer (false for writers that
// cannot be compared).
func same(a, b io.Writer) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
