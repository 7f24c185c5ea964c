package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/reqlog"
	"github.com/loupe-mam/loupe/store"
)

// Internal errors are logged, except those of a request its client gave up
// (every running field reports the cancellation); every kind keeps its
// code.
func TestPresentErrorLogsServerFailuresOnly(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name   string
		ctx    context.Context
		err    error
		code   string
		logged bool
	}{
		{"database failure", context.Background(), errors.New("store: boom"), "INTERNAL", true},
		{"client went away", canceled, fmt.Errorf("store: unable to list: %w", context.Canceled), "INTERNAL", false},
		{"cancellation while the request is live", context.Background(), context.Canceled, "INTERNAL", true},
		{"deadline", canceled, context.DeadlineExceeded, "INTERNAL", true},
		{"kind", context.Background(), store.NotFound(), "NOT_FOUND", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			ctx := reqlog.With(c.ctx, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
			got := PresentError(ctx, c.err)
			if got.Extensions["code"] != c.code {
				t.Errorf("code %v, want %s", got.Extensions["code"], c.code)
			}
			if logged := strings.Contains(buf.String(), "request failed"); logged != c.logged {
				t.Errorf("logged %v, want %v: %q", logged, c.logged, buf.String())
			}
		})
	}
}
