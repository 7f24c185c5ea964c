package resolvers

import (
	"context"
	"testing"

	"github.com/loupe-mam/loupe/loaders"
	"github.com/loupe-mam/loupe/store"
)

// Every connection's PageInfo is Relay's: hasPreviousPage when the page was
// asked with an after cursor, startCursor and endCursor the first and last
// edge's (null on an empty page), hasNextPage as the store said.
func TestPageInfo(t *testing.T) {
	for _, tc := range []struct {
		continued, more bool
		cursors         []string
		start, end      string
	}{
		{false, false, nil, "", ""},
		{true, false, nil, "", ""},
		{false, true, []string{"a", "b", "c"}, "a", "c"},
		{true, false, []string{"x"}, "x", "x"},
	} {
		pi := pageInfo(tc.continued, tc.more, tc.cursors)
		if pi.HasPreviousPage != tc.continued || pi.HasNextPage != tc.more {
			t.Errorf("%+v: hasPreviousPage %v, hasNextPage %v", tc, pi.HasPreviousPage, pi.HasNextPage)
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		if (pi.StartCursor == nil) != (len(tc.cursors) == 0) || (pi.EndCursor == nil) != (len(tc.cursors) == 0) ||
			str(pi.StartCursor) != tc.start || str(pi.EndCursor) != tc.end {
			t.Errorf("%+v: startCursor %v, endCursor %v", tc, str(pi.StartCursor), str(pi.EndCursor))
		}
	}
}

// The transfers connection answers the same PageInfo, its nextToken being
// endCursor while more follow.
func TestTransferConnectionPageInfo(t *testing.T) {
	ctx := loaders.NewContext(context.Background(), nil) // hints only: nothing is loaded
	list := []*store.Transfer{{ID: "t1", ItemID: "i"}, {ID: "t2", ItemID: "i"}}
	c := transferConnection(ctx, list, true, true)
	if pi := c.PageInfo; !pi.HasPreviousPage || !pi.HasNextPage || *pi.StartCursor != "t1" || *pi.EndCursor != "t2" || c.NextToken != "t2" {
		t.Fatalf("pageInfo %+v, nextToken %q", pi, c.NextToken)
	}
	c = transferConnection(ctx, nil, false, false)
	if pi := c.PageInfo; pi.HasPreviousPage || pi.HasNextPage || pi.StartCursor != nil || pi.EndCursor != nil || c.NextToken != "" {
		t.Fatalf("empty page: pageInfo %+v, nextToken %q", pi, c.NextToken)
	}
}
