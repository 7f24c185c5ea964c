// Package webhooks delivers the outbox's events to tenants' webhooks
// (docs/events.md): the webhooks reader of the outbox asks for one
// delivery job per hook and event (Plan, Dispatcher), and the worker
// delivers it, signed per Standard Webhooks, at least once, on the
// standard's retry schedule, logging every attempt; a 410 or a message
// whose every attempt failed disables the hook.
package webhooks

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
	"github.com/loupe-mam/loupe/internal/platform/secretbox"
)

// Guard is what hooks may reach and how their secrets are kept.
type Guard struct {
	// Box seals the signing secrets (the storage credentials' key).
	Box *secretbox.Box
	// AllowPrivate lets receivers be loopback, private and link-local
	// addresses (LOUPE_WEBHOOKS_ALLOW_PRIVATE: tests, receivers inside the
	// operator's network). Off, they are refused on save and at connect.
	AllowPrivate bool
}

// CheckURL validates a receiver's URL on save: its form, and, unless
// AllowPrivate, that its host resolves to public addresses only. The
// protection is the same check at connect time (Client): a name may
// resolve elsewhere later.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := loupe.ParseWebhookURL(raw)
	if err != nil {
		return err
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return loupe.Invalid("url host %q does not resolve", host)
		}
	}
	for _, a := range addrs {
		if class := jwtauth.AddressClass(a.Unmap()); class != "" {
			return loupe.Invalid("url host %q is (or resolves to) a %s address; webhooks reach public addresses only", host, class)
		}
	}
	return nil
}

// secretContext binds a sealed secret to its tenant.
func secretContext(tenantID string) []byte { return []byte("webhook/" + tenantID) }

// Seal seals a secret for storage.
func (g *Guard) Seal(tenantID, secret string) (string, error) {
	if g.Box == nil {
		return "", loupe.Invalid("webhooks need the server's credentials key (LOUPE_CREDENTIALS_KEY) to keep their secrets")
	}
	return base64.StdEncoding.EncodeToString(g.Box.Seal([]byte(secret), secretContext(tenantID))), nil
}

// Open opens a sealed secret.
func (g *Guard) Open(tenantID, sealed string) (string, error) {
	if g.Box == nil {
		return "", fmt.Errorf("webhooks: no credentials key to open secrets with")
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return "", err
	}
	plain, err := g.Box.Open(b, secretContext(tenantID))
	return string(plain), err
}

// timeout bounds one delivery: connect, send, answer.
const timeout = 15 * time.Second

// Client is the receivers' client: public addresses only unless
// AllowPrivate (checked on the address dialled: resolved and pinned),
// no proxy (the address judged would be the proxy's), no redirect
// followed (a receiver answers, it does not send Loupe elsewhere).
func (g *Guard) Client() *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !g.AllowPrivate {
		d.Control = jwtauth.DialPublicOnly("webhooks reach public addresses only")
	}
	return &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{Proxy: nil, DialContext: d.DialContext, TLSHandshakeTimeout: 5 * time.Second,
			ResponseHeaderTimeout: timeout, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second},
	}
}
