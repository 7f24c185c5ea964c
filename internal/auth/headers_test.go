package auth_test

import (
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/auth"
)

func TestParseKeyHeaders(t *testing.T) {
	for _, c := range []struct {
		setting string
		want    []string
	}{
		{"", nil},
		{" , ,", nil},
		{"x-vendor-key", []string{"X-Vendor-Key"}},
		{" X-One , x-two,X-ONE ", []string{"X-One", "X-Two"}},
		// Always accepted, so dropped.
		{"authorization, X-API-Key, x-other", []string{"X-Other"}},
	} {
		got, err := auth.ParseKeyHeaders(c.setting)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseKeyHeaders(%q) = %q, %v; want %q", c.setting, got, err, c.want)
		}
	}
	for _, bad := range []string{"X Key", "X-Key:", "x-key, a/b", "X-Key\x00", "ünï", "x-request-id", "X-Loupe-Tenant", "cookie", "Host"} {
		if got, err := auth.ParseKeyHeaders(bad); err == nil {
			t.Errorf("ParseKeyHeaders(%q) = %q, want an error", bad, got)
		}
	}
}

func TestCredential(t *testing.T) {
	extra := []string{"X-Vendor-Key", "X-Second"}
	for _, c := range []struct {
		name    string
		headers map[string]string
		extra   []string
		want    string
	}{
		{"none", nil, extra, ""},
		{"authorization bearer", map[string]string{"Authorization": "Bearer k1"}, extra, "k1"},
		{"bearer in any case", map[string]string{"Authorization": "bEaReR  k1 "}, extra, "k1"},
		{"x-api-key", map[string]string{"X-API-Key": " k2 "}, extra, "k2"},
		{"x-api-key first", map[string]string{"X-API-Key": "k2", "Authorization": "Bearer k1", "X-Vendor-Key": "k3"}, extra, "k2"},
		{"authorization before extra", map[string]string{"Authorization": "Bearer k1", "X-Vendor-Key": "k3"}, extra, "k1"},
		{"extra header", map[string]string{"X-Vendor-Key": "k3"}, extra, "k3"},
		{"extra header, bearer", map[string]string{"x-vendor-key": "Bearer k3"}, extra, "k3"},
		{"extra header after a basic authorization", map[string]string{"Authorization": "Basic dTpw", "X-Vendor-Key": "k3"}, extra, "k3"},
		{"second extra header", map[string]string{"X-Second": "k4"}, extra, "k4"},
		{"extra headers in their order", map[string]string{"X-Second": "k4", "X-Vendor-Key": "k3"}, extra, "k3"},
		{"blank extra header skipped", map[string]string{"X-Vendor-Key": "  ", "X-Second": "k4"}, extra, "k4"},
		{"extra header not configured", map[string]string{"X-Vendor-Key": "k3"}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			for k, v := range c.headers {
				r.Header.Set(k, v)
			}
			if got := auth.Credential(r, c.extra); got != c.want {
				t.Fatalf("Credential = %q, want %q", got, c.want)
			}
		})
	}
}
