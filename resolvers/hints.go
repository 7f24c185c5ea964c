package resolvers

import (
	"context"
	"sync/atomic"

	"github.com/loupe-mam/loupe/loaders"
)

// loaders returns the request's loaders (loaders.Middleware puts them in).
func (r *Resolver) loaders(ctx context.Context) *loaders.Loaders { return loaders.For(ctx) }

// hints returns the loaders a list hints what its elements will ask for.
// Hints make batching exact and cheap; a list that gives none still
// batches (loaders/doc.go). Tests prove that by forgetting every hint
// (forgetHints): the hints then go to loaders nobody loads from.
func (r *Resolver) hints(ctx context.Context) *loaders.Loaders {
	if forgetHints.Load() {
		return loaders.New(r.Store)
	}
	return loaders.For(ctx)
}

// forgetHints is set by tests only (export_test.go).
var forgetHints atomic.Bool
