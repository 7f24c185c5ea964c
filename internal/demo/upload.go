package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
)

// Client calls one Loupe server with one API key, as an integration does:
// REST for items, tus for the originals.
type Client struct {
	// URL is the server's base, e.g. http://localhost:8080.
	URL    string
	APIKey string
	HTTP   *http.Client
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) base() string { return strings.TrimRight(c.URL, "/") }

// APIError is an answer other than success, with the server's own message
// (the spec's envelope {"error":{"statusCode","message"}}).
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	switch e.Status {
	case http.StatusUnauthorized:
		s += " (the API key was refused: use the key `make run` printed on its first start, or one from `loupe user create`)"
	case http.StatusForbidden:
		s += " (the key's user may not do this: a tenant admin's key can)"
	}
	return s
}

// unreachable says the server could not be reached at all, which on a
// fresh install usually means it is not running.
func (c *Client) unreachable(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("cannot reach Loupe at %s (is it running? `make run` starts it): %w", c.base(), err)
}

// Do sends a JSON request (no body when body is nil) and decodes a 2xx
// JSON answer into out (when not nil).
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base()+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.APIKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %w", method, path, apiError(resp.StatusCode, b))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected (is %s a Loupe server?): %w", method, path, c.base(), err)
	}
	return nil
}

// apiError reads the message of the spec's envelope or of a GraphQL
// error, or shows the start of a body that is neither (a proxy's page).
func apiError(status int, body []byte) *APIError {
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	msg := ""
	if json.Unmarshal(body, &env) == nil {
		msg = env.Error.Message
		if msg == "" && len(env.Errors) > 0 {
			msg = env.Errors[0].Message
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
	}
	return &APIError{Status: status, Message: msg}
}

// Check asks the server one cheap authenticated question, so that a wrong
// URL or key is reported before minutes are spent making samples.
func (c *Client) Check(ctx context.Context) error {
	var out struct {
		Data struct {
			Typename string `json:"__typename"`
		} `json:"data"`
	}
	if err := c.Do(ctx, http.MethodPost, "/graphql", map[string]string{"query": "{ __typename }"}, &out); err != nil {
		return err
	}
	if out.Data.Typename == "" {
		return fmt.Errorf("%s answers /graphql but not as Loupe does", c.base())
	}
	return nil
}

// CreateItem makes an item for f and answers its id.
func (c *Client) CreateItem(ctx context.Context, f File) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	body := map[string]any{"title": f.Title, "itemType": f.ItemType, "originalFileName": f.FileName}
	if err := c.Do(ctx, http.MethodPost, "/api/v1/items", body, &out); err != nil {
		return "", fmt.Errorf("create item %q: %w", f.Title, err)
	}
	if out.ID == "" {
		return "", fmt.Errorf("create item %q: the answer has no id", f.Title)
	}
	return out.ID, nil
}

// Upload sends f as itemID's original by tus, the path every client's
// uploads take; its completion queues the processing.
func (c *Client) Upload(ctx context.Context, itemID string, f File) error {
	r, err := os.Open(f.Path)
	if err != nil {
		return err
	}
	defer r.Close()
	tus := &tusclient.Client{Endpoint: c.base() + "/api/v1/uploads/", APIKey: c.APIKey, HTTP: c.http()}
	up, err := tus.Create(ctx, f.Size, map[string]string{"filename": f.FileName, "itemId": itemID})
	if err != nil {
		return fmt.Errorf("upload %s: %w", f.FileName, err)
	}
	// One PATCH: the server streams it in parts, and a demo on one machine
	// has no dropped connection to resume from.
	off, err := tus.Patch(ctx, up, 0, r, f.Size)
	if err != nil {
		return fmt.Errorf("upload %s: %w", f.FileName, err)
	}
	if off != f.Size {
		return fmt.Errorf("upload %s: the server holds %d of %d bytes", f.FileName, off, f.Size)
	}
	return nil
}

// Uploaded is an item the demo made.
type Uploaded struct {
	ID   string
	File File
}

// UploadAll creates an item for each file and uploads it, writing
// "<id>  <title>" for each to out as it goes.
func (c *Client) UploadAll(ctx context.Context, files []File, out io.Writer) ([]Uploaded, error) {
	var done []Uploaded
	for _, f := range files {
		id, err := c.CreateItem(ctx, f)
		if err != nil {
			return done, err
		}
		if err := c.Upload(ctx, id, f); err != nil {
			return done, err
		}
		fmt.Fprintf(out, "%s  %s  (%s, %s)\n", id, f.Title, f.FileName, size(f.Size))
		done = append(done, Uploaded{ID: id, File: f})
	}
	return done, nil
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
