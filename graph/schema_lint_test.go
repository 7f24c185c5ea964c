package graph_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// schemaLintRules are the graphql-schema-linter rules the schema is held to,
// with 0 findings (docs/graphql-schema.md says why these and not the others):
// everything described, deprecations explained, the Relay connection shapes,
// and names in the usual case.
var schemaLintRules = []string{
	"types-have-descriptions",
	"fields-have-descriptions",
	"arguments-have-descriptions",
	"input-object-values-have-descriptions",
	"enum-values-have-descriptions",
	"deprecations-have-a-reason",
	"relay-page-info-spec",
	"relay-connection-types-spec",
	"relay-connection-arguments-spec",
	"types-are-capitalized",
	"input-object-values-are-camel-cased",
	"defined-types-are-used",
}

type lintFinding struct {
	Message  string `json:"message"`
	Rule     string `json:"rule"`
	Location struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"location"`
}

// lintSchema runs the pinned graphql-schema-linter over files with the
// chosen rules and answers its findings.
func lintSchema(t *testing.T, files ...string) []lintFinding {
	t.Helper()
	out := webtest.Node(t, 2*time.Minute, "testdata/schema_lint.cjs", nil,
		append([]string{strings.Join(schemaLintRules, ",")}, files...)...)
	var res struct {
		Exit   int           `json:"exit"`
		Errors []lintFinding `json:"errors"`
		Stderr string        `json:"stderr"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("the linter's answer: %v\n%s", err, out)
	}
	if res.Stderr != "" || (res.Exit != 0) != (len(res.Errors) > 0) {
		t.Fatalf("the linter did not run cleanly (exit %d, %d findings):\n%s", res.Exit, len(res.Errors), res.Stderr)
	}
	for _, f := range res.Errors {
		if f.Rule == "graphql-syntax-error" || f.Rule == "invalid-graphql-schema" {
			t.Fatalf("the linter could not read the schema: %s (%s:%d)", f.Message, f.Location.File, f.Location.Line)
		}
	}
	return res.Errors
}

// TestSchemaLint holds the schema (graph/schema/*.graphqls, as gqlgen reads
// it) to graphql-schema-linter's chosen rules with no finding: every type,
// field, argument, input field and enum value described, PageInfo and the
// connections as Relay has them. No rule may be switched off inside the
// schema (the linter's "# lint-disable" comments).
func TestSchemaLint(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("schema", "*.graphqls"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files (%v)", err)
	}
	inline := regexp.MustCompile(`(?m)^\s*#\s*lint-`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if inline.Match(b) {
			t.Errorf("%s switches a lint rule off inline; describe the member instead", f)
		}
	}
	findings := lintSchema(t, files...)
	for _, f := range findings {
		t.Errorf("%s:%d: %s: %s", f.Location.File, f.Location.Line, f.Rule, f.Message)
	}
	if n := len(findings); n > 0 {
		t.Errorf("graphql-schema-linter: %d findings (docs/graphql-schema.md)", n)
	}
}

// TestSchemaLintRulesAreOn lints a schema made to break every chosen rule,
// so that a rule the linter does not know, or one that finds nothing, fails
// here rather than passing TestSchemaLint silently.
func TestSchemaLintRulesAreOn(t *testing.T) {
	var found []string
	for _, f := range lintSchema(t, filepath.Join("testdata", "schema_lint_bad.graphql")) {
		found = append(found, f.Rule)
	}
	for _, r := range schemaLintRules {
		if !slices.Contains(found, r) {
			t.Errorf("rule %s found nothing in testdata/schema_lint_bad.graphql", r)
		}
	}
}
