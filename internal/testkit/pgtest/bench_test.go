package pgtest

import (
	"context"
	"testing"
)

// BenchmarkCloneDrop measures what DB costs per test once the template
// exists: a clone and its drop.
func BenchmarkCloneDrop(b *testing.B) {
	s, err := serverFor(AdminURL(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		name := "loupe_t_" + randomHex(8)
		if err := s.clone(ctx, name); err != nil {
			b.Fatal(err)
		}
		if err := s.drop(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
}
