package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client is one worker's HTTP/1.1 connection, written and read by hand.
//
// The load generator shares the machine's cores with the server and its
// database, so every microsecond it spends per request is taken from what
// it measures. net/http's client spent ~50 µs of CPU per request here (a
// read and a write goroutine per connection, header maps, channels) —
// a sixth of a get-item's whole cost on two cores. Like wrk, this client
// keeps one connection per worker, writes each request in one write and
// parses just what framing needs: the status, Content-Length or chunked
// transfer, and Connection: close.
type client struct {
	mu     sync.Mutex // guards conn against close from another goroutine
	conn   net.Conn
	closed bool // stop was called: dial no more
	host   string
	r      *bufio.Reader
	req    []byte
	// deadline bounds every connection: requests in flight at the end of
	// the run are cut off by it.
	deadline time.Time
}

var errStopped = errors.New("loadgen: stopped")

// stop closes the connection and refuses new ones (the run was cancelled).
// It may be called from any goroutine.
func (c *client) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn != nil {
		c.conn.Close() //nolint:errcheck // unblocks a pending read
	}
}

func (c *client) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close() //nolint:errcheck // broken or closed by the server
		c.conn = nil
	}
}

// connect makes sure there is a connection to host.
func (c *client) connect(host string) error {
	if c.conn != nil && c.host == host {
		return nil
	}
	c.drop()
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		return err
	}
	conn.SetDeadline(c.deadline) //nolint:errcheck // a fresh TCP conn
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close() //nolint:errcheck
		return errStopped
	}
	c.conn, c.host = conn, host
	if c.r == nil {
		c.r = bufio.NewReaderSize(conn, 32<<10)
	} else {
		c.r.Reset(conn)
	}
	return nil
}

// splitURL cuts an http URL into host:port and request target.
func splitURL(u string) (host, target string, err error) {
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		return "", "", fmt.Errorf("loadgen: only http:// URLs: %q", u)
	}
	host, target = rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, target = rest[:i], rest[i:]
	}
	if !strings.Contains(host, ":") {
		host += ":80"
	}
	return host, target, nil
}

// do sends r and reads the answer, its body into body when body is not
// nil. It answers the status (0 when there was none).
func (c *client) do(r Request, body *bytes.Buffer) (int, error) {
	host, target, err := splitURL(r.URL)
	if err != nil {
		return 0, err
	}
	if err := c.connect(host); err != nil {
		return 0, err
	}
	b := append(c.req[:0], r.Method...)
	b = append(b, ' ')
	b = append(b, target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	for k, vs := range r.Header {
		for _, v := range vs {
			b = append(append(append(append(b, k...), ": "...), v...), "\r\n"...)
		}
	}
	if r.Body != nil {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(r.Body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, r.Body...)
	c.req = b
	if _, err := c.conn.Write(b); err != nil {
		c.drop()
		return 0, err
	}
	status, keep, err := c.readResponse(body)
	if err != nil || !keep {
		c.drop()
	}
	return status, err
}

// readResponse reads one response: the status, whether the connection
// stays open, and the body (into body, or discarded).
func (c *client) readResponse(body *bytes.Buffer) (status int, keep bool, err error) {
	line, err := c.line()
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("loadgen: bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, fmt.Errorf("loadgen: bad status line %q", line)
	}
	length, chunked, keep := int64(-1), false, line[7] == '1'
	for {
		line, err := c.line()
		if err != nil {
			return status, false, err
		}
		if len(line) == 0 {
			break
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "content-length"):
			if length, err = strconv.ParseInt(string(value), 10, 64); err != nil || length < 0 {
				return status, false, fmt.Errorf("loadgen: bad Content-Length %q", value)
			}
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "connection"):
			keep = !asciiEqualFold(value, "close")
		}
	}
	var dst io.Writer = io.Discard
	if body != nil {
		body.Reset()
		dst = body
	}
	switch {
	case status == 204 || status == 304 || status/100 == 1:
		return status, keep, nil
	case chunked:
		return status, keep, c.chunks(dst)
	case length >= 0:
		_, err := io.CopyN(dst, c.r, length)
		return status, keep, err
	default: // the body runs to the end of the connection
		_, err := io.Copy(dst, c.r)
		return status, false, err
	}
}

// chunks reads a chunked body and its (empty) trailer.
func (c *client) chunks(dst io.Writer) error {
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("loadgen: bad chunk size %q", line)
		}
		if n == 0 {
			for { // trailer lines up to the blank one
				line, err := c.line()
				if err != nil || len(line) == 0 {
					return err
				}
			}
		}
		if _, err := io.CopyN(dst, c.r, n); err != nil {
			return err
		}
		if line, err := c.line(); err != nil || len(line) != 0 {
			return fmt.Errorf("loadgen: chunk not followed by CRLF: %v", err)
		}
	}
}

// line reads one CRLF-terminated line without its ending. It is valid
// until the next read.
func (c *client) line() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errors.New("loadgen: header line too long")
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
