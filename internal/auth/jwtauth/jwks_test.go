package jwtauth_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
)

func verify(v *jwtauth.Verifier, url, token string) error {
	_, err := v.Verify(context.Background(), url, token)
	return err
}

// A token naming an unknown kid refetches the set once, and then not again
// within MinRefreshInterval however many such tokens come; a rotated key is
// picked up by the first token after the interval.
func TestUnknownKidRefetchIsRateLimited(t *testing.T) {
	rsa1, rsa2 := rsaKey1(), rsaKey2()
	srv := newJWKSServer(t, rsaJWK("rsa-1", &rsa1.PublicKey))
	c := newClock()
	v := newVerifier(c, func(o *jwtauth.Options) { o.MinRefreshInterval = 30 * time.Second })
	tok1 := sign(hdr("RS256", "rsa-1"), claims(), rsa1)
	tok2 := sign(hdr("RS256", "rsa-2"), claims(), rsa2)

	steps := []struct {
		name     string
		advance  time.Duration
		rotate   []jwk // new set served from this step on
		token    string
		ok       bool
		wantHits int64
	}{
		{name: "first token fetches", token: tok1, ok: true, wantHits: 1},
		{name: "known kid, cached", token: tok1, ok: true, wantHits: 1},
		{name: "unknown kid right after a fetch, no fetch", advance: time.Second, token: tok2, wantHits: 1},
		{name: "unknown kid refetches once", advance: 29 * time.Second, token: tok2, wantHits: 2},
		{name: "unknown kid again, no fetch", token: tok2, wantHits: 2},
		{name: "IdP rotates; still within interval", advance: 10 * time.Second,
			rotate: []jwk{rsaJWK("rsa-1", &rsa1.PublicKey), rsaJWK("rsa-2", &rsa2.PublicKey)}, token: tok2, wantHits: 2},
		{name: "just before the interval ends", advance: 20*time.Second - time.Millisecond, token: tok2, wantHits: 2},
		{name: "after the interval the rotation is seen", advance: time.Millisecond, token: tok2, ok: true, wantHits: 3},
		{name: "old key still in the set", token: tok1, ok: true, wantHits: 3},
		{name: "old key dropped, cached set still has it", rotate: []jwk{rsaJWK("rsa-2", &rsa2.PublicKey)},
			advance: time.Minute, token: tok1, ok: true, wantHits: 3},
		{name: "TTL refetch drops it", advance: 10 * time.Minute, token: tok1, wantHits: 4},
		{name: "new key still fine", token: tok2, ok: true, wantHits: 4},
	}
	for _, s := range steps {
		c.Advance(s.advance)
		if s.rotate != nil {
			srv.setKeys(s.rotate...)
		}
		for i := 0; i < 3; i++ { // repetition must not fetch
			err := verify(v, srv.jwksURL(), s.token)
			if (err == nil) != s.ok {
				t.Fatalf("%s: Verify error %v, want ok=%v", s.name, err, s.ok)
			}
		}
		if got := srv.hits.Load(); got != s.wantHits {
			t.Fatalf("%s: %d fetches, want %d", s.name, got, s.wantHits)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if got := srv.accept; got != "application/json" {
		t.Errorf("Accept %q, want application/json", got)
	}
}

// Concurrent callers that all need a refetch share one.
func TestConcurrentRefetchIsShared(t *testing.T) {
	rsa1, rsa2 := rsaKey1(), rsaKey2()
	srv := newJWKSServer(t, rsaJWK("rsa-1", &rsa1.PublicKey))
	c := newClock()
	v := newVerifier(c)

	var wg sync.WaitGroup
	first := sign(hdr("RS256", "rsa-1"), claims(), rsa1)
	errs := make(chan error, 64)
	for i := 0; i < 32; i++ {
		wg.Go(func() { errs <- verify(v, srv.jwksURL(), first) })
	}
	wg.Wait()
	if got := srv.hits.Load(); got != 1 {
		t.Fatalf("32 concurrent first verifications fetched %d times, want 1", got)
	}

	c.Advance(time.Minute)
	srv.setKeys(rsaJWK("rsa-1", &rsa1.PublicKey), rsaJWK("rsa-2", &rsa2.PublicKey))
	rotated := sign(hdr("RS256", "rsa-2"), claims(), rsa2)
	for i := 0; i < 32; i++ {
		wg.Go(func() { errs <- verify(v, srv.jwksURL(), rotated) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.hits.Load(); got != 2 {
		t.Fatalf("32 concurrent unknown-kid verifications made %d fetches in all, want 2", got)
	}
}

// When a refetch fails, the previous set serves until it is 2×TTL old.
func TestFailedRefetchKeepsPreviousSet(t *testing.T) {
	rsa1 := rsaKey1()
	srv := newJWKSServer(t, rsaJWK("rsa-1", &rsa1.PublicKey))
	c := newClock()
	v := newVerifier(c, func(o *jwtauth.Options) {
		o.KeySetTTL = 10 * time.Minute
		o.MinRefreshInterval = 30 * time.Second
	})
	tok := sign(hdr("RS256", "rsa-1"), claims("exp", t0.Add(2*time.Hour).Unix()), rsa1)
	if err := verify(v, srv.jwksURL(), tok); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	good := srv.body
	srv.mu.Unlock()
	srv.setBody(http.StatusInternalServerError, []byte("down"))

	steps := []struct {
		advance  time.Duration
		ok       bool
		wantHits int64
		reason   string
	}{
		{advance: 10*time.Minute + time.Second, ok: true, wantHits: 2}, // TTL passed, refetch fails, old set serves
		{advance: time.Second, ok: true, wantHits: 2},                  // no retry within the interval
		{advance: 30 * time.Second, ok: true, wantHits: 3},             // retry, fails again
		{advance: 10 * time.Minute, reason: "500", wantHits: 4},        // 2×TTL passed: nothing to serve
		{advance: time.Second, reason: "500", wantHits: 4},             // and the IdP is not hammered
	}
	for i, s := range steps {
		c.Advance(s.advance)
		err := verify(v, srv.jwksURL(), tok)
		if (err == nil) != s.ok || (err != nil && !strings.Contains(err.Error(), s.reason)) {
			t.Fatalf("step %d: Verify error %v, want ok=%v reason %q", i, err, s.ok, s.reason)
		}
		if got := srv.hits.Load(); got != s.wantHits {
			t.Fatalf("step %d: %d fetches, want %d", i, got, s.wantHits)
		}
	}
	srv.setBody(http.StatusOK, good)
	c.Advance(30 * time.Second)
	if err := verify(v, srv.jwksURL(), tok); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

// Keys the verifier cannot use are skipped; the usable ones still work.
func TestUnusableKeysAreSkipped(t *testing.T) {
	rsa1, ec1 := rsaKey1(), ecKey1()
	small := genRSA(1024)
	p384 := genEC(ellipticP384())
	unusable := []jwk{
		{"kty": "oct", "kid": "u-oct", "k": b64([]byte("secret"))},
		{"kty": "OKP", "kid": "u-okp", "crv": "Ed25519", "x": b64(make([]byte, 32))},
		rsaJWK("u-small", &small.PublicKey),
		rsaJWK("u-enc", &rsa1.PublicKey, "use", "enc"),
		rsaJWK("u-rs384", &rsa1.PublicKey, "alg", "RS384"),
		rsaJWK("u-es256-on-rsa", &rsa1.PublicKey, "alg", "ES256"),
		rsaJWK("u-ops", &rsa1.PublicKey, "key_ops", []string{"encrypt"}),
		rsaJWK("u-even-e", &rsa1.PublicKey, "e", b64([]byte{1, 0, 0})),
		rsaJWK("u-bad-n", &rsa1.PublicKey, "n", "!!"),
		ecJWK("u-p384", &ec1.PublicKey, "crv", "P-384"),
		ecJWK("u-short-x", &ec1.PublicKey, "x", b64(make([]byte, 31))),
		ecJWK("u-off-curve", &ec1.PublicKey, "y", b64(bytes.Repeat([]byte{7}, 32))),
		ecJWK("u-rs256-on-ec", &ec1.PublicKey, "alg", "RS256"),
		{"kty": "EC", "kid": "u-real-p384", "crv": "P-384", "x": b64(must(p384.PublicKey.Bytes())[1:49]), "y": b64(must(p384.PublicKey.Bytes())[49:])},
		{"kid": "u-no-kty"},
		rsaJWK("u-upper-kty", &rsa1.PublicKey, "kty", drop{}, "KTY", "RSA"),
	}
	for _, k := range unusable {
		kid := k["kid"].(string)
		t.Run(kid, func(t *testing.T) {
			srv := newJWKSServer(t, k, rsaJWK("good", &rsa1.PublicKey))
			v := newVerifier(newClock())
			var signer any = rsa1
			alg := "RS256"
			if k["kty"] == "EC" {
				signer, alg = ec1, "ES256"
			}
			if err := verify(v, srv.jwksURL(), sign(hdr(alg, kid), claims(), signer)); err == nil {
				t.Fatalf("unusable key %s verified a token", kid)
			}
			if err := verify(v, srv.jwksURL(), sign(hdr("RS256", "good"), claims(), rsa1)); err != nil {
				t.Fatalf("usable key beside it: %v", err)
			}
		})
	}
	t.Run("only unusable keys", func(t *testing.T) {
		srv := newJWKSServer(t, unusable...)
		err := verify(newVerifier(newClock()), srv.jwksURL(), sign(hdr("RS256", "u-enc"), claims(), rsa1))
		if !errors.Is(err, jwtauth.ErrInvalidToken) || !strings.Contains(err.Error(), "no usable") {
			t.Fatalf("got %v, want a no-usable-key error", err)
		}
	})
	t.Run("optional alg and use absent", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("bare", &rsa1.PublicKey, "alg", drop{}, "use", drop{}),
			ecJWK("bare-ec", &ec1.PublicKey, "alg", drop{}, "use", drop{}))
		v := newVerifier(newClock())
		for _, tok := range []string{sign(hdr("RS256", "bare"), claims(), rsa1), sign(hdr("ES256", "bare-ec"), claims(), ec1)} {
			if err := verify(v, srv.jwksURL(), tok); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A token without kid is accepted only if the set leaves no choice.
func TestTokenWithoutKid(t *testing.T) {
	rsa1, rsa2, ec1 := rsaKey1(), rsaKey2(), ecKey1()
	cases := []struct {
		name  string
		set   []jwk
		token string
		ok    bool
	}{
		{"one key without kid", []jwk{rsaJWK("", &rsa1.PublicKey, "kid", drop{})}, sign(hdr("RS256", ""), claims(), rsa1), true},
		{"one key with kid", []jwk{rsaJWK("rsa-1", &rsa1.PublicKey)}, sign(hdr("RS256", ""), claims(), rsa1), true},
		{"one key per alg", []jwk{rsaJWK("rsa-1", &rsa1.PublicKey), ecJWK("ec-1", &ec1.PublicKey)}, sign(hdr("ES256", ""), claims(), ec1), true},
		{"one usable beside unusable", []jwk{rsaJWK("rsa-1", &rsa1.PublicKey), rsaJWK("enc", &rsa2.PublicKey, "use", "enc")},
			sign(hdr("RS256", ""), claims(), rsa1), true},
		{"two RSA keys", []jwk{rsaJWK("rsa-1", &rsa1.PublicKey), rsaJWK("rsa-2", &rsa2.PublicKey)}, sign(hdr("RS256", ""), claims(), rsa1), false},
		{"two RSA keys, signed by the second", []jwk{rsaJWK("rsa-1", &rsa1.PublicKey), rsaJWK("rsa-2", &rsa2.PublicKey)},
			sign(hdr("RS256", ""), claims(), rsa2), false},
		{"no key for the alg", []jwk{rsaJWK("rsa-1", &rsa1.PublicKey)}, sign(hdr("ES256", ""), claims(), ec1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newJWKSServer(t, c.set...)
			err := verify(newVerifier(newClock()), srv.jwksURL(), c.token)
			if (err == nil) != c.ok {
				t.Fatalf("Verify error %v, want ok=%v", err, c.ok)
			}
			if srv.hits.Load() != 1 {
				t.Fatalf("%d fetches, want 1 (no kid never refetches)", srv.hits.Load())
			}
		})
	}
}

// Whatever the server answers, a bad key set fails verification cleanly.
func TestKeySetFetchFailures(t *testing.T) {
	rsa1 := rsaKey1()
	goodSet := mustJSON(map[string]any{"keys": []jwk{rsaJWK("rsa-1", &rsa1.PublicKey)}})
	huge := append(append([]byte(nil), goodSet[:len(goodSet)-1]...), bytes.Repeat([]byte(" "), 1<<20)...)
	huge = append(huge, '}')
	cases := []struct {
		name   string
		status int
		body   []byte
		reason string
	}{
		{"not found", http.StatusNotFound, goodSet, "404"},
		{"server error", http.StatusInternalServerError, goodSet, "500"},
		{"redirect status not followed without Location", http.StatusFound, goodSet, "302"},
		{"larger than 1 MiB", http.StatusOK, huge, "larger"},
		{"not JSON", http.StatusOK, []byte("<html>"), "JSON"},
		{"keys not an array", http.StatusOK, []byte(`{"keys":{}}`), "JSON"},
		{"no keys", http.StatusOK, []byte(`{"keys":[]}`), "no keys"},
		{"keys missing", http.StatusOK, []byte(`{}`), "no keys"},
	}
	tok := sign(hdr("RS256", "rsa-1"), claims(), rsa1)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newJWKSServer(t)
			srv.setBody(c.status, c.body)
			err := verify(newVerifier(newClock()), srv.jwksURL(), tok)
			if !errors.Is(err, jwtauth.ErrInvalidToken) || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("got %v, want ErrInvalidToken mentioning %q", err, c.reason)
			}
		})
	}
	t.Run("just under 1 MiB is fine", func(t *testing.T) {
		body := append(append([]byte(nil), goodSet[:len(goodSet)-1]...), bytes.Repeat([]byte(" "), 1<<20-len(goodSet))...)
		body = append(body, '}')
		srv := newJWKSServer(t)
		srv.setBody(http.StatusOK, body)
		if err := verify(newVerifier(newClock()), srv.jwksURL(), tok); err != nil {
			t.Fatalf("%d-byte set: %v", len(body), err)
		}
	})
}

// Redirects are followed only within the URL's own host.
func TestRedirects(t *testing.T) {
	rsa1 := rsaKey1()
	target := newJWKSServer(t, rsaJWK("rsa-1", &rsa1.PublicKey))
	mux := http.NewServeMux()
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.jwksURL(), http.StatusFound)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/keys", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		w.Write(mustJSON(map[string]any{"keys": []jwk{rsaJWK("rsa-1", &rsa1.PublicKey)}}))
	})
	origin := httptest.NewServer(mux)
	defer origin.Close()
	tok := sign(hdr("RS256", "rsa-1"), claims(), rsa1)

	if err := verify(newVerifier(newClock()), origin.URL+"/moved", tok); err != nil {
		t.Fatalf("same-host redirect: %v", err)
	}
	err := verify(newVerifier(newClock()), origin.URL+"/elsewhere", tok)
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("cross-host redirect: got %v, want refusal", err)
	}
	if target.hits.Load() != 0 {
		t.Fatal("the redirect target was fetched")
	}
}

// A caller whose request is cancelled while another fetches gives up
// without waiting for that fetch.
func TestWaitingForFetchHonoursCancellation(t *testing.T) {
	rsa1 := rsaKey1()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
		w.Write(mustJSON(map[string]any{"keys": []jwk{rsaJWK("rsa-1", &rsa1.PublicKey)}}))
	}))
	defer srv.Close()
	defer close(release)
	v := newVerifier(newClock())
	tok := sign(hdr("RS256", "rsa-1"), claims(), rsa1)
	go verify(v, srv.URL, tok)
	<-started

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := v.Verify(ctx, srv.URL, tok)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, jwtauth.ErrInvalidToken) {
		t.Fatalf("got %v, want the caller's deadline (as an invalid token)", err)
	}
}
