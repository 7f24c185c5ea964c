package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// ErrForbiddenAddress is wrapped by every refusal of the address policy,
// whether found by CheckURL or at connect time.
var ErrForbiddenAddress = errors.New("jwtauth: address not allowed")

// fetchTimeout bounds one key set fetch, connect to last body byte.
const fetchTimeout = 5 * time.Second

// A key set URL is chosen by a tenant and fetched by the server, so without
// this policy a tenant could make the server reach what only it can reach:
// its own loopback services, the cloud metadata endpoint, the private
// network. Ranges beyond the brief (this-network, benchmarking, reserved)
// are refused for the same reason; none is a real identity provider.
var forbiddenPrefixes = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
}

// Prefixes that embed an IPv4 address which a gateway may forward to: the
// embedded address is judged instead.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// addressClass names why an address is refused, or is "" for a public one.
func addressClass(a netip.Addr) string {
	a = a.WithZone("").Unmap()
	if a.Is6() && nat64Prefix.Contains(a) {
		b := a.As16()
		return addressClass(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if a.Is6() && sixToFour.Contains(a) {
		b := a.As16()
		return addressClass(netip.AddrFrom4([4]byte(b[2:6])))
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	}
	for _, p := range forbiddenPrefixes {
		if p.prefix.Contains(a) {
			return p.class
		}
	}
	return ""
}

// DialPublicOnly is a net.Dialer Control that refuses to connect to an
// address that is not public (AddressClass), judged on the address
// actually dialled: the name is resolved and the connection pinned to what
// was judged. who names the refused connection's purpose in the error
// ("storage endpoints must be public").
func DialPublicOnly(who string) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("cannot parse dialled address %q", address)
		}
		if class := AddressClass(ap.Addr().Unmap()); class != "" {
			return fmt.Errorf("%s is a %s address; %s", ap.Addr(), class, who)
		}
		return nil
	}
}

// AddressClass names why a is not a public address ("loopback",
// "private", "link-local", …), or is "" for a public one: the policy of key
// set fetches, for other fetches a tenant chooses the address of (storage
// locations' endpoints).
func AddressClass(a netip.Addr) string { return addressClass(a) }

// checkAddr applies the policy to one address.
func checkAddr(host string, a netip.Addr) error {
	if class := addressClass(a); class != "" {
		if host == a.String() {
			return fmt.Errorf("%w: %s is a %s address; only public addresses may serve a key set", ErrForbiddenAddress, a, class)
		}
		return fmt.Errorf("%w: %s resolves to %s, a %s address; only public addresses may serve a key set", ErrForbiddenAddress, host, a, class)
	}
	return nil
}

// parseKeySetURL checks a key set URL's form: absolute, https (http only
// where private networks are allowed, i.e. in tests and on-prem), a host,
// no credentials.
func parseKeySetURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("jwksUrl is not a URL: %v", err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return nil, fmt.Errorf("jwksUrl must be an https URL, not %q", raw)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("jwksUrl %q has no host", raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return nil, fmt.Errorf("jwksUrl %q is not a URL: bad port %q", raw, p)
		}
	}
	if u.User != nil {
		return nil, fmt.Errorf("jwksUrl must not contain credentials")
	}
	return u, nil
}

// CheckURL validates a jwksUrl when a tenant saves it: an https URL (http
// only with AllowPrivateNetworks) whose host resolves, and only to public
// addresses unless AllowPrivateNetworks. The error is worded for a 400
// answer; an address refusal wraps ErrForbiddenAddress.
//
// Resolving now is for the tenant's benefit (a clear message on save); the
// protection is the same check at connect time, because the name may
// resolve differently when the set is fetched (DNS rebinding).
func (v *Verifier) CheckURL(ctx context.Context, jwksURL string) error {
	u, err := parseKeySetURL(jwksURL, v.opt.AllowPrivateNetworks)
	if err != nil {
		return err
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return fmt.Errorf("jwksUrl host %q does not resolve: %v", host, err)
		}
		if len(addrs) == 0 {
			return fmt.Errorf("jwksUrl host %q has no address", host)
		}
	}
	if v.opt.AllowPrivateNetworks {
		return nil
	}
	for _, a := range addrs {
		if err := checkAddr(host, a); err != nil {
			return err
		}
	}
	return nil
}

// dialControl runs after name resolution and before connect, with the
// address actually being dialled: the check cannot be raced by a name
// that resolved to a public address a moment earlier.
func dialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse dialled address %q", ErrForbiddenAddress, address)
	}
	return checkAddr(ap.Addr().String(), ap.Addr())
}

// maxRedirects is how many same-host redirects a fetch follows.
const maxRedirects = 3

// checkRedirect follows a redirect only to the same scheme and host: a
// key set URL that passed CheckURL must not lead somewhere else.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("redirect from %s to another host or scheme (%s://%s) refused", first.Host, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// newHTTPClient is the default key set client. It ignores proxy settings
// from the environment: through a proxy the dialled address would be the
// proxy's and the policy would judge the wrong host.
func newHTTPClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: fetchTimeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = dialControl
	}
	return &http.Client{
		Timeout:       fetchTimeout,
		CheckRedirect: checkRedirect,
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            d.DialContext,
			TLSHandshakeTimeout:    fetchTimeout,
			ResponseHeaderTimeout:  fetchTimeout,
			MaxResponseHeaderBytes: 64 << 10,
			MaxIdleConnsPerHost:    2,
			IdleConnTimeout:        90 * time.Second,
			ForceAttemptHTTP2:      true,
		},
	}
}
