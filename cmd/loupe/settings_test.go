package main

import (
	"context"
	"maps"
	"os"
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

// Every variable the configuration reads is documented in settingsTable
// (and so in `loupe help serve` and README.md), and every documented one is
// read — GOGC, the Go runtime's, aside.
func TestSettingsAreDocumented(t *testing.T) {
	loadConfig()
	settingsRead.Lock()
	read := maps.Clone(settingsRead.names)
	settingsRead.Unlock()
	documented := map[string]bool{}
	for _, s := range settingsTable {
		for _, n := range s.Names {
			documented[n] = true
			if !read[n] && n != "GOGC" {
				t.Errorf("%s is documented but never read", n)
			}
		}
	}
	for n := range read {
		if !documented[n] {
			t.Errorf("%s is read but not in settingsTable (loupe help serve, README.md)", n)
		}
	}
	var help strings.Builder
	settingsHelp(&help)
	for n := range documented {
		if !strings.Contains(help.String(), n) {
			t.Errorf("loupe help serve does not list %s", n)
		}
	}
}

// README.md's Configuration table is settingsTable rendered.
func TestReadmeSettingsTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	settingsMarkdown(&want)
	if !strings.Contains(string(readme), want.String()) {
		t.Fatalf("README.md's Configuration table is not settingsTable (go run ./cmd/loupe help serve --markdown prints it); "+
			"it should read:\n%s", want.String())
	}
}

// Bad values are refused together, a line each naming its variable,
// before anything starts.
func TestBadSettingsStopTheStart(t *testing.T) {
	t.Setenv("LOUPE_PG_PORT", "fifty")
	t.Setenv("LOUPE_LIVE_RECORDING_LEASE", "soon")
	t.Setenv("LOUPE_S3_PATH_STYLE", "maybe")
	t.Setenv("DATABASE_URL", "postgres://loupe.invalid:1/none?connect_timeout=1")
	for _, cmd := range []func(context.Context, config) error{cmdServe, cmdWorker} {
		err := cmd(context.Background(), loadConfig())
		if err == nil {
			t.Fatal("started with bad settings")
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "LOUPE_PG_PORT: ") ||
			!strings.HasPrefix(lines[1], "LOUPE_S3_PATH_STYLE: ") && !strings.HasPrefix(lines[1], "LOUPE_LIVE_RECORDING_LEASE: ") {
			t.Fatalf("refused with:\n%v", err)
		}
	}
}
