package main

import (
	"context"
	"strings"
	"testing"
)

// A bad setting stops serve before it opens anything: a server that
// ignored LOUPE_API_KEY_HEADERS would answer 401 to every integration
// relying on it, one that ignored LOUPE_CORS_ORIGINS would lock out the
// frontends it names, and neither would say why.
func TestServeRefusesABadSetting(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"LOUPE_API_KEY_HEADERS", "X-Request-Id"},
		{"LOUPE_API_KEY_HEADERS", "x key"},
		{"LOUPE_CORS_ORIGINS", "https://app.example.com/"},
		{"LOUPE_CORS_ORIGINS", "*,https://app.example.com"},
		{"LOUPE_METRICS_ADDR", "127.0.0.1:notaport"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			// Never reached: the settings are checked first.
			t.Setenv("DATABASE_URL", "postgres://loupe.invalid:1/none?connect_timeout=1")
			err := cmdServe(context.Background(), loadConfig())
			if err == nil || !strings.HasPrefix(err.Error(), c.name+": ") {
				t.Fatalf("serve with %s=%q: %v, want the setting refused", c.name, c.value, err)
			}
		})
	}
}
