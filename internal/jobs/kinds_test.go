package jobs_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/jobs"
)

// Kinds lists every kind kinds.go defines, once: a kind left out would
// have no queue series until its first job (docs/operations.md, "Metrics").
func TestKindsListsEveryKind(t *testing.T) {
	src, err := os.ReadFile("kinds.go")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`\) Kind\(\) string \{ return "([a-z_]+)" \}`).FindAllStringSubmatch(string(src), -1) {
		want = append(want, m[1])
	}
	got := slices.Clone(jobs.Kinds)
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("jobs.Kinds = %v, kinds.go defines %v", got, want)
	}
}
