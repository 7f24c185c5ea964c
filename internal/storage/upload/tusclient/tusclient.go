// Package tusclient is a minimal tus 1.0 client (creation + core): what
// `loupe demo` uploads its samples with and the benchmark measures uploads
// with, without Node. The tests prove the protocol with tus-js-client.
package tusclient

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Client talks to one tus endpoint.
type Client struct {
	// Endpoint is the creation URL (Loupe: <base>/api/v1/uploads/).
	Endpoint string
	// APIKey goes in Authorization.
	APIKey string
	HTTP   *http.Client
}

func (t *Client) client() *http.Client {
	if t.HTTP != nil {
		return t.HTTP
	}
	return http.DefaultClient
}

func (t *Client) request(ctx context.Context, method, u string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Tus-Resumable", "1.0.0")
	req.Header.Set("Authorization", "Bearer "+t.APIKey)
	return req, nil
}

// Create announces an upload of size bytes with metadata and answers its
// URL.
func (t *Client) Create(ctx context.Context, size int64, metadata map[string]string) (string, error) {
	req, err := t.request(ctx, http.MethodPost, t.Endpoint, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Upload-Length", strconv.FormatInt(size, 10))
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, 0, len(keys))
	for _, k := range keys {
		pairs = append(pairs, k+" "+base64.StdEncoding.EncodeToString([]byte(metadata[k])))
	}
	req.Header.Set("Upload-Metadata", strings.Join(pairs, ","))
	resp, err := t.client().Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return "", fmt.Errorf("tus create: %s %s", resp.Status, b)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return "", fmt.Errorf("tus create: Location: %w", err)
	}
	base, _ := url.Parse(t.Endpoint)
	return base.ResolveReference(loc).String(), nil
}

// Offset is how many bytes of the upload the server holds.
func (t *Client) Offset(ctx context.Context, upload string) (int64, error) {
	req, err := t.request(ctx, http.MethodHead, upload, nil)
	if err != nil {
		return 0, err
	}
	resp, err := t.client().Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		return 0, fmt.Errorf("tus head: %s", resp.Status)
	}
	return strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
}

// Patch sends n bytes of body from offset in one request and answers the
// server's new offset.
func (t *Client) Patch(ctx context.Context, upload string, offset int64, body io.Reader, n int64) (int64, error) {
	req, err := t.request(ctx, http.MethodPatch, upload, body)
	if err != nil {
		return 0, err
	}
	req.ContentLength = n
	req.Header.Set("Content-Type", "application/offset+octet-stream")
	req.Header.Set("Upload-Offset", strconv.FormatInt(offset, 10))
	resp, err := t.client().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return 0, fmt.Errorf("tus patch: %s %s", resp.Status, b)
	}
	return strconv.ParseInt(resp.Header.Get("Upload-Offset"), 10, 64)
}
