package upload

import (
	"context"
	"log/slog"

	xslog "golang.org/x/exp/slog"
)

// tusLogger hands tusd's warnings and errors to the server's logger (tusd
// logs with golang.org/x/exp/slog; its per-request information is the
// request log's already).
func tusLogger(l *slog.Logger) *xslog.Logger {
	return xslog.New(tusHandler{l: l.With("component", "tus")})
}

type tusHandler struct {
	l     *slog.Logger
	attrs []any
}

func (h tusHandler) Enabled(_ context.Context, level xslog.Level) bool {
	return level >= xslog.LevelWarn
}

func (h tusHandler) Handle(ctx context.Context, r xslog.Record) error {
	args := append([]any(nil), h.attrs...)
	r.Attrs(func(a xslog.Attr) bool {
		args = append(args, a.Key, a.Value.String())
		return true
	})
	level := slog.Level(r.Level)
	if r.Message == "BodyReadError" {
		level = slog.LevelWarn // a client that went away: it resumes
	}
	h.l.Log(ctx, level, r.Message, args...)
	return nil
}

func (h tusHandler) WithAttrs(attrs []xslog.Attr) xslog.Handler {
	out := tusHandler{l: h.l, attrs: append([]any(nil), h.attrs...)}
	for _, a := range attrs {
		out.attrs = append(out.attrs, a.Key, a.Value.String())
	}
	return out
}

func (h tusHandler) WithGroup(string) xslog.Handler { return h }
