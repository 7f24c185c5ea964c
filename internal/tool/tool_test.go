//go:build linux

package tool_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/tool"
)

func sh(script string) tool.Cmd {
	return tool.Cmd{Program: "sh", Args: []string{"-c", script}}
}

// A failed run's error is its name, the last lines of its stderr and how
// it ended; what it was given reaches it.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cmd     tool.Cmd
		stdout  string
		err     string // "": none
		code    int
		errIsOf error
	}{
		{name: "ok", cmd: sh("echo hello"), stdout: "hello\n"},
		{name: "stdin, env, dir", cmd: tool.Cmd{Program: "sh", Args: []string{"-c", "cat; echo $LOUPE_X; pwd"},
			Stdin: strings.NewReader("in\n"), Env: []string{"LOUPE_X=y"}, Dir: "/"}, stdout: "in\ny\n/\n"},
		{name: "last lines and exit status", cmd: sh("echo one >&2; echo two >&2; echo >&2; echo ' three ' >&2; echo four >&2; exit 3"),
			err: "sh: two; three; four (exit 3)", code: 3},
		{name: "named", cmd: tool.Cmd{Program: "sh", Args: []string{"-c", "echo bad >&2; exit 1"}, Name: "helper"},
			err: "helper: bad (exit 1)", code: 1},
		{name: "nothing said", cmd: sh("exit 2"), err: "sh: exit status 2", code: 2},
		{name: "killed", cmd: sh("echo dying >&2; kill -9 $$"), err: "sh: dying: signal: killed", code: 137},
		{name: "not found", cmd: tool.Cmd{Program: "loupe-no-such-program"}, errIsOf: exec.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.cmd.Stdout = &out
			err := tool.Run(context.Background(), tc.cmd)
			if tc.errIsOf != nil {
				if !errors.Is(err, tc.errIsOf) {
					t.Fatalf("err %v, want %v", err, tc.errIsOf)
				}
				return
			}
			if out.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tc.stdout)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var te *tool.Error
			if !errors.As(err, &te) || err.Error() != tc.err || te.Code != tc.code {
				t.Fatalf("err %v (%#v), want %q, code %d", err, te, tc.err, tc.code)
			}
		})
	}
}

// Stdout and Stderr the same writer: one stream in the order written, the
// error's lines its last.
func TestRunCombined(t *testing.T) {
	var log bytes.Buffer
	c := sh("echo out; echo err >&2; echo out2; exit 4")
	c.Stdout, c.Stderr = &log, &log
	err := tool.Run(context.Background(), c)
	if log.String() != "out\nerr\nout2\n" || err == nil || err.Error() != "sh: out; err; out2 (exit 4)" {
		t.Fatalf("log %q, err %v", log.String(), err)
	}
}

// OnLine gets each line of the output, the last one without its newline
// too.
func TestOnLine(t *testing.T) {
	var lines []string
	c := sh("printf 'a=1\\nb=2\\n\\nlast'")
	c.OnLine = func(l string) { lines = append(lines, l) }
	if err := tool.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if strings.Join(lines, "|") != "a=1|b=2||last" {
		t.Fatalf("lines %q", lines)
	}
}

// Ending the context kills the program and what it started, and the
// answer is the context's.
func TestCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := tool.Start(ctx, sh("sleep 100 & echo $!; sleep 100"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(l))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	start := time.Now()
	if err := p.Wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waited %v", d)
	}
	for !gone(grandchild) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the child's child %d outlived the cancel", grandchild)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gone reports whether pid has ended (a zombie nobody reaped has).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// Programs run at Niceness unless they ask for normal priority.
func TestPriority(t *testing.T) {
	ours := 20 - must(syscall.Getpriority(syscall.PRIO_PROCESS, 0)) // the raw call answers 20 - nice
	for _, tc := range []struct {
		name   string
		normal bool
		want   int
	}{
		{"media work", false, tool.Niceness},
		{"normal", true, ours},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Lowered right after the start: read once the shell is
			// past its own.
			c := sh("sleep 0.3; cut -d' ' -f19 /proc/$$/stat")
			c.NormalPriority = tc.normal
			var out bytes.Buffer
			c.Stdout = &out
			if err := tool.Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.String()); got != strconv.Itoa(tc.want) {
				t.Fatalf("niceness %s, want %d", got, tc.want)
			}
		})
	}
}

func must(n int, err error) int {
	if err != nil {
		panic(err)
	}
	return n
}

// Passthrough answers what a shell would, and passes signals on.
func TestPassthrough(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		env    []string
		signal os.Signal
		code   int
		err    bool
	}{
		{name: "exit status", args: []string{"sh", "-c", "exit 7"}, code: 7},
		{name: "env", args: []string{"sh", "-c", `test "$LOUPE_X" = y`}, env: []string{"LOUPE_X=y"}},
		{name: "killed", args: []string{"sh", "-c", "kill -TERM $$"}, code: 128 + 15},
		{name: "signal passed on", args: []string{"sh", "-c", "trap 'exit 9' TERM; while :; do sleep 0.05; done"},
			signal: syscall.SIGTERM, code: 9},
		{name: "not found", args: []string{"loupe-no-such-program"}, code: 127, err: true},
		{name: "not a program", args: []string{"/"}, code: 126, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sigc := make(chan os.Signal, 1)
			if tc.signal != nil {
				time.AfterFunc(300*time.Millisecond, func() { sigc <- tc.signal })
			}
			code, err := tool.Passthrough(tc.args, tc.env, sigc)
			if code != tc.code || (err != nil) != tc.err {
				t.Fatalf("code %d, err %v; want %d", code, err, tc.code)
			}
		})
	}
}
