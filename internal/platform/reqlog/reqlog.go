// Package reqlog carries a request's logger, tagged with its request id, in
// the context, so that an error logged deep in a resolver can be matched to
// the response the client got.
package reqlog

import (
	"context"
	"log/slog"
	"sync"
)

type key struct{}

// entry makes the tagged logger when it is first asked for: most requests
// log nothing but their request line, and tagging a logger formats its
// attributes (a few allocations on every request otherwise).
type entry struct {
	base *slog.Logger
	id   string
	once sync.Once
	l    *slog.Logger
}

// With returns ctx carrying base tagged with the request id (when id is
// not empty).
func With(ctx context.Context, base *slog.Logger, id string) context.Context {
	return context.WithValue(ctx, key{}, &entry{base: base, id: id})
}

// From returns the request's logger, or the default logger.
func From(ctx context.Context) *slog.Logger {
	e, ok := ctx.Value(key{}).(*entry)
	if !ok {
		return slog.Default()
	}
	e.once.Do(func() {
		e.l = e.base
		if e.id != "" {
			e.l = e.base.With("request_id", e.id)
		}
	})
	return e.l
}
