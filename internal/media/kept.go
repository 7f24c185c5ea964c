package media

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"syscall"
)

// kept is a tool kept running between requests, spoken to through its
// pipes: ExifTool (-stay_open) and the still-image helper. Tools that are
// slow to start (Perl, Python: 0.1–0.3 s here) cost that once, not per
// photo.
type kept struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	errOut *bufio.Reader
}

// startKept starts name with args at media tools' priority. It is bound to
// no request's context (it outlives them; stop ends it) and dies with this
// process (Pdeathsig: a kept tool waits for more on its stdin and would
// otherwise outlive a killed node).
func startKept(name string, args ...string) (*kept, error) {
	cmd := exec.CommandContext(context.Background(), name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := start(cmd); err != nil {
		return nil, err
	}
	return &kept{cmd: cmd, in: in, out: bufio.NewReader(out), errOut: bufio.NewReader(errOut)}, nil
}

// stop kills the tool (its pipes close, so a read in progress ends).
func (k *kept) stop() {
	syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // it may be gone
	k.in.Close()                                      //nolint:errcheck // the process is gone
	k.cmd.Wait()                                      //nolint:errcheck // killed
}
