// Package jwtauth verifies identity-provider bearer tokens (JWTs signed
// RS256 or ES256) against a tenant's JSON Web Key Set, fetched from the
// tenant's jwksUrl under an address policy that keeps tenants from pointing
// the server at its own private network.
package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// ErrInvalidToken is wrapped by every error Verify returns: the caller
// answers 401 to all of them, and logs the reason.
var ErrInvalidToken = errors.New("jwtauth: invalid token")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidToken, fmt.Sprintf(format, args...))
}

func invalidErr(reason string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrInvalidToken, reason, err)
}

// Defaults for zero Options fields.
const (
	DefaultLeeway             = 60 * time.Second
	DefaultMinRefreshInterval = 30 * time.Second
	DefaultKeySetTTL          = 10 * time.Minute
)

// Options of a Verifier. Zero fields take the documented defaults.
type Options struct {
	// Audience is what a token's aud (a string or an array) must contain.
	// It is required: a Verifier without one refuses every token, because
	// a key set is often shared by many applications of one identity
	// provider, and without an audience check a token minted for any of
	// them would sign into Loupe. Pass the server's public URL, or a
	// per-tenant value with one Verifier per value.
	Audience string
	// Leeway for exp, nbf and iat clock skew (default 60 s; negative = none).
	Leeway time.Duration
	// AllowPrivateNetworks lets key set URLs be plain http and resolve to
	// loopback, private or link-local addresses (tests, on-prem identity
	// providers). Off in production.
	AllowPrivateNetworks bool
	// HTTPClient fetches key sets. The default has a 5 s timeout, follows
	// redirects only within the same scheme and host, uses no proxy, and
	// checks every dialled address against the address policy. A client
	// given here replaces all of that: it must enforce the policy itself.
	// Responses are capped at 1 MiB whatever the client.
	HTTPClient *http.Client
	// MinRefreshInterval is the least time between two fetches of one key
	// set, whatever prompts them (default 30 s). KeySetTTL is how long a
	// fetched set is used before it is fetched again (default 10 min); if
	// that fetch fails the old set serves until it is 2×KeySetTTL old.
	MinRefreshInterval, KeySetTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Verifier verifies tokens against key sets it fetches and caches per URL.
// It is safe for concurrent use; share one. It keeps an entry for every URL
// it is asked about, which is bounded because URLs come from tenants'
// saved settings, never from requests.
type Verifier struct {
	opt Options

	mu    sync.Mutex
	cache map[string]*cacheEntry
}

// NewVerifier returns a Verifier with opt's zero fields defaulted.
func NewVerifier(opt Options) *Verifier {
	switch {
	case opt.Leeway == 0:
		opt.Leeway = DefaultLeeway
	case opt.Leeway < 0:
		opt.Leeway = 0
	}
	if opt.MinRefreshInterval <= 0 {
		opt.MinRefreshInterval = DefaultMinRefreshInterval
	}
	if opt.KeySetTTL <= 0 {
		opt.KeySetTTL = DefaultKeySetTTL
	}
	if opt.HTTPClient == nil {
		opt.HTTPClient = newHTTPClient(opt.AllowPrivateNetworks)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Verifier{opt: opt, cache: map[string]*cacheEntry{}}
}

// Verify checks a compact JWS token against the key set at jwksURL and
// returns its claims. Every error wraps ErrInvalidToken; one caused by the
// address policy also wraps ErrForbiddenAddress.
//
// Order matters: the token's shape and alg are checked before any key is
// fetched or used, and the signature before any claim is believed.
func (v *Verifier) Verify(ctx context.Context, jwksURL, token string) (*Claims, error) {
	if v.opt.Audience == "" {
		return nil, invalid("verifier has no audience configured")
	}
	tok, err := parseCompact(token)
	if err != nil {
		return nil, err
	}
	// Checked here too, not only when the tenant saved it: a stored URL
	// that is no longer acceptable (say, http after a config change) is
	// never fetched, and junk URLs take no cache entry.
	if _, err := parseKeySetURL(jwksURL, v.opt.AllowPrivateNetworks); err != nil {
		return nil, invalidErr("key set", err)
	}
	keys, err := v.keysFor(ctx, jwksURL, tok.header.Kid, tok.header.Alg)
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			return nil, err
		}
		return nil, invalidErr("key set", err)
	}
	// Usually one key; several only if a set repeats a kid.
	err = nil
	for _, k := range keys {
		if err = k.verifySignature(tok.signingInput, tok.signature); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return checkClaims(tok.payload, v.opt.Audience, v.opt.Now(), v.opt.Leeway)
}
