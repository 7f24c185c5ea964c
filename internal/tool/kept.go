package tool

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Kept is a program kept running between requests, spoken to through its
// pipes (ExifTool's -stay_open, the helpers of a Pool): programs that are
// slow to start (Perl, Python: docs/performance.md, "Numbers behind the
// code") cost that once, not per request.
type Kept struct {
	In  io.WriteCloser
	Out *bufio.Reader
	// Err is its stderr: read it (a full pipe would stop the program).
	Err *bufio.Reader

	name       string
	cmd        *exec.Cmd
	outR, errR *os.File
}

// StartKept starts c (its Stdin, Stdout, OnLine and Stderr unused: the
// pipes are Kept's). It is bound to no request's context (it outlives
// them; Stop ends it) and dies with this process.
func StartKept(c Cmd) (*Kept, error) {
	k := &Kept{name: c.name(), cmd: c.command(context.Background())}
	dieWithUs(k.cmd)
	in, err := k.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.name, err)
	}
	// Pipes of our own rather than exec's: a read ends at the program's
	// end rather than failing when Wait closes the pipe, so what it said
	// last is read.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("%s: %w", k.name, err)
	}
	k.cmd.Stdout, k.cmd.Stderr = outW, errW
	err = k.cmd.Start()
	outW.Close() // the program's now
	errW.Close()
	if err != nil {
		in.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("%s: %w", k.name, err)
	}
	c.started(k.cmd)
	k.In, k.outR, k.errR = in, outR, errR
	k.Out, k.Err = bufio.NewReader(outR), bufio.NewReader(errR)
	return k, nil
}

// Stop kills the program and what it started (a read in progress ends).
func (k *Kept) Stop() {
	killGroup(k.cmd) //nolint:errcheck // it may be gone
	k.wait()         //nolint:errcheck // killed
}

// wait closes its stdin and waits for it to end, then closes the pipes.
func (k *Kept) wait() error {
	k.In.Close()
	err := k.cmd.Wait()
	k.outR.Close()
	k.errR.Close()
	return err
}
