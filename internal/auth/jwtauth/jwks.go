package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxKeySetBytes caps a key set response; real sets are a few KiB.
const maxKeySetBytes = 1 << 20

// keySet is the usable keys of one fetched set.
type keySet struct {
	keys    []*key
	fetched time.Time
}

// find returns the keys that may verify a token with this kid and alg. A
// token without kid is accepted only when the choice is not a guess: the
// set has exactly one key for the alg.
func (s *keySet) find(kid, alg string) []*key {
	var out []*key
	for _, k := range s.keys {
		if k.alg == alg && (kid == "" || k.kid == kid) {
			out = append(out, k)
		}
	}
	if kid == "" && len(out) != 1 {
		return nil
	}
	return out
}

// cacheEntry holds one URL's key set. lock is a one-slot channel rather
// than a mutex so that a caller waiting behind another's fetch can give up
// when its own request is cancelled; whoever holds it is the one fetcher,
// and the others find its result when they get the lock.
type cacheEntry struct {
	lock        chan struct{}
	set         *keySet   // last good set, nil before the first success
	lastAttempt time.Time // last fetch, successful or not
	lastErr     error     // why the last fetch failed, nil if it did not
}

func (v *Verifier) entry(url string) *cacheEntry {
	v.mu.Lock()
	defer v.mu.Unlock()
	e := v.cache[url]
	if e == nil {
		e = &cacheEntry{lock: make(chan struct{}, 1)}
		v.cache[url] = e
	}
	return e
}

// keysFor returns the candidate keys for a token's kid and alg from the set
// at url, fetching when the set is missing or older than KeySetTTL, and
// refetching once when the kid is unknown (a rotation). Every fetch, for
// whatever reason, is at most one per MinRefreshInterval per URL, so
// tokens with made-up kids cannot turn the server against the identity
// provider. A set whose refetch fails is used until 2×KeySetTTL old.
func (v *Verifier) keysFor(ctx context.Context, url, kid, alg string) ([]*key, error) {
	e := v.entry(url)
	select {
	case e.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.lock }()

	now := v.opt.Now()
	fetched := false
	if e.set == nil || !now.Before(e.set.fetched.Add(v.opt.KeySetTTL)) {
		if v.mayFetch(e, now) {
			v.fetchInto(ctx, e, url, now)
			fetched = true
		}
	}
	set := v.usable(e, now)
	if set == nil {
		return nil, v.unavailable(e)
	}
	keys := set.find(kid, alg)
	if len(keys) == 0 && kid != "" && !fetched && v.mayFetch(e, now) {
		v.fetchInto(ctx, e, url, now)
		if set = v.usable(e, now); set == nil {
			return nil, v.unavailable(e)
		}
		keys = set.find(kid, alg)
	}
	if len(keys) == 0 {
		if kid == "" {
			return nil, invalid("token has no kid and the key set has not exactly one %s key", alg)
		}
		return nil, invalid("no %s key with kid %q in the key set", alg, kid)
	}
	return keys, nil
}

func (v *Verifier) mayFetch(e *cacheEntry, now time.Time) bool {
	return e.lastAttempt.IsZero() || now.Sub(e.lastAttempt) >= v.opt.MinRefreshInterval
}

// usable is the entry's set if it is not older than twice the TTL.
func (v *Verifier) usable(e *cacheEntry, now time.Time) *keySet {
	if e.set == nil || !now.Before(e.set.fetched.Add(2*v.opt.KeySetTTL)) {
		return nil
	}
	return e.set
}

func (v *Verifier) unavailable(e *cacheEntry) error {
	if e.lastErr != nil {
		return invalidErr("key set unavailable", e.lastErr)
	}
	return invalid("key set expired and not refetched yet")
}

// fetchInto fetches the set and records the outcome in e; on failure the
// previous set stays. The fetch is detached from the caller's cancellation
// (keeping its values) because its result is shared: one impatient client
// must not cost everyone a MinRefreshInterval without keys.
func (v *Verifier) fetchInto(ctx context.Context, e *cacheEntry, url string, now time.Time) {
	e.lastAttempt = now
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	set, err := v.fetch(ctx, url)
	if err != nil {
		e.lastErr = err
		return
	}
	set.fetched = now
	e.set, e.lastErr = set, nil
}

// fetch GETs and parses a key set. Keys this verifier cannot use are
// skipped; a set with none left is an error.
func (v *Verifier) fetch(ctx context.Context, url string) (*keySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("jwks request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.opt.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("jwks fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jwks fetch: status %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("jwks read: %w", err)
	}
	if len(body) > maxKeySetBytes {
		return nil, fmt.Errorf("jwks is larger than %d bytes", maxKeySetBytes)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("jwks is not a JSON key set: %w", err)
	}
	set := &keySet{}
	var skipped []error
	for i, raw := range doc.Keys {
		k, err := parseKey(raw)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("key %d: %w", i, err))
			continue
		}
		set.keys = append(set.keys, k)
	}
	if len(set.keys) == 0 {
		if len(skipped) == 0 {
			return nil, errors.New("jwks has no keys")
		}
		return nil, fmt.Errorf("jwks has no usable RS256 or ES256 key: %w", errors.Join(skipped...))
	}
	return set, nil
}
