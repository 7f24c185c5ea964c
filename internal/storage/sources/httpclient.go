package sources

import (
	"net"
	"net/http"
	"time"

	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
)

// HTTPClient is the client tenants' buckets are reached with: unless
// AllowPrivate, it connects to public addresses only (a tenant must not
// make the server reach its loopback, the cloud metadata endpoint or the
// private network), it ignores proxy settings (through a proxy the address
// judged would be the proxy's), and it follows no redirect (S3 answers one
// for a bucket in another region). A probe is bounded as a whole; a
// transfer (a scan, a copy, a read of an original) keeps its connections
// and bounds only the wait for each answer, since a large object takes as
// long as it takes.
func (s *Sources) HTTPClient(transfer bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !s.AllowPrivate {
		d.Control = jwtauth.DialPublicOnly("storage endpoints must be public")
	}
	c := &http.Client{
		Timeout:       ProbeTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{
			Proxy: nil, DialContext: d.DialContext, TLSHandshakeTimeout: 5 * time.Second,
			ResponseHeaderTimeout: 10 * time.Second, DisableKeepAlives: true, ForceAttemptHTTP2: true,
		},
	}
	if transfer {
		c.Timeout = 0
		t := c.Transport.(*http.Transport)
		t.ResponseHeaderTimeout, t.DisableKeepAlives, t.MaxIdleConnsPerHost = 30*time.Second, false, 16
	}
	return c
}
