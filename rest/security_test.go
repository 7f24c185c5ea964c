package rest_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/openapicheck"
	"github.com/loupe-mam/loupe/server"
	"github.com/loupe-mam/loupe/store"
)

// Security settings (spec 2.27), bearer JWTs of a tenant's identity provider
// verified against its key set, and the system scope (section 5;
// docs/security.md).

const (
	securityPath   = "/auth/api/v1/security"
	msgMissingBody = "Missing request body."
)

func TestSecuritySettings(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)
	read := func(c *loupetest.Client) map[string]any {
		t.Helper()
		got := c.Get(t, securityPath).Status(http.StatusOK).Object()
		sameKeys(t, "security settings", got, []string{"jwksUrl", "autoAddUsersToOrganizationGroup"})
		return got
	}
	put := func(body any) map[string]any {
		t.Helper()
		got := a.Put(t, securityPath, body).Status(http.StatusOK).Object()
		sameJSON(t, "PUT answer and GET", got, read(a))
		return got
	}
	defaults := map[string]any{"jwksUrl": nil, "autoAddUsersToOrganizationGroup": false}
	sameJSON(t, "defaults", read(a), defaults)

	// Admins only; anonymous callers are not authenticated.
	u.Get(t, securityPath).Envelope(http.StatusForbidden, "")
	u.Put(t, securityPath, map[string]any{"autoAddUsersToOrganizationGroup": true}).Envelope(http.StatusForbidden, "")
	u.Put(t, securityPath, map[string]any{"jwksUrl": "http://127.0.0.1:1/jwks"}).Envelope(http.StatusForbidden, "")
	api.Anonymous().Get(t, securityPath).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	api.Anonymous().Put(t, securityPath, map[string]any{"autoAddUsersToOrganizationGroup": true}).
		Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sameJSON(t, "after refused writes", read(a), defaults)

	// A missing body, and bodies that are not a settings object.
	for _, body := range []any{nil, "", " \n\t "} {
		a.Put(t, securityPath, body).Envelope(http.StatusBadRequest, msgMissingBody)
	}
	for _, body := range []any{"{", "null", "[]", `"x"`, `{"jwksUrl": null, "colour": "red"}`,
		`{"autoAddUsersToOrganizationGroup": true} {}`} {
		a.Put(t, securityPath, body).Envelope(http.StatusBadRequest, "")
	}
	sameJSON(t, "after bad bodies", read(a), defaults)

	// Keys given are merged; jwksUrl null or "" removes it.
	const url = "http://127.0.0.1:1/.well-known/jwks.json"
	sameJSON(t, "autoAdd on", put(map[string]any{"autoAddUsersToOrganizationGroup": true}),
		map[string]any{"jwksUrl": nil, "autoAddUsersToOrganizationGroup": true})
	sameJSON(t, "jwksUrl set", put(map[string]any{"jwksUrl": "  " + url + " "}),
		map[string]any{"jwksUrl": url, "autoAddUsersToOrganizationGroup": true})
	sameJSON(t, "autoAdd off keeps jwksUrl", put(map[string]any{"autoAddUsersToOrganizationGroup": false}),
		map[string]any{"jwksUrl": url, "autoAddUsersToOrganizationGroup": false})
	sameJSON(t, "empty object changes nothing", put(map[string]any{}),
		map[string]any{"jwksUrl": url, "autoAddUsersToOrganizationGroup": false})
	sameJSON(t, "autoAdd null changes nothing", put(map[string]any{"autoAddUsersToOrganizationGroup": nil}),
		map[string]any{"jwksUrl": url, "autoAddUsersToOrganizationGroup": false})
	sameJSON(t, "jwksUrl null removes it", put(map[string]any{"jwksUrl": nil, "autoAddUsersToOrganizationGroup": true}),
		map[string]any{"jwksUrl": nil, "autoAddUsersToOrganizationGroup": true})
	put(map[string]any{"jwksUrl": url})
	sameJSON(t, `jwksUrl "" removes it`, put(map[string]any{"jwksUrl": ""}),
		map[string]any{"jwksUrl": nil, "autoAddUsersToOrganizationGroup": true})

	// Each tenant has its own.
	sameJSON(t, "other tenant", read(b), defaults)
	var stored struct {
		URL     *string `db:"jwks_url"`
		AutoAdd bool    `db:"auto_add_users_to_org_group"`
	}
	if err := api.DB.Get(&stored, `SELECT jwks_url, auto_add_users_to_org_group FROM tenants WHERE id = $1`, a.TenantID); err != nil {
		t.Fatal(err)
	}
	if stored.URL != nil || !stored.AutoAdd {
		t.Fatalf("stored %+v", stored)
	}
}

// A jwksUrl is https to a public address unless the server allows private
// networks (tests, on-prem); nothing is saved on a refusal.
func TestSecurityJwksURLPolicy(t *testing.T) {
	strict := loupetest.New(t, func(c *server.Config) { c.AllowPrivateJWKS = false })
	s := strict.Tenant(t, "s")
	refused := []string{
		"http://127.0.0.1/jwks",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/jwks",
		"http://1.1.1.1/jwks", // public, but not https
		"https://127.0.0.1/jwks",
		"https://127.0.0.1:8443/jwks",
		"https://169.254.169.254/jwks",
		"https://10.0.0.1/jwks",
		"https://172.16.5.4/jwks",
		"https://192.168.1.1/jwks",
		"https://100.64.0.1/jwks",
		"https://0.0.0.0/jwks",
		"https://[::1]/jwks",
		"https://[::ffff:127.0.0.1]/jwks",
		"https://[fe80::1]/jwks",
		"https://[fd00::1]/jwks",
		"https://localhost/jwks",
		"https://user:secret@1.1.1.1/jwks",
		"ftp://1.1.1.1/jwks",
		"file:///etc/passwd",
		"not a url",
		"/relative/jwks",
		"https://",
		"https://1.1.1.1:0/jwks",
		"https://1.1.1.1:99999/jwks",
	}
	for _, u := range refused {
		t.Run(u, func(t *testing.T) {
			s.Put(t, securityPath, map[string]any{"jwksUrl": u, "autoAddUsersToOrganizationGroup": true}).
				Envelope(http.StatusBadRequest, "")
		})
	}
	sameJSON(t, "after refusals", s.Get(t, securityPath).Status(http.StatusOK).Object(),
		map[string]any{"jwksUrl": nil, "autoAddUsersToOrganizationGroup": false})
	// A public https address is accepted (not fetched on save).
	s.Put(t, securityPath, map[string]any{"jwksUrl": "https://1.1.1.1/.well-known/jwks.json"}).Status(http.StatusOK)

	// The server that allows private networks still wants a URL it can use.
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for _, u := range []string{"ftp://127.0.0.1/jwks", "not a url", "https://", "https://u:p@127.0.0.1/jwks"} {
		a.Put(t, securityPath, map[string]any{"jwksUrl": u}).Envelope(http.StatusBadRequest, "")
	}
	a.Put(t, securityPath, map[string]any{"jwksUrl": "http://127.0.0.1:1/jwks"}).Status(http.StatusOK)
	a.Put(t, securityPath, map[string]any{"jwksUrl": "http://10.0.0.1/jwks"}).Status(http.StatusOK)
}

// ---- A test identity provider: a key set served over HTTP and a signer.

var (
	idpRSA   = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA() })
	idpRSA2  = sync.OnceValue(func() *rsa.PrivateKey { return mustRSA() })
	idpEC    = sync.OnceValue(func() *ecdsa.PrivateKey { return mustEC() })
	b64url   = base64.RawURLEncoding.EncodeToString
	jsonSeg  = func(v any) string { return b64url(mustMarshal(v)) }
	rsaKid   = "rsa-1"
	ecKid    = "ec-1"
	otherKid = "rsa-unknown"
)

func mustRSA() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

func mustEC() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// idp serves the key set of idpRSA (kid rsa-1) and idpEC (kid ec-1).
type idp struct {
	srv     *httptest.Server
	fetches atomic.Int32
}

func (p *idp) URL() string { return p.srv.URL + "/.well-known/jwks.json" }

func newIdP(t *testing.T) *idp {
	t.Helper()
	p := &idp{}
	rk, ek := idpRSA().PublicKey, idpEC().PublicKey
	ecb, err := ek.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	pt := ecb.Bytes() // 0x04 || X || Y
	set := map[string]any{"keys": []map[string]any{
		{"kty": "RSA", "kid": rsaKid, "use": "sig", "alg": "RS256",
			"n": b64url(rk.N.Bytes()), "e": b64url(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": ecKid, "use": "sig", "alg": "ES256", "crv": "P-256",
			"x": b64url(pt[1:33]), "y": b64url(pt[33:65])},
	}}
	body := mustMarshal(set)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/jwks.json" {
			http.NotFound(w, r)
			return
		}
		p.fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body) //nolint:errcheck
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// hs256Key signs HS256 with these bytes (the key-confusion attack).
type hs256Key []byte

// signJWT makes a compact JWS of header and claims with key: an
// *rsa.PrivateKey (RS256), an *ecdsa.PrivateKey (ES256, r||s), hs256Key, or
// nil (no signature).
func signJWT(header, claims map[string]any, key any) string {
	input := jsonSeg(header) + "." + jsonSeg(claims)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		s, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		if err != nil {
			panic(err)
		}
		sig = s
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			panic(err)
		}
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case hs256Key:
		m := hmac.New(sha256.New, k)
		m.Write([]byte(input))
		sig = m.Sum(nil)
	case nil:
	default:
		panic("signJWT: unknown key")
	}
	return input + "." + b64url(sig)
}

// claimsFor are valid claims of subject sub for a tenant, with overrides
// (a nil value removes the claim).
func claimsFor(tenantID, sub string, kv ...any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": "https://idp.test/", "sub": sub, "aud": tenantID,
		"iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(),
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
			continue
		}
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}

func rs256(claims map[string]any) string {
	return signJWT(map[string]any{"alg": "RS256", "typ": "JWT", "kid": rsaKid}, claims, idpRSA())
}

func es256(claims map[string]any) string {
	return signJWT(map[string]any{"alg": "ES256", "typ": "JWT", "kid": ecKid}, claims, idpEC())
}

// bearerCall sends a request with "Authorization: Bearer <token>" and, when
// tenant is not empty, the tenant header.
func bearerCall(t *testing.T, api *loupetest.API, method, path, tenant, token string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(mustMarshal(body))
	}
	req, err := http.NewRequest(method, api.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if tenant != "" {
		req.Header.Set(auth.TenantHeader, tenant)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := openapicheck.Response(req, resp.StatusCode, resp.Header, b); err != nil {
		t.Error(err)
	}
	return resp.StatusCode, b
}

// bearerViewer is the token bearer's viewer through /graphql.
type viewerOut struct {
	ID       string   `json:"id"`
	Email    string   `json:"email"`
	TenantID string   `json:"tenantId"`
	IsAdmin  bool     `json:"isAdmin"`
	Groups   []string `json:"groups"`
}

func bearerViewer(t *testing.T, api *loupetest.API, tenant, token string) viewerOut {
	t.Helper()
	code, body := bearerCall(t, api, "POST", "/graphql", tenant, token,
		map[string]any{"query": `{ viewer { id email tenantId isAdmin groups } }`})
	var out struct {
		Data struct {
			Viewer viewerOut `json:"viewer"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	if err := json.Unmarshal(body, &out); err != nil || code != http.StatusOK || len(out.Errors) > 0 {
		t.Fatalf("viewer with a bearer token: %d %s", code, body)
	}
	return out.Data.Viewer
}

// wantRefused fails unless the answer is the spec's 401.
func wantRefused(t *testing.T, code int, body []byte) {
	t.Helper()
	var env struct {
		Error struct {
			StatusCode int    `json:"statusCode"`
			Message    string `json:"message"`
		} `json:"error"`
	}
	if code != http.StatusUnauthorized || json.Unmarshal(body, &env) != nil ||
		env.Error.StatusCode != http.StatusUnauthorized || env.Error.Message != msgUnauthenticated {
		t.Fatalf("answer %d %s, want 401 %q", code, body, msgUnauthenticated)
	}
}

func userIDBySubject(t *testing.T, api *loupetest.API, tenantID, sub string) string {
	t.Helper()
	var ids []string
	if err := api.DB.Select(&ids, `SELECT id::text FROM users WHERE tenant_id = $1 AND idp_subject = $2`, tenantID, sub); err != nil {
		t.Fatal(err)
	}
	if len(ids) > 1 {
		t.Fatalf("%d users with subject %s", len(ids), sub)
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// A tenant with a jwksUrl accepts its identity provider's tokens: users
// are found by subject, linked by verified email, or made; the token's
// groups count for the request.
func TestJWTBearer(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	p := newIdP(t)
	a.Put(t, securityPath, map[string]any{"jwksUrl": p.URL(), "autoAddUsersToOrganizationGroup": true}).Status(http.StatusOK)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	tid := a.TenantID

	// RS256: a new user, made on first sight, in the organisation group.
	alice := rs256(claimsFor(tid, "idp|alice", "email", "alice@a.test", "email_verified", true))
	code, body := bearerCall(t, api, "GET", "/api/v1/items/"+item, tid, alice, nil)
	if code != http.StatusOK {
		t.Fatalf("item read with a token: %d %s", code, body)
	}
	code, body = bearerCall(t, api, "GET", "/api/v1/items", tid, alice, nil)
	if code != http.StatusOK {
		t.Fatalf("item list with a token: %d %s", code, body)
	}
	aliceID := userIDBySubject(t, api, tid, "idp|alice")
	if aliceID == "" {
		t.Fatal("no user with the token's subject")
	}
	v := bearerViewer(t, api, tid, alice)
	if v.ID != aliceID || v.Email != "alice@a.test" || v.TenantID != tid || v.IsAdmin || !slices.Equal(v.Groups, []string{store.OrganizationGroup}) {
		t.Fatalf("viewer %+v, want user %s, alice@a.test, not admin, in organization", v, aliceID)
	}
	inGroup := api.Count(t, `SELECT count(*) FROM user_groups ug JOIN groups g ON g.tenant_id = ug.tenant_id AND g.id = ug.group_id
		WHERE ug.tenant_id = $1 AND ug.user_id = $2 AND g.name = 'organization'`, tid, aliceID)
	if inGroup != 1 {
		t.Fatalf("alice is in the organization group %d times", inGroup)
	}
	// A second token of the same subject is the same user.
	again := rs256(claimsFor(tid, "idp|alice", "email", "alice@a.test", "exp", time.Now().Add(5*time.Minute).Unix()))
	if v := bearerViewer(t, api, tid, again); v.ID != aliceID {
		t.Fatalf("second request is user %s, want %s", v.ID, aliceID)
	}
	if n := api.Count(t, `SELECT count(*) FROM users WHERE tenant_id = $1 AND email = 'alice@a.test'`, tid); n != 1 {
		t.Fatalf("%d users for alice", n)
	}
	// A token writes as its user.
	code, body = bearerCall(t, api, "POST", "/api/v1/items", tid, alice, map[string]any{"title": "By alice", "itemType": "video"})
	if code != http.StatusOK {
		t.Fatalf("create with a token: %d %s", code, body)
	}

	// ES256; an audience list containing the tenant; no email.
	bob := es256(claimsFor(tid, "idp|bob", "aud", []string{"https://other.app", tid}))
	bobV := bearerViewer(t, api, tid, bob)
	if bobV.ID == "" || bobV.ID != userIDBySubject(t, api, tid, "idp|bob") || bobV.IsAdmin {
		t.Fatalf("ES256 viewer %+v", bobV)
	}

	// autoAdd off: a new user joins no group.
	a.Put(t, securityPath, map[string]any{"autoAddUsersToOrganizationGroup": false}).Status(http.StatusOK)
	carol := rs256(claimsFor(tid, "idp|carol", "email", "carol@a.test"))
	if v := bearerViewer(t, api, tid, carol); len(v.Groups) != 0 || v.Email != "carol@a.test" {
		t.Fatalf("user made without autoAdd: %+v", v)
	}

	// A user made before (by email) is linked by a verified email, any case.
	dave := a.User(t, "dave@a.test", []string{"sales"}, false)
	daveTok := rs256(claimsFor(tid, "idp|dave", "email", "Dave@A.test", "email_verified", true))
	if v := bearerViewer(t, api, tid, daveTok); v.ID != dave.UserID || !slices.Equal(v.Groups, []string{"sales"}) {
		t.Fatalf("linked viewer %+v, want dave %s in sales", v, dave.UserID)
	}
	if got := userIDBySubject(t, api, tid, "idp|dave"); got != dave.UserID {
		t.Fatalf("subject idp|dave is user %q, want dave %s", got, dave.UserID)
	}
	// An unverified email links nobody: the admin's account is not handed
	// to whoever typed its address.
	forged := rs256(claimsFor(tid, "idp|mallory", "email", "admin@a.test", "email_verified", false))
	if v := bearerViewer(t, api, tid, forged); v.ID == a.UserID || v.IsAdmin {
		t.Fatalf("unverified email signed in as the admin: %+v", v)
	}
	var adminSubject *string
	if err := api.DB.Get(&adminSubject, `SELECT idp_subject FROM users WHERE tenant_id = $1 AND id = $2`, tid, a.UserID); err != nil {
		t.Fatal(err)
	}
	if adminSubject != nil {
		t.Fatalf("the admin got subject %s", *adminSubject)
	}

	// Group claims open what the groups may see, for that request only.
	folder := a.CreateItem(t, map[string]any{"title": "Editors only", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+folder, map[string]any{
		"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{tid + ":editors"}}}).Status(http.StatusOK)
	cases := []struct {
		name   string
		groups any
		want   int
	}{
		{"groups [editors]", []string{"viewers", "editors"}, http.StatusOK},
		{"groups as one string", "editors", http.StatusOK},
		{"no groups", nil, http.StatusNotFound},
		{"other groups", []string{"viewers"}, http.StatusNotFound},
		{"groups of another tenant", []string{"00000000-0000-0000-0000-000000000000:editors"}, http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := rs256(claimsFor(tid, "idp|erin", "groups", c.groups))
			code, body := bearerCall(t, api, "GET", "/api/v1/items/"+folder, tid, tok, nil)
			if code != c.want {
				t.Fatalf("folder read: %d %s, want %d", code, body, c.want)
			}
		})
	}
	// The claim is not stored as a membership.
	if n := api.Count(t, `SELECT count(*) FROM user_groups WHERE tenant_id = $1 AND user_id = $2`, tid, userIDBySubject(t, api, tid, "idp|erin")); n != 0 {
		t.Fatalf("erin has %d stored memberships", n)
	}

	// Claims Postgres cannot store are left out, not a server error.
	odd := rs256(claimsFor(tid, "idp|odd", "email", "odd\x00@a.test", "groups", []string{"edi\x00tors", "editors"}))
	code, body = bearerCall(t, api, "GET", "/api/v1/items/"+folder, tid, odd, nil)
	if code != http.StatusOK {
		t.Fatalf("token with NULs in email and a group: %d %s", code, body)
	}
	if v := bearerViewer(t, api, tid, odd); v.Email != "idp|odd@identity.invalid" {
		t.Fatalf("user of a token with an unusable email: %+v", v)
	}

	// A deactivated user's tokens are refused.
	api.DB.MustExec(`UPDATE users SET deactivated = true WHERE id = $1`, aliceID)
	code, body = bearerCall(t, api, "GET", "/api/v1/items/"+item, tid, alice, nil)
	wantRefused(t, code, body)

	// Removing the jwksUrl turns tokens off.
	a.Put(t, securityPath, map[string]any{"jwksUrl": nil}).Status(http.StatusOK)
	code, body = bearerCall(t, api, "GET", "/api/v1/items/"+item, tid, bob, nil)
	wantRefused(t, code, body)
}

// Forged, stale and misdirected tokens answer 401 and make no user.
func TestJWTAttacks(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b") // same identity provider, its own audience
	c := api.Tenant(t, "c") // no jwksUrl
	p := newIdP(t)
	for _, tc := range []*loupetest.Client{a, b} {
		tc.Put(t, securityPath, map[string]any{"jwksUrl": p.URL()}).Status(http.StatusOK)
	}
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	tid := a.TenantID

	// The control: a good token works.
	code, body := bearerCall(t, api, "GET", "/api/v1/items/"+item, tid, rs256(claimsFor(tid, "idp|good")), nil)
	if code != http.StatusOK {
		t.Fatalf("good token: %d %s", code, body)
	}

	pubDER, err := x509.MarshalPKIXPublicKey(&idpRSA().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	rsaHeader := map[string]any{"alg": "RS256", "typ": "JWT", "kid": rsaKid}
	tampered := func(sub string) string {
		good := strings.Split(rs256(claimsFor(tid, sub)), ".")
		evil := claimsFor(tid, sub, "groups", []string{"editors"}, "email", "admin@a.test")
		return good[0] + "." + jsonSeg(evil) + "." + good[2]
	}
	cases := []struct {
		name   string
		tenant string
		token  func(sub string) string
	}{
		{"alg none", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "none", "typ": "JWT"}, claimsFor(tid, sub), nil)
		}},
		{"alg none with a known kid", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "none", "kid": rsaKid}, claimsFor(tid, sub), nil)
		}},
		{"alg None", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "None", "kid": rsaKid}, claimsFor(tid, sub), nil)
		}},
		{"HS256 keyed with the public key PEM", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "HS256", "typ": "JWT", "kid": rsaKid}, claimsFor(tid, sub), hs256Key(pubPEM))
		}},
		{"HS256 keyed with the public key DER", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "HS256", "kid": rsaKid}, claimsFor(tid, sub), hs256Key(pubDER))
		}},
		{"HS256 keyed with the modulus", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "HS256", "kid": rsaKid}, claimsFor(tid, sub), hs256Key(idpRSA().N.Bytes()))
		}},
		{"RS256 header naming the EC key", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "RS256", "kid": ecKid}, claimsFor(tid, sub), idpRSA2())
		}},
		{"ES256 header naming the RSA key", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "ES256", "kid": rsaKid}, claimsFor(tid, sub), idpEC())
		}},
		{"signature stripped", tid, func(sub string) string {
			return signJWT(rsaHeader, claimsFor(tid, sub), nil)
		}},
		{"known kid, another key", tid, func(sub string) string {
			return signJWT(rsaHeader, claimsFor(tid, sub), idpRSA2())
		}},
		{"unknown kid", tid, func(sub string) string {
			return signJWT(map[string]any{"alg": "RS256", "kid": otherKid}, claimsFor(tid, sub), idpRSA2())
		}},
		{"tampered payload", tid, tampered},
		{"expired", tid, func(sub string) string {
			return rs256(claimsFor(tid, sub, "iat", time.Now().Add(-time.Hour).Unix(), "exp", time.Now().Add(-5*time.Minute).Unix()))
		}},
		{"no exp", tid, func(sub string) string { return rs256(claimsFor(tid, sub, "exp", nil)) }},
		{"exp a string", tid, func(sub string) string {
			return rs256(claimsFor(tid, sub, "exp", time.Now().Add(time.Hour).Format(time.RFC3339)))
		}},
		{"not valid yet", tid, func(sub string) string {
			return rs256(claimsFor(tid, sub, "nbf", time.Now().Add(10*time.Minute).Unix()))
		}},
		{"no sub", tid, func(string) string { return rs256(claimsFor(tid, "", "sub", nil)) }},
		{"empty sub", tid, func(string) string { return rs256(claimsFor(tid, "")) }},
		{"sub with a NUL", tid, func(sub string) string { return rs256(claimsFor(tid, sub+"\x00")) }},
		{"wrong audience", tid, func(sub string) string { return rs256(claimsFor(tid, sub, "aud", "https://other.app")) }},
		{"another tenant's audience", tid, func(sub string) string { return rs256(claimsFor(b.TenantID, sub)) }},
		{"no audience", tid, func(sub string) string { return rs256(claimsFor(tid, sub, "aud", nil)) }},
		{"audience a prefix of the tenant", tid, func(sub string) string { return rs256(claimsFor(tid[:8], sub)) }},
		{"wrong tenant header", b.TenantID, func(sub string) string { return rs256(claimsFor(tid, sub)) }},
		{"missing tenant header", "", func(sub string) string { return rs256(claimsFor(tid, sub)) }},
		{"unknown tenant header", "00000000-0000-0000-0000-000000000000", func(sub string) string {
			return rs256(claimsFor("00000000-0000-0000-0000-000000000000", sub))
		}},
		{"malformed tenant header", "a", func(sub string) string { return rs256(claimsFor("a", sub)) }},
		{"tenant without jwksUrl", c.TenantID, func(sub string) string { return rs256(claimsFor(c.TenantID, sub)) }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := "idp|attack-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
			tok := tc.token(sub)
			code, body := bearerCall(t, api, "GET", "/api/v1/items/"+item, tc.tenant, tok, nil)
			wantRefused(t, code, body)
			code, body = bearerCall(t, api, "POST", "/api/v1/items", tc.tenant, tok, map[string]any{"title": "forged", "itemType": "video"})
			wantRefused(t, code, body)
			code, body = bearerCall(t, api, "POST", "/graphql", tc.tenant, tok, map[string]any{"query": `{ viewer { id } }`})
			if code != http.StatusUnauthorized || !bytes.Contains(body, []byte(`"UNAUTHENTICATED"`)) {
				t.Fatalf("graphql: %d %s", code, body)
			}
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM users WHERE idp_subject LIKE 'idp|attack-%'`); n != 0 {
		t.Fatalf("refused tokens made %d users", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE title = 'forged'`); n != 0 {
		t.Fatalf("refused tokens made %d items", n)
	}
	// The good token still works after all that (no key set poisoned).
	code, body = bearerCall(t, api, "GET", "/api/v1/items/"+item, tid, es256(claimsFor(tid, "idp|good")), nil)
	if code != http.StatusOK {
		t.Fatalf("good token after the attacks: %d %s", code, body)
	}
}

// A stored jwksUrl the server's policy no longer accepts is never fetched.
func TestJWTStoredURLOutsidePolicy(t *testing.T) {
	api := loupetest.New(t, func(c *server.Config) { c.AllowPrivateJWKS = false })
	a := api.Tenant(t, "a")
	p := newIdP(t)
	api.DB.MustExec(`UPDATE tenants SET jwks_url = $2 WHERE id = $1`, a.TenantID, p.URL())
	code, body := bearerCall(t, api, "GET", "/api/v1/items", a.TenantID, rs256(claimsFor(a.TenantID, "idp|x")), nil)
	wantRefused(t, code, body)
	if n := p.fetches.Load(); n != 0 {
		t.Fatalf("the key set at a loopback address was fetched %d times", n)
	}
}

// The system scope: a server key that opens the system endpoints and no
// tenant's.
func TestSystemScope(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Store.CreateSystemKey(context.Background(), store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "ops"}); err != nil {
		t.Fatal(err)
	}
	sys := api.WithKey(k.Header)

	// Tenant ids: every tenant's, to the system scope only.
	got := sys.Get(t, "/config/api/v1/tenantIds").Status(http.StatusOK).Object()
	sameKeys(t, "tenant ids", got, []string{"ids"})
	var ids struct {
		IDs []string `json:"ids"`
	}
	sys.Get(t, "/config/api/v1/tenantIds").JSON(&ids)
	var all []string
	if err := api.DB.Select(&all, `SELECT id::text FROM tenants ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids.IDs)
	if !slices.Equal(ids.IDs, all) || !slices.Contains(all, a.TenantID) || !slices.Contains(all, b.TenantID) {
		t.Fatalf("tenant ids %v, want %v", ids.IDs, all)
	}
	a.Get(t, "/config/api/v1/tenantIds").Envelope(http.StatusForbidden, "")
	u.Get(t, "/config/api/v1/tenantIds").Envelope(http.StatusForbidden, "")
	api.Anonymous().Get(t, "/config/api/v1/tenantIds").Envelope(http.StatusUnauthorized, msgUnauthenticated)

	// Storage managers: the system scope's; a tenant key is the wrong scope.
	var managers []map[string]any
	sys.Get(t, "/api/v1/storageManagers").Status(http.StatusOK).JSON(&managers)
	sameJSON(t, "storage managers", managers, []map[string]any{{"id": "files", "type": "disk", "status": "ok", "message": nil,
		"tenantId": nil, "name": nil, "bucketName": nil}})
	a.Get(t, "/api/v1/storageManagers").Envelope(http.StatusUnauthorized, msgUnauthenticated)
	u.Get(t, "/api/v1/storageManagers").Envelope(http.StatusUnauthorized, msgUnauthenticated)
	api.Anonymous().Get(t, "/api/v1/storageManagers").Envelope(http.StatusUnauthorized, msgUnauthenticated)

	// The system key opens no tenant endpoint.
	sys.Get(t, "/api/v1/items/"+item).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Get(t, "/api/v1/items").Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Post(t, "/api/v1/items", map[string]any{"title": "by system", "itemType": "video"}).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Get(t, keysPath).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Post(t, keysPath, map[string]any{"label": "x"}).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Delete(t, keysPath+"/"+keyIDOf(a)).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Get(t, securityPath).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.Put(t, securityPath, map[string]any{"autoAddUsersToOrganizationGroup": true}).Envelope(http.StatusUnauthorized, msgUnauthenticated)
	sys.GraphQL(t, `{ viewer { id } }`, nil).ErrorCode("UNAUTHENTICATED")
	if n := api.Count(t, `SELECT count(*) FROM items WHERE title = 'by system'`); n != 0 {
		t.Fatal("the system key created an item")
	}
	if n := api.Count(t, `SELECT count(*) FROM api_keys WHERE label = 'x'`); n != 0 {
		t.Fatal("the system key created an api key")
	}
	a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
	// Even with a tenant header, the system key is no tenant's.
	code, body := bearerCall(t, api, "GET", "/api/v1/items/"+item, a.TenantID, k.Header, nil)
	wantRefused(t, code, body)

	// Metering: the system scope names the tenants.
	own := readMetering(t, a, "")
	sameJSON(t, "system metering of a", readMetering(t, sys, "?tenantIds="+a.TenantID), own)
	readMetering(t, sys, "?tenantIds="+a.TenantID+","+b.TenantID)
	readMetering(t, sys, "?tenantId="+a.TenantID+"&tenantId="+b.TenantID)
	sys.Get(t, meteringPath).Envelope(http.StatusBadRequest, "")
	sys.Get(t, meteringPath+"?tenantIds=").Envelope(http.StatusBadRequest, "")
	a.Get(t, meteringPath+"?tenantIds="+b.TenantID).Envelope(http.StatusForbidden, "")

	// GraphQL speaks the same scope.
	var out struct {
		TenantIDs struct {
			IDs []string `json:"ids"`
		} `json:"tenantIds"`
		StorageManagers []map[string]any `json:"storageManagers"`
	}
	sys.GraphQL(t, `{ tenantIds { ids } storageManagers { id type status message } }`, nil).OK(&out)
	if len(out.TenantIDs.IDs) != len(all) || len(out.StorageManagers) != 1 || out.StorageManagers[0]["status"] != "ok" {
		t.Fatalf("graphql system scope: %+v", out)
	}

	// A system key removed behind the server stops working.
	api.DB.MustExec(`DELETE FROM system_keys WHERE id = $1`, k.ID)
	deadline := time.Now().Add(5 * time.Second)
	for sys.Get(t, "/config/api/v1/tenantIds").Code != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("the deleted system key still works 5 s later")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The tenant header names a tenant however its id is spelled, and the
// spellings share one key set: varying the case of an id makes the server
// fetch the identity provider's key set no more often.
func TestJWTTenantHeaderSpelling(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	p := newIdP(t)
	a.Put(t, securityPath, map[string]any{"jwksUrl": p.URL()}).Status(http.StatusOK)
	tid := a.TenantID
	folder := a.CreateItem(t, map[string]any{"title": "Editors only", "itemType": "folder"})
	a.Post(t, "/api/v1/folders/"+folder, map[string]any{
		"visibleTo": map[string]any{"level": "selected_groups", "groups": []string{tid + ":editors"}}}).Status(http.StatusOK)
	tok := rs256(claimsFor(tid, "idp|zoe", "groups", []string{"editors"}))

	v := bearerViewer(t, api, strings.ToUpper(tid), tok)
	if v.TenantID != tid {
		t.Fatalf("viewer tenantId %q, want %q", v.TenantID, tid)
	}
	code, body := bearerCall(t, api, "GET", "/api/v1/items/"+folder, strings.ToUpper(tid), tok, nil)
	if code != http.StatusOK {
		t.Fatalf("group folder with an upper-case tenant header: %d %s", code, body)
	}
	fetched := p.fetches.Load()
	// Bad tokens under many spellings of the id.
	bad := signJWT(map[string]any{"alg": "RS256", "kid": otherKid}, claimsFor(tid, "idp|zoe"), idpRSA2())
	for i := 0; i < 12; i++ {
		spelled := []byte(tid)
		for j, n := 0, 0; j < len(spelled); j++ {
			if spelled[j] >= 'a' && spelled[j] <= 'f' {
				if i>>(n%4)&1 == 1 {
					spelled[j] -= 'a' - 'A'
				}
				n++
			}
		}
		code, body := bearerCall(t, api, "GET", "/api/v1/items", string(spelled)+strings.Repeat(" ", i%2), bad, nil)
		wantRefused(t, code, body)
	}
	if n := p.fetches.Load(); n > fetched+1 {
		t.Fatalf("the key set was fetched %d more times for bad tokens under spellings of one tenant id", n-fetched)
	}
}

// Users appearing through tokens do not empty the key cache: the
// organisation group they join exists already, and joining it is no change
// to any cached key.
func TestJWTNewUsersKeepKeysCached(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	p := newIdP(t)
	a.Put(t, securityPath, map[string]any{"jwksUrl": p.URL(), "autoAddUsersToOrganizationGroup": true}).Status(http.StatusOK)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	tid := a.TenantID
	// The first one makes the group.
	bearerViewer(t, api, tid, rs256(claimsFor(tid, "idp|first")))

	cost := func() int {
		before := api.Statements.Count()
		a.Get(t, "/api/v1/items/"+item).Status(http.StatusOK)
		return int(api.Statements.Count() - before)
	}
	for deadline := time.Now().Add(5 * time.Second); cost() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the admin's key is not cached")
		}
	}
	for i, sub := range []string{"idp|second", "idp|third"} {
		if v := bearerViewer(t, api, tid, rs256(claimsFor(tid, sub))); !slices.Equal(v.Groups, []string{store.OrganizationGroup}) {
			t.Fatalf("user %d: groups %v", i, v.Groups)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM groups WHERE tenant_id = $1 AND name = 'organization'`, tid); n != 1 {
		t.Fatalf("%d organization groups", n)
	}
	// Notifications arrive within milliseconds; give them ample time.
	time.Sleep(300 * time.Millisecond)
	if n := cost(); n != 1 {
		t.Fatalf("after new users joined the organization group a cached key's request cost %d statements, want 1", n)
	}
}

// First sign-ins at the same moment: one user per subject, one
// organisation group, every request answered.
func TestJWTConcurrentFirstSignIns(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	p := newIdP(t)
	a.Put(t, securityPath, map[string]any{"jwksUrl": p.URL(), "autoAddUsersToOrganizationGroup": true}).Status(http.StatusOK)
	tid := a.TenantID
	subs := []string{"idp|same", "idp|same", "idp|same", "idp|same", "idp|one", "idp|two", "idp|three", "idp|four"}
	tokens := make([]string, len(subs))
	for i, sub := range subs {
		tokens[i] = rs256(claimsFor(tid, sub, "email", strings.TrimPrefix(sub, "idp|")+"@a.test"))
	}
	codes := make([]int, len(subs))
	bodies := make([][]byte, len(subs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range subs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, _ := http.NewRequest("GET", api.URL+"/api/v1/items", nil)
			req.Header.Set("Authorization", "Bearer "+tokens[i])
			req.Header.Set(auth.TenantHeader, tid)
			<-start
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				bodies[i] = []byte(err.Error())
				return
			}
			defer resp.Body.Close()
			codes[i] = resp.StatusCode
			bodies[i], _ = io.ReadAll(resp.Body)
			if err := openapicheck.Response(req, resp.StatusCode, resp.Header, bodies[i]); err != nil {
				t.Error(err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	for i := range subs {
		if codes[i] != http.StatusOK {
			t.Errorf("%s: %d %s", subs[i], codes[i], bodies[i])
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM users WHERE tenant_id = $1 AND idp_subject LIKE 'idp|%'`, tid); n != 5 {
		t.Fatalf("%d users for 5 subjects", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM groups WHERE tenant_id = $1 AND name = 'organization'`, tid); n != 1 {
		t.Fatalf("%d organization groups", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM user_groups ug JOIN users u ON u.tenant_id = ug.tenant_id AND u.id = ug.user_id
		WHERE ug.tenant_id = $1 AND u.idp_subject LIKE 'idp|%'`, tid); n != 5 {
		t.Fatalf("%d memberships for 5 new users", n)
	}
}
