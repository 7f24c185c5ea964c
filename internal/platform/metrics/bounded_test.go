package metrics

import (
	"fmt"
	"strings"
	"testing"
)

// Operation names past the cap, and names that are no identifiers, share
// one series; unnamed operations theirs.
func TestOperationNamesAreCapped(t *testing.T) {
	m := New()
	seen := map[*gqlSeries]bool{}
	for i := range 1000 {
		seen[m.gql.operation(fmt.Sprintf("Op%d", i))] = true
	}
	if len(seen) != MaxOperations+1 {
		t.Fatalf("1000 names made %d series, want %d (the cap and other)", len(seen), MaxOperations+1)
	}
	other := m.gql.operation(Other)
	for _, name := range []string{"Op999", "not a name", strings.Repeat("x", 65), "Op1000"} {
		if m.gql.operation(name) != other {
			t.Errorf("%q is not counted as other", name)
		}
	}
	if m.gql.operation("Op0") == other || m.gql.operation("") != m.gql.operation(Anonymous) {
		t.Errorf("a name under the cap, or an anonymous operation, counted as other")
	}
}
