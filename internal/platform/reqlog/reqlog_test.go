package reqlog_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/platform/reqlog"
)

func TestFromTagsTheRequestID(t *testing.T) {
	var buf bytes.Buffer
	base := slog.New(slog.NewTextHandler(&buf, nil))
	ctx := reqlog.With(context.Background(), base, "abc123")
	reqlog.From(ctx).Error("boom")
	reqlog.From(ctx).Error("again") // the same tagged logger
	if got := strings.Count(buf.String(), "request_id=abc123"); got != 2 {
		t.Fatalf("log %q: %d lines tagged, want 2", buf.String(), got)
	}
	buf.Reset()
	reqlog.From(reqlog.With(context.Background(), base, "")).Error("untagged")
	if strings.Contains(buf.String(), "request_id") {
		t.Fatalf("log %q: tagged without an id", buf.String())
	}
	if reqlog.From(context.Background()) != slog.Default() {
		t.Fatal("a context without a logger does not give the default logger")
	}
}
