package tool

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// tailLines is how many of the last lines of stderr an error carries.
const tailLines = 3

// Error is a program that failed: "<name>: <last lines of stderr> (exit N)".
type Error struct {
	Name string
	// Stderr is the last lines the program wrote to stderr, "; "-joined.
	Stderr string
	// Code is the exit status, as a shell reports it: 128+N when signal N
	// ended the program, -1 when it was not seen to end.
	Code int
	Err  error
}

func newError(name string, tail *Tail, err error) *Error {
	e := &Error{Name: name, Stderr: tail.Lines(tailLines), Code: -1, Err: err}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		e.Code = exitCode(exit)
	}
	return e
}

func (e *Error) Error() string {
	var exit *exec.ExitError
	switch {
	case e.Stderr == "":
		return e.Name + ": " + e.Err.Error()
	case errors.As(e.Err, &exit) && exit.Exited():
		return fmt.Sprintf("%s: %s (exit %d)", e.Name, e.Stderr, e.Code)
	default:
		return e.Name + ": " + e.Stderr + ": " + e.Err.Error()
	}
}

func (e *Error) Unwrap() error { return e.Err }

// exitCode is the status a shell would report for a program that ended as
// exit says: its exit status, or 128+N if signal N killed it.
func exitCode(exit *exec.ExitError) int {
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return SignalCode(ws.Signal())
	}
	return exit.ExitCode()
}

// SignalCode is the status a shell reports for a program that sig killed:
// 128+N.
func SignalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
