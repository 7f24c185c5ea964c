package live

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
)

// metadataAddrs are cloud metadata services that are not link-local
// (169.254.0.0/16 is refused as link-local): AWS's IPv6 one is a ULA.
var metadataAddrs = []netip.Prefix{netip.MustParsePrefix("fd00:ec2::254/128")}

// Policy says which addresses a live source may be read from
// (docs/live.md "Source addresses").
type Policy struct {
	AllowLoopback, DenyPrivate bool
}

// Policy is c's address policy.
func (c Config) Policy() Policy {
	return Policy{AllowLoopback: c.AllowLoopback, DenyPrivate: c.DenyPrivate}
}

// Refusal says why a source of type typ may not be read from a, or is ""
// when it may: public addresses, private ones unless DenyPrivate,
// multicast groups for udp and rtp, loopback with AllowLoopback; never
// link-local (the metadata range), unspecified or reserved ones.
func (p Policy) Refusal(a netip.Addr, typ string) string {
	a = a.WithZone("").Unmap()
	for _, m := range metadataAddrs {
		if m.Contains(a) {
			return fmt.Sprintf("%s is a cloud metadata address", a)
		}
	}
	switch class := jwtauth.AddressClass(a); class {
	case "":
		return ""
	case "private", "carrier-grade NAT":
		if p.DenyPrivate {
			return fmt.Sprintf("%s is a %s address and this server reads live sources from public addresses only", a, class)
		}
		return ""
	case "loopback":
		if p.AllowLoopback {
			return ""
		}
		return fmt.Sprintf("%s is a loopback address (this server itself); the operator has not allowed live sources there", a)
	case "multicast":
		if a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
			return fmt.Sprintf("%s is a link-local multicast address", a)
		}
		if typ == loupe.LiveUDP || typ == loupe.LiveRTP {
			return ""
		}
		return fmt.Sprintf("%s is a multicast address, for udp:// or rtp:// sources only", a)
	case "link-local":
		if a.Is4() && netip.MustParsePrefix("169.254.0.0/16").Contains(a) {
			return fmt.Sprintf("%s is a link-local address (the cloud metadata range)", a)
		}
		return fmt.Sprintf("%s is a link-local address", a)
	default:
		return fmt.Sprintf("%s is a %s address", a, class)
	}
}

// resolveTimeout bounds a name's resolution.
const resolveTimeout = 3 * time.Second

// errDNS is a name that does not resolve.
type errDNS struct {
	host string
	err  error
}

func (e *errDNS) Error() string {
	return fmt.Sprintf("The name %s does not resolve on this node (DNS): check the name, or this node's resolver", e.host)
}

// errAddress is an address the policy or the pipeline's cidr refuses.
type errAddress struct{ msg string }

func (e *errAddress) Error() string { return e.msg }

// resolve answers the addresses of u's host, every one checked against
// the policy and cidr (an invalid cidr: no restriction).
func (p Policy) resolve(ctx context.Context, u *url.URL, cidr netip.Prefix) ([]netip.Addr, error) {
	host, typ := u.Hostname(), loupe.LiveSourceType(u)
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return nil, &errDNS{host: host, err: err}
		}
	}
	for _, a := range addrs {
		a = a.WithZone("").Unmap()
		if why := p.Refusal(a, typ); why != "" {
			if host != a.String() {
				why = host + " resolves to " + why
			}
			return nil, &errAddress{msg: why + "; live sources may not reach it"}
		}
		if cidr.IsValid() && !cidr.Contains(a) {
			return nil, &errAddress{msg: fmt.Sprintf("%s is outside the pipeline's cidr %s", a, cidr)}
		}
	}
	return addrs, nil
}

// CheckSources checks a pipeline's settings as written (a 400 naming the
// field): every source's address against the policy and the cidr. A name
// that does not resolve here is accepted (the measurement will say so);
// one that does must resolve to allowed addresses only.
func (s *Service) CheckSources(ctx context.Context, in loupe.LiveSettings) error {
	cidr, err := loupe.ParseCIDR(in.CIDR)
	if err != nil {
		return err
	}
	for i, src := range in.Sources {
		u, err := url.Parse(src.URL)
		if err != nil {
			return loupe.Invalid("sources[%d].url is not a URL", i)
		}
		if _, err := s.cfg.Policy().resolve(ctx, u, cidr); err != nil {
			if ea, ok := err.(*errAddress); ok {
				return loupe.Invalid("sources[%d].url: %s", i, ea.msg)
			}
		}
	}
	return nil
}
