package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// API keys through /auth/api/v1/keys (spec 2.19, 4.7, section 5;
// docs/security.md): a key's whole life, expiry, revocation when unused,
// who sees and deletes which key, and what a create refuses.

const keysPath = "/auth/api/v1/keys"

// apiKeyRecordKeys are the keys of a key record (2.19); the create answer
// has apiKeyHeaderValue besides.
var apiKeyRecordKeys = []string{"keyId", "isActive", "expiryDate", "modifiedOnIsoDateString", "label",
	"lastUsedOnIsoDate", "maxUnusedDays"}

// apiKey is a key record as answered.
type apiKey struct {
	KeyID             string  `json:"keyId"`
	IsActive          bool    `json:"isActive"`
	ExpiryDate        string  `json:"expiryDate"`
	Modified          string  `json:"modifiedOnIsoDateString"`
	Label             string  `json:"label"`
	LastUsedOnIsoDate *string `json:"lastUsedOnIsoDate"`
	MaxUnusedDays     *int    `json:"maxUnusedDays"`
	APIKeyHeaderValue *string `json:"apiKeyHeaderValue"`
}

// keyIDOf is the key id of a client's credential, <prefix>.<keyId>.<secret>.
func keyIDOf(c *loupetest.Client) string { return strings.Split(c.Key, ".")[1] }

// createKey creates a key of c's user and returns the record and a client
// presenting the new credential.
func createKey(t *testing.T, api *loupetest.API, c *loupetest.Client, body map[string]any) (apiKey, *loupetest.Client) {
	t.Helper()
	r := c.Post(t, keysPath, body).Status(http.StatusOK)
	sameKeys(t, "create answer", r.Object(), append(slices.Clone(apiKeyRecordKeys), "apiKeyHeaderValue"))
	var k apiKey
	r.JSON(&k)
	if k.APIKeyHeaderValue == nil {
		t.Fatal("no apiKeyHeaderValue in the create answer")
	}
	parts := strings.Split(*k.APIKeyHeaderValue, ".")
	if len(parts) != 3 || parts[0] != "loupe" || parts[1] != k.KeyID || len(parts[2]) < 20 {
		t.Fatalf("apiKeyHeaderValue %q is not loupe.<keyId %s>.<secret>", *k.APIKeyHeaderValue, k.KeyID)
	}
	return k, api.WithKey(*k.APIKeyHeaderValue)
}

// listKeys reads c's key listing, checking every record's keys.
func listKeys(t *testing.T, c *loupetest.Client) map[string]apiKey {
	t.Helper()
	var raw []map[string]any
	r := c.Get(t, keysPath).Status(http.StatusOK)
	r.JSON(&raw)
	for _, m := range raw {
		sameKeys(t, "listed key", m, apiKeyRecordKeys)
	}
	var list []apiKey
	r.JSON(&list)
	out := map[string]apiKey{}
	for _, k := range list {
		out[k.KeyID] = k
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedStrings(s ...string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// lastUsedOn reads a key's last_used_on behind the API (zero when NULL).
func lastUsedOn(t *testing.T, api *loupetest.API, keyID string) time.Time {
	t.Helper()
	var last *time.Time
	if err := api.DB.Get(&last, `SELECT last_used_on FROM api_keys WHERE id = $1`, keyID); err != nil {
		t.Fatal(err)
	}
	if last == nil {
		return time.Time{}
	}
	return *last
}

func parseTime(t *testing.T, what, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s %q is not RFC 3339: %v", what, s, err)
	}
	return v
}

// A key's whole life: created, used, listed with its last use, used again
// within the minute without a write, deleted, and refused on the very next
// request.
func TestAPIKeyLife(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	u := a.User(t, "u@a.test", nil, false)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	before := time.Now().UTC()
	k, kc := createKey(t, api, u, map[string]any{"label": "  ci runner  "})
	if k.Label != "ci runner" || !k.IsActive || k.ExpiryDate != "indefinite" || k.LastUsedOnIsoDate != nil || k.MaxUnusedDays != nil {
		t.Fatalf("new key: %+v", k)
	}
	if m := parseTime(t, "modifiedOnIsoDateString", k.Modified); m.Before(before.Add(-time.Second)) || m.After(time.Now().Add(time.Second)) {
		t.Fatalf("modifiedOnIsoDateString %s is not the creation time", k.Modified)
	}
	var owner string
	if err := api.DB.Get(&owner, `SELECT user_id::text FROM api_keys WHERE id = $1 AND tenant_id = $2`, k.KeyID, a.TenantID); err != nil {
		t.Fatalf("the key is not stored: %v", err)
	}
	if owner != u.UserID {
		t.Fatalf("the key belongs to %s, want its creator %s", owner, u.UserID)
	}

	// Used: the new key authenticates as its user.
	kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
	var viewer struct {
		Viewer struct {
			ID string `json:"id"`
		} `json:"viewer"`
	}
	kc.GraphQL(t, `{ viewer { id } }`, nil).OK(&viewer)
	if viewer.Viewer.ID != u.UserID {
		t.Fatalf("the key is %s's, want %s", viewer.Viewer.ID, u.UserID)
	}

	// Listed with its last use, without the credential.
	first := lastUsedOn(t, api, k.KeyID)
	if first.IsZero() {
		t.Fatal("last_used_on not written on the first use")
	}
	listed, ok := listKeys(t, u)[k.KeyID]
	if !ok {
		t.Fatal("the new key is not listed")
	}
	if listed.LastUsedOnIsoDate == nil {
		t.Fatal("lastUsedOnIsoDate is null after a use")
	}
	if got := parseTime(t, "lastUsedOnIsoDate", *listed.LastUsedOnIsoDate); !got.Equal(first.Truncate(time.Millisecond)) {
		t.Fatalf("lastUsedOnIsoDate %s, stored %s", got, first)
	}
	if listed.Label != "ci runner" || !listed.IsActive || listed.ExpiryDate != "indefinite" {
		t.Fatalf("listed key: %+v", listed)
	}

	// Used again within the minute: last_used_on does not move.
	time.Sleep(20 * time.Millisecond)
	kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
	kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
	if again := lastUsedOn(t, api, k.KeyID); !again.Equal(first) {
		t.Fatalf("last_used_on moved from %s to %s within the minute", first, again)
	}

	// Deleted: the answer is the record; the very next request fails.
	var deleted map[string]any
	u.Delete(t, keysPath+"/"+k.KeyID).Status(http.StatusOK).JSON(&deleted)
	if deleted["keyId"] != k.KeyID {
		t.Fatalf("delete answered %v", deleted)
	}
	if _, ok := deleted["apiKeyHeaderValue"]; ok && deleted["apiKeyHeaderValue"] != nil {
		t.Fatalf("delete answers the credential: %v", deleted)
	}
	kc.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	kc.GraphQL(t, `{ viewer { id } }`, nil).ErrorCode("UNAUTHENTICATED")
	if n := api.Count(t, `SELECT count(*) FROM api_keys WHERE id = $1`, k.KeyID); n != 0 {
		t.Fatal("the deleted key is still stored")
	}
	if _, ok := listKeys(t, u)[k.KeyID]; ok {
		t.Fatal("the deleted key is still listed")
	}
	u.Delete(t, keysPath+"/"+k.KeyID).Envelope(http.StatusNotFound, "")
	// The user's other key is unaffected.
	u.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
}

// A key with an expiry works until then, and not after, though cached.
func TestAPIKeyExpiry(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	// Given with an offset; answered in UTC.
	expiry := time.Now().Add(2 * time.Second).Truncate(time.Millisecond)
	k, kc := createKey(t, api, a, map[string]any{"label": "short", "expiryDate": expiry.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano)})
	if got := parseTime(t, "expiryDate", k.ExpiryDate); !got.Equal(expiry) || !strings.HasSuffix(k.ExpiryDate, "Z") {
		t.Fatalf("expiryDate %s, want %s in UTC", k.ExpiryDate, expiry.UTC().Format(time.RFC3339Nano))
	}
	// Works, and is cached: a request costs the item's statement only.
	cached := false
	for time.Until(expiry) > 300*time.Millisecond {
		before := api.Statements.Count()
		kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
		if api.Statements.Count()-before == 1 {
			cached = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !cached {
		t.Fatal("the key was not cached before its expiry")
	}
	if got, ok := listKeys(t, a)[k.KeyID]; !ok || got.ExpiryDate != k.ExpiryDate {
		t.Fatalf("listed expiryDate %+v, want %s", got, k.ExpiryDate)
	}
	time.Sleep(time.Until(expiry) + 50*time.Millisecond)
	kc.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	kc.GraphQL(t, `{ viewer { id } }`, nil).ErrorCode("UNAUTHENTICATED")
	a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK) // the admin's own key is unaffected
}

// A key with maxUnusedDays unused that long is revoked at its next use; one
// used recently keeps working.
func TestAPIKeyMaxUnusedDays(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	t.Run("never used, created too long ago", func(t *testing.T) {
		k, kc := createKey(t, api, a, map[string]any{"label": "idle", "maxUnusedDays": 1})
		if k.MaxUnusedDays == nil || *k.MaxUnusedDays != 1 {
			t.Fatalf("maxUnusedDays %v, want 1", k.MaxUnusedDays)
		}
		api.DB.MustExec(`UPDATE api_keys SET created_on = created_on - interval '2 days' WHERE id = $1`, k.KeyID)
		kc.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
		var active bool
		if err := api.DB.Get(&active, `SELECT is_active FROM api_keys WHERE id = $1`, k.KeyID); err != nil {
			t.Fatal(err)
		}
		if active {
			t.Fatal("the key is still active in the database")
		}
		listed := listKeys(t, a)[k.KeyID]
		if listed.IsActive || listed.KeyID == "" {
			t.Fatalf("listed after revocation: %+v", listed)
		}
		if listed.LastUsedOnIsoDate != nil {
			t.Fatalf("a refused use is recorded as a use: %v", *listed.LastUsedOnIsoDate)
		}
		// Revoked for good.
		kc.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	})

	t.Run("last used too long ago", func(t *testing.T) {
		k, kc := createKey(t, api, a, map[string]any{"label": "stale", "maxUnusedDays": 3})
		api.DB.MustExec(`UPDATE api_keys SET created_on = now() - interval '30 days',
			last_used_on = now() - interval '3 days 1 minute' WHERE id = $1`, k.KeyID)
		kc.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
		if listKeys(t, a)[k.KeyID].IsActive {
			t.Fatal("listed as active after revocation")
		}
	})

	t.Run("used recently", func(t *testing.T) {
		k, kc := createKey(t, api, a, map[string]any{"label": "busy", "maxUnusedDays": 1})
		api.DB.MustExec(`UPDATE api_keys SET created_on = now() - interval '2 days',
			last_used_on = now() - interval '23 hours' WHERE id = $1`, k.KeyID)
		kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
		kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
		got := listKeys(t, a)[k.KeyID]
		if !got.IsActive || got.LastUsedOnIsoDate == nil {
			t.Fatalf("recently used key: %+v", got)
		}
		if last := parseTime(t, "lastUsedOnIsoDate", *got.LastUsedOnIsoDate); time.Since(last) > time.Minute {
			t.Fatalf("lastUsedOnIsoDate %s: the use was not recorded", last)
		}
	})

	t.Run("used by this server, then created long ago", func(t *testing.T) {
		// Cached and used: its use counts even when the stored dates say
		// otherwise (the write of last use is at most once a minute).
		k, kc := createKey(t, api, a, map[string]any{"label": "cached", "maxUnusedDays": 1})
		kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
		api.DB.MustExec(`UPDATE api_keys SET created_on = now() - interval '2 days' WHERE id = $1`, k.KeyID)
		kc.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
		if !listKeys(t, a)[k.KeyID].IsActive {
			t.Fatal("a key in use was revoked")
		}
	})
}

// A user sees and deletes their own keys; an admin the whole tenant's;
// anyone else's key, or another tenant's, is not found.
func TestAPIKeyVisibility(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)
	v := a.User(t, "v@a.test", nil, false)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	ku, kuc := createKey(t, api, u, map[string]any{"label": "u's"})
	ka, kac := createKey(t, api, a, map[string]any{"label": "admin's"})
	kb, _ := createKey(t, api, b, map[string]any{"label": "b's"})

	tenantKeys := func(c *loupetest.Client) []string {
		t.Helper()
		var ids []string
		if err := api.DB.Select(&ids, `SELECT id FROM api_keys WHERE tenant_id = $1 ORDER BY id`, c.TenantID); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	cases := []struct {
		name   string
		client *loupetest.Client
		want   []string
	}{
		{"user", u, sortedStrings(keyIDOf(u), ku.KeyID)},
		{"other user", v, []string{keyIDOf(v)}},
		{"admin", a, tenantKeys(a)},
		{"other tenant's admin", b, tenantKeys(b)},
	}
	for _, c := range cases {
		t.Run("list/"+c.name, func(t *testing.T) {
			got := sortedKeys(listKeys(t, c.client))
			if !slices.Equal(got, c.want) {
				t.Fatalf("listed %v, want %v", got, c.want)
			}
		})
	}
	if all := tenantKeys(a); len(all) != 5 || !slices.Contains(all, ka.KeyID) || slices.Contains(all, kb.KeyID) {
		t.Fatalf("tenant a's keys %v: want the admin's two, u's two and v's one", all)
	}

	// Deletes of keys the caller may not delete answer like a missing key,
	// and delete nothing.
	refused := []struct {
		name   string
		client *loupetest.Client
		keyID  string
	}{
		{"user deletes the admin's key", u, ka.KeyID},
		{"user deletes another user's key", u, keyIDOf(v)},
		{"other tenant's admin deletes a user's key", b, ku.KeyID},
		{"other tenant's admin deletes the admin's key", b, keyIDOf(a)},
		{"admin deletes another tenant's key", a, kb.KeyID},
		{"unknown key", a, strings.Repeat("0", len(ku.KeyID))},
		{"empty-looking key", a, "%20"},
		{"NUL key id", u, "%00"},
	}
	for _, c := range refused {
		t.Run("delete/"+c.name, func(t *testing.T) {
			c.client.Delete(t, keysPath+"/"+c.keyID).Envelope(http.StatusNotFound, "")
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM api_keys WHERE id = ANY($1)`,
		"{"+strings.Join([]string{ka.KeyID, keyIDOf(v), ku.KeyID, keyIDOf(a), kb.KeyID}, ",")+"}"); n != 5 {
		t.Fatalf("refused deletes removed %d keys", 5-n)
	}
	kac.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)

	// An admin deletes a user's key; the user's other key works on.
	a.Delete(t, keysPath+"/"+ku.KeyID).Status(http.StatusOK)
	kuc.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	u.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
	// A user deletes their own.
	u.Delete(t, keysPath+"/"+keyIDOf(u)).Status(http.StatusOK)
	u.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	v.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
}

// A create with a bad body answers 400 and creates nothing.
func TestAPIKeyCreateValidation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	u := a.User(t, "u@a.test", nil, false)

	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	cases := []struct {
		name string
		body any
	}{
		{"label missing", map[string]any{}},
		{"label null", map[string]any{"label": nil}},
		{"label empty", map[string]any{"label": ""}},
		{"label blank", map[string]any{"label": " \t "}},
		{"label too long", map[string]any{"label": strings.Repeat("x", 201)}},
		{"label too long in characters", map[string]any{"label": strings.Repeat("é", 201)}},
		{"label with a NUL", map[string]any{"label": "a\x00b"}},
		{"expiry in the past", map[string]any{"label": "x", "expiryDate": past}},
		{"expiry far in the past", map[string]any{"label": "x", "expiryDate": "2020-01-01T00:00:00Z"}},
		{"expiry unparsable", map[string]any{"label": "x", "expiryDate": "tomorrow"}},
		{"expiry a date only", map[string]any{"label": "x", "expiryDate": "2999-01-01"}},
		{"expiry a number", map[string]any{"label": "x", "expiryDate": 4102444800000}},
		{"expiry empty", map[string]any{"label": "x", "expiryDate": ""}},
		{"maxUnusedDays zero", map[string]any{"label": "x", "maxUnusedDays": 0}},
		{"maxUnusedDays negative", map[string]any{"label": "x", "maxUnusedDays": -1}},
		{"maxUnusedDays above the cap", map[string]any{"label": "x", "maxUnusedDays": 3651}},
		{"maxUnusedDays fractional", map[string]any{"label": "x", "maxUnusedDays": 1.5}},
		{"maxUnusedDays a numeric string", map[string]any{"label": "x", "maxUnusedDays": "5"}},
		{"maxUnusedDays a boolean", map[string]any{"label": "x", "maxUnusedDays": true}},
		{"unknown field", map[string]any{"label": "x", "apiKeyHeaderValue": "loupe.mine.secret"}},
		{"unknown field keyId", map[string]any{"label": "x", "keyId": "chosen"}},
		{"not an object", []any{map[string]any{"label": "x"}}},
		{"not JSON", "label=x"},
	}
	before := api.Count(t, `SELECT count(*) FROM api_keys`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u.Post(t, keysPath, c.body).Envelope(http.StatusBadRequest, "")
		})
	}
	// Types are taken as written, and the answer names the field.
	u.Post(t, keysPath, map[string]any{"label": "x", "maxUnusedDays": "5"}).
		Envelope(http.StatusBadRequest, "maxUnusedDays: must be an integer")
	if after := api.Count(t, `SELECT count(*) FROM api_keys`); after != before {
		t.Fatalf("refused creates made %d keys", after-before)
	}

	// The limits themselves are accepted.
	valid := []struct {
		name  string
		body  map[string]any
		check func(k apiKey) bool
	}{
		{"label of 200", map[string]any{"label": strings.Repeat("x", 200)},
			func(k apiKey) bool { return k.Label == strings.Repeat("x", 200) }},
		// The limit counts characters, not bytes.
		{"label of 200 two-byte characters", map[string]any{"label": strings.Repeat("é", 200)},
			func(k apiKey) bool { return k.Label == strings.Repeat("é", 200) }},
		{"maxUnusedDays 1", map[string]any{"label": "x", "maxUnusedDays": 1},
			func(k apiKey) bool { return k.MaxUnusedDays != nil && *k.MaxUnusedDays == 1 }},
		{"maxUnusedDays 3650", map[string]any{"label": "x", "maxUnusedDays": 3650},
			func(k apiKey) bool { return k.MaxUnusedDays != nil && *k.MaxUnusedDays == 3650 }},
		{"maxUnusedDays null", map[string]any{"label": "x", "maxUnusedDays": nil},
			func(k apiKey) bool { return k.MaxUnusedDays == nil }},
		{"indefinite", map[string]any{"label": "x", "expiryDate": "indefinite"},
			func(k apiKey) bool { return k.ExpiryDate == "indefinite" }},
		{"expiry null", map[string]any{"label": "x", "expiryDate": nil},
			func(k apiKey) bool { return k.ExpiryDate == "indefinite" }},
		{"expiry in a year", map[string]any{"label": "x", "expiryDate": "2999-06-01T12:00:00Z"},
			func(k apiKey) bool { return k.ExpiryDate == "2999-06-01T12:00:00.000Z" }},
	}
	for _, c := range valid {
		t.Run("valid/"+c.name, func(t *testing.T) {
			k, kc := createKey(t, api, u, c.body)
			if !c.check(k) {
				t.Fatalf("created %+v", k)
			}
			kc.GraphQL(t, `{ viewer { id } }`, nil).OK(nil)
		})
	}
}

// A user has at most 100 keys.
func TestAPIKeyLimitPerUser(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	u := a.User(t, "u@a.test", nil, false)
	// u has one key already; 98 more make 99.
	api.DB.MustExec(`INSERT INTO api_keys (tenant_id, id, user_id, label, secret_hash)
		SELECT $1, 'filler' || n, $2, 'filler', '\x00'::bytea FROM generate_series(1, 98) n`, a.TenantID, u.UserID)
	createKey(t, api, u, map[string]any{"label": "the hundredth"})
	u.Post(t, keysPath, map[string]any{"label": "one too many"}).Envelope(http.StatusBadRequest, "")
	if n := api.Count(t, `SELECT count(*) FROM api_keys WHERE user_id = $1`, u.UserID); n != 100 {
		t.Fatalf("u has %d keys, want 100", n)
	}
	// The cap is per user: the admin still creates keys.
	createKey(t, api, a, map[string]any{"label": fmt.Sprintf("admin %d", 2)})
}
