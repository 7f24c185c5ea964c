package rest_test

import (
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/loupetest"
)

const msgUnauthenticated = "The client is not authenticated to get the requested resource."

func TestBadCredentialsAnswer401(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	expired := a.User(t, "expired@a.test", nil, false)
	inactive := a.User(t, "inactive@a.test", nil, false)
	gone := a.User(t, "gone@a.test", nil, false)
	keyID := func(c *loupetest.Client) string { return strings.Split(c.Key, ".")[1] }
	api.DB.MustExec(`UPDATE api_keys SET expires_on = now() - interval '1 second' WHERE id = $1`, keyID(expired))
	api.DB.MustExec(`UPDATE api_keys SET is_active = false WHERE id = $1`, keyID(inactive))
	api.DB.MustExec(`UPDATE users SET deactivated = true WHERE id = $1`, gone.UserID)

	parts := strings.Split(a.Key, ".")
	wrongSecret := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
	unknownKey := parts[0] + "." + strings.Repeat("0", len(parts[1])) + "." + parts[2]

	cases := []struct {
		name   string
		client *loupetest.Client
	}{
		{"no credential", api.Anonymous()},
		{"malformed", api.WithKey("hello")},
		{"wrong prefix", api.WithKey("other." + parts[1] + "." + parts[2])},
		{"unknown key id", api.WithKey(unknownKey)},
		{"wrong secret", api.WithKey(wrongSecret)},
		{"expired", expired},
		{"inactive", inactive},
		{"deactivated user", gone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.client.Get(t, "/api/v1/items/"+id).Envelope(401, msgUnauthenticated)
			c.client.Delete(t, "/api/v1/items/"+id).Envelope(401, msgUnauthenticated)
			c.client.Post(t, "/api/v1/items", map[string]any{"title": "x", "itemType": "video"}).Envelope(401, msgUnauthenticated)
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE title = 'x'`); n != 0 {
		t.Fatalf("unauthenticated creates made %d items", n)
	}
	a.Get(t, "/api/v1/items/"+id).Status(200) // still there, untouched

	// Both headers work for a good key.
	r := a.Get(t, "/api/v1/items/"+id).Status(200)
	if r.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id on the response")
	}
}

func TestAPIKeyHeader(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	req := api.Anonymous()
	r := req.DoWithHeaders(t, "GET", "/api/v1/items/"+id, map[string]string{"X-API-Key": a.Key})
	r.Status(200)
}
