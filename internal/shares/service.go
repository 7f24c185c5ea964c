package shares

import (
	"context"
	"fmt"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// Service answers outsiders: what a link is, opening it, and what a
// session may reach.
type Service struct {
	Store *store.Store
}

// Errors an outsider sees. A link or session that names nothing, and
// anything outside a share, is loupe.NotFound: like a missing one.
var (
	ErrWrongPassword = &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: "Wrong password."}
	ErrNeedPassword  = &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: "This share needs its password."}
)

// Closed says why a share no longer opens (410 with its state).
type Closed struct{ State loupe.ShareState }

// Unavailable is the state of a share whose creator was deactivated, or
// whose root is gone or out of its creator's sight: not one of the
// record's states (those say what was done to the share itself).
const Unavailable loupe.ShareState = "unavailable"

func (c *Closed) Error() string {
	switch c.State {
	case loupe.ShareExpired:
		return "This share has expired."
	case loupe.ShareRevoked:
		return "This share was revoked by the person who made it."
	case loupe.ShareExhausted:
		return "This share was opened as many times as it allows."
	}
	return "This share is no longer available."
}

// Throttled asks to wait before the next password attempt (429).
type Throttled struct{ Wait time.Duration }

func (t *Throttled) Error() string {
	return fmt.Sprintf("Too many wrong passwords: try again in %d seconds.", t.Seconds())
}

// Seconds is the wait in whole seconds, rounded up (Retry-After's too).
func (t *Throttled) Seconds() int { return int((t.Wait + time.Second - 1) / time.Second) }

// Link is what a link's token says before it is opened: enough for the
// page to draw its title and password form. It counts no use.
func (s *Service) Link(ctx context.Context, token string) (*store.ShareGrant, error) {
	return grantOf(ctx, token, TokenPrefix, s.Store.ShareByToken)
}

// grantOf is the share a secret of prefix names (looked up by its hash):
// loupe.NotFound for a secret of another shape or none, Unavailable when
// its creator was deactivated.
func grantOf(ctx context.Context, secret, prefix string, lookup func(context.Context, []byte) (*store.ShareGrant, error)) (*store.ShareGrant, error) {
	if !wellFormed(secret, prefix) {
		return nil, loupe.NotFound()
	}
	g, err := lookup(ctx, Hash(secret))
	if err != nil {
		return nil, err
	}
	if g.CreatorGone {
		return nil, &Closed{State: Unavailable}
	}
	return g, nil
}

// Open is an explicit open of a link (the page's POST): the password
// checked (throttled per link and per address, never locked), a use
// counted, a session minted. It answers the session's secret.
func (s *Service) Open(ctx context.Context, token, password, address string) (*store.ShareGrant, string, error) {
	g, err := s.Link(ctx, token)
	if err != nil {
		return nil, "", err
	}
	if st := g.State(time.Now()); st != loupe.ShareActive {
		return nil, "", &Closed{State: st}
	}
	if g.PasswordHash != nil {
		keys := []string{fmt.Sprintf("t:%x", g.TokenHash), "a:" + address}
		wait, err := s.Store.PasswordWait(ctx, keys)
		if err != nil {
			return nil, "", err
		}
		if wait > 0 {
			return nil, "", &Throttled{Wait: wait}
		}
		if password == "" {
			return nil, "", ErrNeedPassword
		}
		if !CheckPassword(password, *g.PasswordHash) {
			if err := s.Store.PasswordFailed(ctx, g, keys, address); err != nil {
				return nil, "", err
			}
			return nil, "", ErrWrongPassword
		}
		if err := s.Store.PasswordSucceeded(ctx, keys[:1]); err != nil {
			return nil, "", err
		}
	}
	l, err := s.Store.ShareLimits(ctx, g.TenantID)
	if err != nil {
		return nil, "", err
	}
	secret := NewSession()
	until := time.Now().Add(time.Duration(l.SessionMinutes) * time.Minute)
	if until.After(g.ExpiresOn) {
		until = g.ExpiresOn
	}
	opened, err := s.Store.OpenShare(ctx, g, Hash(secret), until, address)
	if err != nil {
		return nil, "", err
	}
	if !opened { // a concurrent open took the last use, or it just ended
		g, err = s.Store.ShareByToken(ctx, g.TokenHash)
		if err != nil {
			return nil, "", err
		}
		return nil, "", &Closed{State: g.State(time.Now())}
	}
	g.SessionExpiresOn = &until
	return g, secret, nil
}

// Session is the share a session's secret opened, while it lasts and the
// share stays open (revoked: at once; expired; its creator deactivated).
func (s *Service) Session(ctx context.Context, secret string) (*store.ShareGrant, error) {
	g, err := grantOf(ctx, secret, SessionPrefix, s.Store.ShareBySession)
	if err != nil {
		return nil, err
	}
	// A session outlives no revocation or expiry; maxUses counts opens,
	// so a session opened with the last use goes on.
	if st := g.State(time.Now()); st == loupe.ShareRevoked || st == loupe.ShareExpired {
		return nil, &Closed{State: st}
	}
	return g, nil
}

// Item is the one authorization of an outsider's reach: the item, when it
// is within g's root now as far as the share's creator may see, else
// loupe.NotFound — exactly like a missing one. Every share-scoped read
// and write goes through it.
func (s *Service) Item(ctx context.Context, g *store.ShareGrant, itemID string) (*store.Item, error) {
	inside, err := s.Store.InsideShare(ctx, g, itemID)
	if err != nil {
		return nil, err
	}
	if !inside {
		return nil, loupe.NotFound()
	}
	it, err := s.Store.Item(ctx, g.Creator(), itemID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, loupe.NotFound()
	}
	return it, err
}
