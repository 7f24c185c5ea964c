package jwtauth

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// Claims is what a verified token says about its bearer.
type Claims struct {
	Subject string   // sub, never empty
	Email   string   // email; empty when absent or when email_verified is false
	Groups  []string // "groups" claim; nil when absent
	Issuer  string   // iss, as given (not checked: the key set is the trust anchor)
	Expiry  time.Time
}

// maxNumericDate is 9999-12-31T23:59:59Z: later (or negative) dates are
// treated as malformed rather than overflowing time arithmetic.
const maxNumericDate = 253402300799

// numericDate is RFC 7519's NumericDate: seconds since the epoch, possibly
// fractional. A string is not a NumericDate.
type numericDate struct{ time.Time }

func (d *numericDate) UnmarshalJSON(b []byte) error {
	var f float64
	if string(b) == "null" {
		return fmt.Errorf("null is not a NumericDate")
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("not a NumericDate: %s", b)
	}
	if f < 0 || f > maxNumericDate || math.IsNaN(f) {
		return fmt.Errorf("NumericDate out of range: %s", b)
	}
	sec, frac := math.Modf(f)
	d.Time = time.Unix(int64(sec), int64(frac*1e9)).UTC()
	return nil
}

// checkClaims decodes a verified payload and applies the time, audience and
// subject rules. Leeway widens each time bound by the same amount.
func checkClaims(raw []byte, audience string, now time.Time, leeway time.Duration) (*Claims, error) {
	o, err := parseObject(raw)
	if err != nil {
		return nil, invalid("payload: %v", err)
	}
	m := &members{o: o}
	var p struct {
		Sub, Email, Iss *string
		EmailVerified   *bool
		Exp, Nbf, Iat   *numericDate
	}
	p.Sub, p.Email, p.Iss = get[string](m, "sub"), get[string](m, "email"), get[string](m, "iss")
	p.EmailVerified = get[bool](m, "email_verified")
	p.Exp, p.Nbf, p.Iat = get[numericDate](m, "exp"), get[numericDate](m, "nbf"), get[numericDate](m, "iat")
	if m.err != nil {
		return nil, invalid("payload: %v", m.err)
	}
	if p.Exp == nil {
		return nil, invalid("exp is missing")
	}
	if !now.Before(p.Exp.Add(leeway)) {
		return nil, invalid("expired at %s", p.Exp.Format(time.RFC3339))
	}
	if p.Nbf != nil && p.Nbf.After(now.Add(leeway)) {
		return nil, invalid("not valid before %s", p.Nbf.Format(time.RFC3339))
	}
	if p.Iat != nil && p.Iat.After(now.Add(leeway)) {
		return nil, invalid("issued in the future (%s)", p.Iat.Format(time.RFC3339))
	}
	auds, err := stringOrList(o["aud"])
	if err != nil {
		return nil, invalid("aud: %v", err)
	}
	if !slices.Contains(auds, audience) {
		return nil, invalid("aud %q does not contain %q", auds, audience)
	}
	if p.Sub == nil || *p.Sub == "" {
		return nil, invalid("sub is missing or empty")
	}
	groups, err := stringOrList(o["groups"])
	if err != nil {
		return nil, invalid("groups: %v", err)
	}
	c := &Claims{Subject: *p.Sub, Groups: groups, Expiry: p.Exp.Time}
	if p.Iss != nil {
		c.Issuer = *p.Iss
	}
	// An address the identity provider says it has not verified is not an
	// identity: dropping it keeps a caller that matches users by email from
	// handing an account to whoever typed that address.
	if p.Email != nil && (p.EmailVerified == nil || *p.EmailVerified) {
		c.Email = *p.Email
	}
	return c, nil
}

// stringOrList decodes a claim that is either one string or an array of
// strings (aud always may be; some identity providers send a lone group as
// a string). Absent or null is nil.
func stringOrList(raw json.RawMessage) ([]string, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	// Pointers, because encoding/json turns a null element into "" silently.
	var elems []*string
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("not a string or an array of strings")
	}
	list := make([]string, len(elems))
	for i, e := range elems {
		if e == nil {
			return nil, fmt.Errorf("element %d is null", i)
		}
		list[i] = *e
	}
	return list, nil
}
