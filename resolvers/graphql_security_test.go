package resolvers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/store"
)

// API keys, security settings and the system scope through /graphql
// (spec 2.19, 2.27, 4.7; docs/security.md).

const apiKeyFields = `keyId isActive expiryDate modifiedOnIsoDateString label lastUsedOnIsoDate maxUnusedDays apiKeyHeaderValue`

type gqlKey struct {
	KeyID             string  `json:"keyId"`
	IsActive          bool    `json:"isActive"`
	ExpiryDate        string  `json:"expiryDate"`
	Modified          string  `json:"modifiedOnIsoDateString"`
	Label             string  `json:"label"`
	LastUsedOnIsoDate *string `json:"lastUsedOnIsoDate"`
	MaxUnusedDays     *int    `json:"maxUnusedDays"`
	APIKeyHeaderValue *string `json:"apiKeyHeaderValue"`
}

func gqlKeys(t *testing.T, c *loupetest.Client) map[string]gqlKey {
	t.Helper()
	var out struct {
		APIKeys []gqlKey `json:"apiKeys"`
	}
	c.GraphQL(t, `{ apiKeys { `+apiKeyFields+` } }`, nil).OK(&out)
	m := map[string]gqlKey{}
	for _, k := range out.APIKeys {
		if k.APIKeyHeaderValue != nil {
			t.Fatalf("apiKeys answers the credential of %s", k.KeyID)
		}
		m[k.KeyID] = k
	}
	return m
}

func TestGraphQLAPIKeys(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)
	const create = `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { ` + apiKeyFields + ` } }`
	const del = `mutation($id: ID!) { deleteApiKey(keyId: $id) { ` + apiKeyFields + ` } }`

	var created struct {
		CreateAPIKey gqlKey `json:"createApiKey"`
	}
	u.GraphQL(t, create, map[string]any{"in": map[string]any{"label": "deploy", "maxUnusedDays": 30}}).OK(&created)
	k := created.CreateAPIKey
	if k.Label != "deploy" || !k.IsActive || k.ExpiryDate != "indefinite" || k.LastUsedOnIsoDate != nil ||
		k.MaxUnusedDays == nil || *k.MaxUnusedDays != 30 || k.APIKeyHeaderValue == nil ||
		!strings.HasPrefix(*k.APIKeyHeaderValue, "loupe."+k.KeyID+".") {
		t.Fatalf("created %+v", k)
	}
	kc := api.WithKey(*k.APIKeyHeaderValue)
	var viewer struct {
		Viewer struct {
			ID string `json:"id"`
		} `json:"viewer"`
	}
	kc.GraphQL(t, `{ viewer { id } }`, nil).OK(&viewer)
	if viewer.Viewer.ID != u.UserID {
		t.Fatalf("the new key is user %s's, want %s", viewer.Viewer.ID, u.UserID)
	}
	listed, ok := gqlKeys(t, u)[k.KeyID]
	if !ok || listed.LastUsedOnIsoDate == nil || listed.Label != "deploy" {
		t.Fatalf("listed %+v (found %v)", listed, ok)
	}
	if len(gqlKeys(t, u)) != 2 {
		t.Fatalf("u lists %d keys, want its own 2", len(gqlKeys(t, u)))
	}
	if _, ok := gqlKeys(t, a)[k.KeyID]; !ok {
		t.Fatal("the admin does not list the user's key")
	}
	if _, ok := gqlKeys(t, b)[k.KeyID]; ok {
		t.Fatal("another tenant lists the key")
	}

	// Refused input: nothing is created.
	before := api.Count(t, `SELECT count(*) FROM api_keys`)
	for _, in := range []map[string]any{
		{"label": ""},
		{"label": "   "},
		{"label": strings.Repeat("x", 201)},
		{"label": "x", "expiryDate": "soon"},
		{"label": "x", "expiryDate": "2001-01-01T00:00:00Z"},
		{"label": "x", "maxUnusedDays": 0},
		{"label": "x", "maxUnusedDays": 3651},
	} {
		msg := wantError(t, u.GraphQL(t, create, map[string]any{"in": in}), "BAD_USER_INPUT", 400)
		if msg == "" {
			t.Fatalf("%v: no message", in)
		}
	}
	if after := api.Count(t, `SELECT count(*) FROM api_keys`); after != before {
		t.Fatalf("refused creates made %d keys", after-before)
	}

	// Deletes: not someone else's, not another tenant's.
	wantError(t, u.GraphQL(t, del, map[string]any{"id": keyIDOf(a)}), "NOT_FOUND", 404)
	wantError(t, b.GraphQL(t, del, map[string]any{"id": k.KeyID}), "NOT_FOUND", 404)
	wantError(t, a.GraphQL(t, del, map[string]any{"id": "nope"}), "NOT_FOUND", 404)
	kc.GraphQL(t, `{ viewer { id } }`, nil).OK(nil)

	var deleted struct {
		DeleteAPIKey gqlKey `json:"deleteApiKey"`
	}
	u.GraphQL(t, del, map[string]any{"id": k.KeyID}).OK(&deleted)
	if deleted.DeleteAPIKey.KeyID != k.KeyID || deleted.DeleteAPIKey.APIKeyHeaderValue != nil {
		t.Fatalf("deleted %+v", deleted.DeleteAPIKey)
	}
	// Refused on the very next request, and gone.
	wantError(t, kc.GraphQL(t, `{ viewer { id } }`, nil), "UNAUTHENTICATED", 401)
	wantError(t, u.GraphQL(t, del, map[string]any{"id": k.KeyID}), "NOT_FOUND", 404)
	if _, ok := gqlKeys(t, u)[k.KeyID]; ok {
		t.Fatal("the deleted key is listed")
	}

	// An admin deletes a user's key.
	u.GraphQL(t, create, map[string]any{"in": map[string]any{"label": "second"}}).OK(&created)
	a.GraphQL(t, del, map[string]any{"id": created.CreateAPIKey.KeyID}).OK(nil)
	wantError(t, api.WithKey(*created.CreateAPIKey.APIKeyHeaderValue).GraphQL(t, `{ viewer { id } }`, nil), "UNAUTHENTICATED", 401)
}

func keyIDOf(c *loupetest.Client) string { return strings.Split(c.Key, ".")[1] }

func TestGraphQLSecuritySettings(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	u := a.User(t, "u@a.test", nil, false)
	const read = `{ securitySettings { jwksUrl autoAddUsersToOrganizationGroup } }`
	const update = `mutation($in: SecuritySettingsInput!) {
		updateSecuritySettings(input: $in) { jwksUrl autoAddUsersToOrganizationGroup } }`
	type settings struct {
		JwksURL *string `json:"jwksUrl"`
		AutoAdd bool    `json:"autoAddUsersToOrganizationGroup"`
	}
	get := func() settings {
		t.Helper()
		var out struct {
			SecuritySettings settings `json:"securitySettings"`
		}
		a.GraphQL(t, read, nil).OK(&out)
		return out.SecuritySettings
	}
	set := func(query string, vars map[string]any) settings {
		t.Helper()
		var out struct {
			UpdateSecuritySettings settings `json:"updateSecuritySettings"`
		}
		a.GraphQL(t, query, vars).OK(&out)
		if got := get(); !sameSettingsJSON(got, out.UpdateSecuritySettings) {
			t.Fatalf("mutation answered %+v, then read %+v", out.UpdateSecuritySettings, got)
		}
		return out.UpdateSecuritySettings
	}
	want := func(what string, got settings, url string, autoAdd bool) {
		t.Helper()
		gotURL := ""
		if got.JwksURL != nil {
			gotURL = *got.JwksURL
		}
		if gotURL != url || got.AutoAdd != autoAdd || (url == "" && got.JwksURL != nil) {
			t.Fatalf("%s: %+v, want jwksUrl %q autoAdd %v", what, got, url, autoAdd)
		}
	}
	want("defaults", get(), "", false)

	// Admins only.
	wantError(t, u.GraphQL(t, read, nil), "FORBIDDEN", 403)
	wantError(t, u.GraphQL(t, update, map[string]any{"in": map[string]any{"autoAddUsersToOrganizationGroup": true}}), "FORBIDDEN", 403)
	want("after a refused write", get(), "", false)

	const url = "http://127.0.0.1:1/jwks"
	want("both", set(update, map[string]any{"in": map[string]any{"jwksUrl": url, "autoAddUsersToOrganizationGroup": true}}), url, true)
	// Only autoAdd given: jwksUrl stays.
	want("autoAdd only", set(update, map[string]any{"in": map[string]any{"autoAddUsersToOrganizationGroup": false}}), url, false)
	want("inline autoAdd only", set(`mutation { updateSecuritySettings(input: {autoAddUsersToOrganizationGroup: true}) { jwksUrl autoAddUsersToOrganizationGroup } }`, nil), url, true)
	want("nothing given", set(update, map[string]any{"in": map[string]any{}}), url, true)
	// jwksUrl null removes it; autoAdd stays.
	want("jwksUrl null", set(update, map[string]any{"in": map[string]any{"jwksUrl": nil}}), "", true)
	want("set again", set(update, map[string]any{"in": map[string]any{"jwksUrl": url}}), url, true)
	want("inline jwksUrl null", set(`mutation { updateSecuritySettings(input: {jwksUrl: null}) { jwksUrl autoAddUsersToOrganizationGroup } }`, nil), "", true)
	want("set again", set(update, map[string]any{"in": map[string]any{"jwksUrl": url}}), url, true)
	want(`jwksUrl ""`, set(update, map[string]any{"in": map[string]any{"jwksUrl": ""}}), "", true)

	// A bad URL is refused and changes nothing.
	set(update, map[string]any{"in": map[string]any{"jwksUrl": url}})
	for _, bad := range []string{"ftp://127.0.0.1/jwks", "jwks", "https://u:p@127.0.0.1/jwks"} {
		wantError(t, a.GraphQL(t, update, map[string]any{"in": map[string]any{"jwksUrl": bad, "autoAddUsersToOrganizationGroup": false}}),
			"BAD_USER_INPUT", 400)
	}
	want("after bad URLs", get(), url, true)
}

func sameSettingsJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestGraphQLSystemScope(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	u := a.User(t, "u@a.test", nil, false)
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Store.CreateSystemKey(context.Background(), store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "ops"}); err != nil {
		t.Fatal(err)
	}
	sys := api.WithKey(k.Header)

	const managers = `{ storageManagers { id type status message } }`
	const tenants = `{ tenantIds { ids } }`
	for _, c := range []*loupetest.Client{a, u} {
		wantError(t, c.GraphQL(t, managers, nil), "UNAUTHENTICATED", 401)
		wantError(t, c.GraphQL(t, tenants, nil), "FORBIDDEN", 403)
	}
	var out struct {
		StorageManagers []struct {
			ID      string  `json:"id"`
			Type    string  `json:"type"`
			Status  string  `json:"status"`
			Message *string `json:"message"`
		} `json:"storageManagers"`
		TenantIDs struct {
			IDs []string `json:"ids"`
		} `json:"tenantIds"`
	}
	sys.GraphQL(t, `{ storageManagers { id type status message } tenantIds { ids } }`, nil).OK(&out)
	if len(out.StorageManagers) != 1 || out.StorageManagers[0].ID != "files" || out.StorageManagers[0].Type != "disk" ||
		out.StorageManagers[0].Status != "ok" || out.StorageManagers[0].Message != nil {
		t.Fatalf("storage managers %+v", out.StorageManagers)
	}
	if len(out.TenantIDs.IDs) != api.Count(t, `SELECT count(*) FROM tenants`) {
		t.Fatalf("tenant ids %v", out.TenantIDs.IDs)
	}
	// The system scope is no tenant's.
	wantError(t, sys.GraphQL(t, `{ viewer { id } }`, nil), "UNAUTHENTICATED", 401)
	wantError(t, sys.GraphQL(t, `{ apiKeys { keyId } }`, nil), "UNAUTHENTICATED", 401)
	wantError(t, sys.GraphQL(t, `{ securitySettings { jwksUrl } }`, nil), "UNAUTHENTICATED", 401)
	wantError(t, sys.GraphQL(t, `mutation { createApiKey(input: {label: "x"}) { keyId } }`, nil), "UNAUTHENTICATED", 401)
	// Metering names its tenants.
	wantError(t, sys.GraphQL(t, `{ metering { cost } }`, nil), "BAD_USER_INPUT", 400)
	sys.GraphQL(t, `query($ids: [ID!]) { metering(tenantIds: $ids) { cost startDay endDay } }`,
		map[string]any{"ids": []string{a.TenantID}}).OK(nil)
}
