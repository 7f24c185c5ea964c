package shares

import (
	"strings"
	"testing"
)

// A link's token and a session's secret never reach the request log.
func TestRedact(t *testing.T) {
	token, session := NewToken(), NewSession()
	for _, tc := range []struct{ in, want string }{
		{"/share/" + token, "/share/s_…"},
		{"/share/api/links/" + token + "/open", "/share/api/links/s_…/open"},
		{"/share/api/uploads/" + session, "/share/api/uploads/ss_…"},
		{"/share/assets/share.js", "/share/assets/share.js"},
		{"/api/v1/items/s_short", "/api/v1/items/s_short"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(Redact(tc.in), token[2:]) || strings.Contains(Redact(tc.in), session[3:]) {
			t.Errorf("%q keeps a secret", tc.in)
		}
	}
}
