package auth

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/loupe-mam/loupe"
)

// builtinKeyHeaders carry a credential without any setting.
var builtinKeyHeaders = []string{"Authorization", "X-Api-Key"}

// notKeyHeaders are headers that mean something else to Loupe or to HTTP:
// a credential in one of them would be read as that too (X-Request-Id is
// logged and echoed on the response; X-Loupe-Tenant names a token's
// tenant), so an operator cannot name them as key headers.
var notKeyHeaders = []string{
	"X-Request-Id", http.CanonicalHeaderKey(TenantHeader), "Content-Type", "Content-Length",
	"Content-Encoding", "Transfer-Encoding", "Host", "Cookie", "Connection", "Upgrade",
	"Te", "Trailer", "Proxy-Authorization", "Forwarded", "X-Forwarded-For",
}

// ParseKeyHeaders reads LOUPE_API_KEY_HEADERS: comma-separated header names
// that carry an API key (Authenticator.KeyHeaders), for integrations
// written for another service that send their key in a header of its own.
// Names are trimmed, canonicalised and deduplicated; Authorization and
// X-API-Key, which always carry one, are dropped. Returns an error naming a
// name that is not a header field name (RFC 9110 token) or that has another
// meaning (notKeyHeaders).
func ParseKeyHeaders(setting string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(setting, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !loupe.IsHeaderToken(name) {
			return nil, fmt.Errorf("%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
		}
		name = http.CanonicalHeaderKey(name)
		if slices.Contains(notKeyHeaders, name) {
			return nil, fmt.Errorf("%q means something else to Loupe or HTTP; name another header", name)
		}
		if slices.Contains(builtinKeyHeaders, name) || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
	}
	return out, nil
}
