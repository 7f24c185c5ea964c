package graph

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// @private fields are left out of introspection — by __type, by __schema
// and through an interface's possible types — yet operations that select
// them validate; the schema's other fields are all still shown.
func TestPrivateFieldsAreHidden(t *testing.T) {
	e := NewEngine(NewExecutableSchema(Config{}), DefaultOptions()).Exec
	run := func(query string) map[string]any {
		t.Helper()
		ctx := graphql.StartOperationTrace(context.Background())
		oc, errs := e.CreateOperationContext(ctx, &graphql.RawParams{Query: query})
		if errs != nil {
			t.Fatalf("%s: %v", query, errs)
		}
		h, ctx := e.DispatchOperation(ctx, oc)
		resp := h(ctx)
		if len(resp.Errors) > 0 {
			t.Fatalf("%s: %v", query, resp.Errors)
		}
		var out map[string]any
		if err := json.Unmarshal(resp.Data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	names := func(fields any) []string {
		var out []string
		for _, f := range fields.([]any) {
			out = append(out, f.(map[string]any)["name"].(string))
		}
		return out
	}
	whole := NewExecutableSchema(Config{}).Schema()
	for _, typ := range []string{"Item", "FolderContent"} {
		got := names(run(`{ __type(name: "` + typ + `") { fields { name } } }`)["__type"].(map[string]any)["fields"])
		if slices.Contains(got, "record") {
			t.Errorf("%s.record is shown: %v", typ, got)
		}
		if want := len(whole.Types[typ].Fields) - 1; len(got) != want {
			t.Errorf("%s shows %d fields, want %d", typ, len(got), want)
		}
	}
	node := run(`{ __type(name: "Node") { possibleTypes { name fields { name } } } }`)["__type"].(map[string]any)
	for _, p := range node["possibleTypes"].([]any) {
		if p := p.(map[string]any); p["name"] == "Item" && slices.Contains(names(p["fields"]), "record") {
			t.Error("Item.record is shown among Node's possible types")
		}
	}
	for _, d := range run(`{ __schema { directives { name } } }`)["__schema"].(map[string]any)["directives"].([]any) {
		if d.(map[string]any)["name"] == "private" {
			t.Error("the @private directive is shown")
		}
	}
	// Selecting them still validates (the stored REST documents do).
	ctx := graphql.StartOperationTrace(context.Background())
	if _, errs := e.CreateOperationContext(ctx, &graphql.RawParams{Query: `{ item(id: "x") { record } folderContent(folderId: "x") { record } }`}); errs != nil {
		t.Fatalf("selecting @private fields: %v", errs)
	}
}
