package main

import (
	"context"
	"strings"
	"testing"
)

// A bad LOUPE_API_KEY_HEADERS stops serve before it opens anything: a
// server that ignored it would answer 401 to every integration relying on
// it.
func TestServeRefusesABadKeyHeaderSetting(t *testing.T) {
	for _, bad := range []string{"X-Request-Id", "x key"} {
		t.Setenv("LOUPE_API_KEY_HEADERS", bad)
		// Never reached: the setting is checked first.
		t.Setenv("DATABASE_URL", "postgres://loupe.invalid:1/none?connect_timeout=1")
		err := cmdServe(context.Background(), loadConfig())
		if err == nil || !strings.HasPrefix(err.Error(), "LOUPE_API_KEY_HEADERS: ") {
			t.Fatalf("serve with LOUPE_API_KEY_HEADERS=%q: %v, want the setting refused", bad, err)
		}
	}
}
