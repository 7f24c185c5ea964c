package resolvers_test

import (
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const presetsQuery = `query($size: Int) { presets(size: $size) { l { id name type usage { type id } } i s t } }`

// The preset list's usage is batched: listing many presets costs the
// statements of listing one. preset(id) and renderSequenceRequest(id)
// answer null for another tenant's ids, as for missing ones.
func TestGraphQLPresets(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	create := `mutation($in: PresetInput!) { createPreset(input: $in) { id type } }`
	var first struct{ CreatePreset struct{ ID, Type string } }
	a.GraphQL(t, create, map[string]any{"in": map[string]any{"name": "one"}}).OK(&first)
	if first.CreatePreset.Type != "unresolved" {
		t.Fatalf("created: %+v", first)
	}
	count := func() int64 {
		// The presets' dry runs (check_preset jobs) write through the same
		// counted pool: done first, so that only the listing is counted.
		for deadline := time.Now().Add(30 * time.Second); api.Count(t, `SELECT count(*) FROM river_job
			WHERE kind = 'check_preset' AND state NOT IN ('completed', 'discarded', 'cancelled')`) > 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the presets' dry runs did not end in 30 s")
			}
		}
		api.Statements.Reset()
		a.GraphQL(t, presetsQuery, map[string]any{"size": 100}).OK(nil)
		return api.Statements.Count()
	}
	one := count()
	for _, n := range []string{"two", "three", "four", "five"} {
		a.GraphQL(t, create, map[string]any{"in": map[string]any{"name": n}}).OK(nil)
	}
	if five := count(); five != one {
		t.Fatalf("listing 5 presets took %d statements, 1 took %d: usage is not batched", five, one)
	}

	q := `query($id: ID!) { preset(id: $id) { name } renderSequenceRequest(id: $id) { id } }`
	var mine, theirs struct {
		Preset                *struct{ Name string }
		RenderSequenceRequest *struct{ ID string }
	}
	a.GraphQL(t, q, map[string]any{"id": first.CreatePreset.ID}).OK(&mine)
	b.GraphQL(t, q, map[string]any{"id": first.CreatePreset.ID}).OK(&theirs)
	if mine.Preset == nil || mine.Preset.Name != "one" || theirs.Preset != nil || theirs.RenderSequenceRequest != nil {
		t.Fatalf("a: %+v; b: %+v", mine, theirs)
	}
	b.GraphQL(t, `mutation($id: ID!) { deletePreset(id: $id) { id } }`, map[string]any{"id": first.CreatePreset.ID}).
		ErrorCode("NOT_FOUND")
}
