package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
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

// Keys are cached in memory; a change made outside this server (here:
// straight in the database, as another server or an operator would) reaches
// the cache through the loupe_auth notification, so a revoked key, a
// deactivated user or a key deleted elsewhere stops working within the
// notification's delivery time.
func TestCachedKeyFollowsChangesMadeElsewhere(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	keyID := func(c *loupetest.Client) string { return strings.Split(c.Key, ".")[1] }
	changes := []struct {
		name string
		sql  string
		arg  func(c *loupetest.Client) string
	}{
		{"key revoked", `UPDATE api_keys SET is_active = false WHERE id = $1`, keyID},
		{"key expired", `UPDATE api_keys SET expires_on = now() - interval '1 second' WHERE id = $1`, keyID},
		{"key deleted", `DELETE FROM api_keys WHERE id = $1`, keyID},
		{"user deactivated", `UPDATE users SET deactivated = true WHERE id = $1`, func(c *loupetest.Client) string { return c.UserID }},
	}
	for i, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			u := a.User(t, fmt.Sprintf("u%d@a.test", i), nil, true)
			// Cached (once the listener is up, a moment after start): a
			// read costs the item statement only, no key lookup.
			deadline := time.Now().Add(5 * time.Second)
			for {
				before := api.Statements.Count()
				u.Get(t, "/api/v1/items/"+id).Status(200)
				if api.Statements.Count()-before == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the key is still looked up on every request")
				}
				time.Sleep(10 * time.Millisecond)
			}
			api.DB.MustExec(ch.sql, ch.arg(u))
			deadline = time.Now().Add(5 * time.Second)
			for u.Get(t, "/api/v1/items/"+id).Code != 401 {
				if time.Now().After(deadline) {
					t.Fatal("the key still works 5 s after the change")
				}
				time.Sleep(10 * time.Millisecond)
			}
			a.Get(t, "/api/v1/items/"+id).Status(200) // other keys unaffected
		})
	}
}

// Changes that concern no cached key leave the cache alone: a new user
// joining existing groups (the group upsert keeps its name) does not make
// every other key be looked up again.
func TestCacheKeepsKeysThroughUnrelatedChanges(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	a.User(t, "first@a.test", []string{"editors"}, false)  // makes the group
	a.User(t, "second@a.test", []string{"editors"}, false) // joins it
	// A notification would arrive within milliseconds; give it time.
	time.Sleep(300 * time.Millisecond)
	api.Statements.Reset()
	a.Get(t, "/api/v1/items/"+id).Status(200)
	if n := api.Statements.Count(); n != 1 {
		t.Fatalf("a read after unrelated user changes cost %d statements, want 1 (the key still cached)", n)
	}
}
