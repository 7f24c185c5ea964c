package media

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/loupe-mam/loupe/internal/tool"
)

// ExifTool is Perl: starting it takes more than reading a photo
// (docs/performance.md, "Numbers behind the code"). One exiftool per process is kept running (-stay_open) and given
// one request at a time; it starts on first use and again after it died
// or a request was cancelled.
var exifTool stayOpen

type stayOpen struct {
	mu   sync.Mutex
	kept *tool.Kept // nil: not running
	seq  int
}

// errArgs is the answer for arguments the argument file cannot carry.
var errArgs = errors.New("exiftool: an argument holds a line break")

// run answers what exiftool writes to stdout and stderr for args. An
// exiftool found dead (its pipe broken) is started again once.
func (e *stayOpen) run(ctx context.Context, args []string) (stdout, stderr []byte, err error) {
	for _, a := range args {
		if strings.ContainsAny(a, "\r\n") {
			return nil, nil, errArgs
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	fresh := e.kept == nil
	stdout, stderr, err = e.request(ctx, args)
	if err != nil && !fresh && ctx.Err() == nil {
		return e.request(ctx, args)
	}
	return stdout, stderr, err
}

// request sends one request (e.mu held).
func (e *stayOpen) request(ctx context.Context, args []string) (stdout, stderr []byte, err error) {
	if e.kept == nil {
		t, err := tool.StartKept(tool.Cmd{Program: "exiftool", Args: []string{"-stay_open", "True", "-@", "-"}})
		if err != nil {
			return nil, nil, err
		}
		e.kept = t
	}
	e.seq++
	ready := "{ready" + strconv.Itoa(e.seq) + "}"
	done := "{done" + strconv.Itoa(e.seq) + "}"
	// -echo4 marks the end of this request's stderr as {readyN} marks
	// stdout's.
	req := strings.Join(args, "\n") + "\n-echo4\n" + done + "\n-execute" + strconv.Itoa(e.seq) + "\n"
	type answer struct {
		out, errOut []byte
		err         error
	}
	got := make(chan answer, 1)
	t := e.kept // a cancelled request's stop clears e.kept while this reads
	go func() {
		var a answer
		if _, a.err = io.WriteString(t.In, req); a.err == nil {
			if a.out, a.err = readUntil(t.Out, ready); a.err == nil {
				a.errOut, a.err = readUntil(t.Err, done)
			}
		}
		got <- a
	}()
	select {
	case a := <-got:
		if a.err != nil {
			e.stop()
			return nil, nil, fmt.Errorf("exiftool: %w", a.err)
		}
		return a.out, a.errOut, nil
	case <-ctx.Done():
		e.stop() // the request cannot be taken back: the next one starts anew
		<-got
		return nil, nil, ctx.Err()
	}
}

// stop ends the tool; the next request starts it again.
func (e *stayOpen) stop() {
	if e.kept != nil {
		e.kept.Stop()
		e.kept = nil
	}
}

// maxAnswer bounds one answer (a photo's tags are a few KiB).
const maxAnswer = 4 << 20

// readUntil reads r up to a line that is marker, answering what came
// before it.
func readUntil(r *bufio.Reader, marker string) ([]byte, error) {
	var b bytes.Buffer
	for {
		line, err := r.ReadString('\n')
		if strings.TrimRight(line, "\r\n") == marker {
			return b.Bytes(), nil
		}
		b.WriteString(line)
		if err != nil {
			return nil, err
		}
		if b.Len() > maxAnswer {
			return nil, errors.New("answer too long")
		}
	}
}
