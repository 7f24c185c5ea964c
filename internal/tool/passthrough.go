package tool

import (
	"errors"
	"os"
	"os/exec"
)

// Passthrough runs args[0] with args[1:] as a part of this program: with
// its stdin, stdout and stderr, in its process group (a terminal's Ctrl-C
// reaches the child directly, and it may read the terminal), at its
// priority, env added to its environment. What arrives on signals is
// passed on to the child. It answers the status a shell would: the
// child's exit status, 128+N if signal N killed it, 127 if it is not
// found, 126 if it cannot start (err says why, for those).
func Passthrough(args, env []string, signals <-chan os.Signal) (code int, err error) {
	cmd := exec.Command(args[0], args[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return 127, err
		}
		return 126, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case sig := <-signals:
			cmd.Process.Signal(sig) //nolint:errcheck // it may have just ended
		case err := <-waited:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return 0, nil
			case errors.As(err, &exit):
				return exitCode(exit), nil
			default:
				return 1, err
			}
		}
	}
}
