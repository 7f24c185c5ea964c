package rest_test

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/server"
)

// lockedBuffer is a log sink the server's goroutines can share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// An operator's LOUPE_API_KEY_HEADERS lets integrations written for
// another service send their key in that service's header, with or without
// "Bearer ", on REST and /graphql; a server without the setting refuses it.
// Neither the header nor the key reaches the log, whatever the answer.
func TestAPIKeyHeadersOfTheOperator(t *testing.T) {
	var logged lockedBuffer
	api := loupetest.New(t, func(c *server.Config) {
		c.APIKeyHeaders = []string{"X-Vendor-Key", "X-Other-Key"}
		c.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	anon := api.Anonymous()
	parts := strings.Split(a.Key, ".")
	wrong := parts[0] + "." + parts[1] + "." + strings.Repeat("B", len(parts[2]))

	for _, h := range []map[string]string{
		{"X-Vendor-Key": a.Key},
		{"x-vendor-key": "Bearer " + a.Key},
		{"X-Other-Key": a.Key},
	} {
		r := anon.DoWithHeaders(t, "GET", "/api/v1/items/"+id, h).Status(200)
		if got := r.Object()["id"]; got != id {
			t.Fatalf("with %v: item %v", h, got)
		}
	}
	query := "/graphql?query=" + url.QueryEscape(`{ item(id: "`+id+`") { title } }`)
	anon.Get(t, query).Status(401)
	r := anon.DoWithHeaders(t, "GET", query, map[string]string{"X-Vendor-Key": "Bearer " + a.Key})
	if r.Code != 200 || !strings.Contains(string(r.Body), `{"data":{"item":{"title":"Clip"}}}`) {
		t.Fatalf("/graphql with the key header: %d %s", r.Code, r.Body)
	}

	// A wrong key in the header is refused like any other.
	anon.DoWithHeaders(t, "GET", "/api/v1/items/"+id, map[string]string{"X-Vendor-Key": wrong}).
		Envelope(401, msgUnauthenticated)
	// Without the setting, the header is nobody's credential.
	plain := api.Another(t)
	api.Anonymous().On(plain).DoWithHeaders(t, "GET", "/api/v1/items/"+id, map[string]string{"X-Vendor-Key": a.Key}).
		Envelope(401, msgUnauthenticated)

	log := logged.String()
	if !strings.Contains(log, "/api/v1/items/"+id) {
		t.Fatalf("the request log is not where the test looks: %q", log)
	}
	for _, secret := range []string{parts[2], wrong, "X-Vendor-Key", "x-vendor-key", "X-Other-Key"} {
		if strings.Contains(log, secret) {
			t.Fatalf("the log holds %q:\n%s", secret, log)
		}
	}
}
