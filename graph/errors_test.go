package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/scalar"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
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
		{"kind", context.Background(), loupe.NotFound(), "NOT_FOUND", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			ctx := reqlog.With(c.ctx, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})), "")
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

// An input of the wrong type is the client's mistake, named by where it is
// in the field's arguments.
func TestPresentInputErrors(t *testing.T) {
	cases := []struct {
		path ast.Path
		want string
	}{
		{ast.Path{ast.PathName("createMdf"), ast.PathName("input"), ast.PathName("label")}, "label: must be a string"},
		{ast.Path{ast.PathName("createOptionList"), ast.PathName("input"), ast.PathName("alternatives"), ast.PathIndex(2),
			ast.PathName("value")}, "alternatives[2].value: must be a string"},
		{ast.Path{ast.PathName("replaceBookmarks"), ast.PathName("input"), ast.PathIndex(1), ast.PathName("sortKey")},
			"[1].sortKey: must be a string"},
		{ast.Path{ast.PathName("search"), ast.PathName("searchString")}, "searchString: must be a string"},
		{nil, "must be a string"},
	}
	for _, c := range cases {
		err := &gqlerror.Error{Path: c.path, Err: &scalar.InputError{Message: "must be a string"}}
		got := PresentError(context.Background(), err)
		if got.Message != c.want || got.Extensions["code"] != "BAD_USER_INPUT" || got.Extensions["statusCode"] != 400 {
			t.Errorf("%v: %q %v, want %q BAD_USER_INPUT 400", c.path, got.Message, got.Extensions, c.want)
		}
	}
}
