// Package reqlog carries a request's logger, tagged with its request id, in
// the context, so that an error logged deep in a resolver can be matched to
// the response the client got.
package reqlog

import (
	"context"
	"log/slog"
)

type key struct{}

// With returns ctx carrying l.
func With(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, key{}, l)
}

// From returns the request's logger, or the default logger.
func From(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(key{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
