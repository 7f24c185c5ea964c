package graph_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// The breaking-change check (docs/graphql-schema.md, "Breaking changes"):
// the schema is compared with the last released one by
// @graphql-inspector/core, and a breaking change fails unless
// released/breaking.txt declares it.

var updateReleased = flag.Bool("update-released", false,
	"at a release: write released/schema.graphql from schema/*.graphqls and empty released/breaking.txt")

const (
	releasedSchemaFile   = "released/schema.graphql"
	declaredBreakingFile = "released/breaking.txt"
)

const releasedSchemaHeader = `# The GraphQL schema of the last Loupe release: graph/schema/*.graphqls in
# file name order, as gqlgen reads them. Written at a release by
#   make released-schema
# (go test ./graph -run '^TestSchemaBreaking$' -update-released), never by
# hand: TestSchemaBreaking compares the schema with it and fails on a
# breaking change graph/released/breaking.txt does not declare
# (docs/graphql-schema.md, "Breaking changes").
`

const declaredBreakingHeader = `# Breaking changes to the GraphQL schema since the last release
# (graph/released/schema.graphql), accepted on purpose. One a line:
#
#   <CHANGE_TYPE> <path>: <why, and what clients do instead>
#
# as TestSchemaBreaking prints it for an undeclared one, e.g.
#
#   FIELD_REMOVED Item.legacyName: replaced by Item.name since 2026-03; no integration reads it
#
# (a change without a path, such as SCHEMA_QUERY_TYPE_CHANGED, is the type
# alone before the colon). A line that matches no change fails the test too.
# ` + "`make released-schema`" + ` empties this file at a release
# (docs/graphql-schema.md, "Breaking changes").
`

// schemaChange is one change the inspector reports.
type schemaChange struct {
	Type    string `json:"type"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Level   string `json:"level"` // BREAKING, DANGEROUS or NON_BREAKING
	Reason  string `json:"reason"`
}

// key is how released/breaking.txt names the change.
func (c schemaChange) key() string {
	return strings.TrimSpace(c.Type + " " + c.Path)
}

// declaration is one line of released/breaking.txt.
type declaration struct {
	Key, Reason string
	Line        int
}

// currentSchema is the schema as gqlgen reads it, the files concatenated in
// name order, each after a comment naming it: what released/schema.graphql
// holds once released.
func currentSchema(t *testing.T) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("schema", "*.graphqls"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files (%v)", err)
	}
	slices.Sort(files)
	var b bytes.Buffer
	b.WriteString(releasedSchemaHeader)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n# ---- graph/%s\n\n", filepath.ToSlash(f))
		b.Write(bytes.TrimRight(src, "\n"))
		b.WriteString("\n")
	}
	return b.Bytes()
}

// diffSchemas runs the inspector's diff of oldFile → newFile.
func diffSchemas(t *testing.T, oldFile, newFile string) []schemaChange {
	t.Helper()
	out := webtest.Node(t, 2*time.Minute, "testdata/schema_diff.cjs", nil, oldFile, newFile)
	var res struct {
		Changes []schemaChange `json:"changes"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("the inspector's answer: %v\n%s", err, out)
	}
	for _, c := range res.Changes {
		switch c.Level {
		case "BREAKING", "DANGEROUS", "NON_BREAKING":
		default:
			t.Fatalf("the inspector answered an unknown level %q for %s", c.Level, c.Message)
		}
	}
	return res.Changes
}

// parseDeclarations reads released/breaking.txt's lines: "# …" and blank
// lines are comments; every other is "<TYPE> [path]: <reason>".
func parseDeclarations(src []byte) ([]declaration, error) {
	var out []declaration
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, reason, ok := strings.Cut(line, ":")
		reason = strings.TrimSpace(reason)
		fields := strings.Fields(head)
		if !ok || reason == "" || len(fields) < 1 || len(fields) > 2 {
			return nil, fmt.Errorf("line %d: want \"<CHANGE_TYPE> <path>: <reason>\", got %q", n, line)
		}
		key := strings.Join(fields, " ")
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("line %d: %s is declared already on line %d", n, key, first)
		}
		seen[key] = n
		out = append(out, declaration{Key: key, Reason: reason, Line: n})
	}
	return out, sc.Err()
}

// checkBreaking sorts the breaking changes into the undeclared ones, and
// answers the declarations that match no breaking change (stale).
func checkBreaking(changes []schemaChange, decls []declaration) (undeclared []schemaChange, stale []declaration) {
	declared := map[string]bool{}
	for _, d := range decls {
		declared[d.Key] = true
	}
	matched := map[string]bool{}
	for _, c := range changes {
		if c.Level != "BREAKING" {
			continue
		}
		if declared[c.key()] {
			matched[c.key()] = true
		} else {
			undeclared = append(undeclared, c)
		}
	}
	for _, d := range decls {
		if !matched[d.Key] {
			stale = append(stale, d)
		}
	}
	return undeclared, stale
}

// TestSchemaBreaking compares the schema with the last released one
// (released/schema.graphql): a breaking change fails unless
// released/breaking.txt declares it, and a declaration no change matches
// fails too. Dangerous and safe changes are logged. With -update-released
// it writes the snapshot from the schema instead, and empties the
// declarations (a release).
func TestSchemaBreaking(t *testing.T) {
	current := currentSchema(t)
	if *updateReleased {
		if err := os.MkdirAll(filepath.Dir(releasedSchemaFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(releasedSchemaFile, current, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(declaredBreakingFile, []byte(declaredBreakingHeader), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote graph/%s from graph/schema/*.graphqls and emptied graph/%s", releasedSchemaFile, declaredBreakingFile)
		return
	}
	if _, err := os.Stat(releasedSchemaFile); err != nil {
		t.Fatalf("no released schema (%v): at a release, `make released-schema` writes it", err)
	}
	declSrc, err := os.ReadFile(declaredBreakingFile)
	if err != nil {
		t.Fatalf("%v: it lists the breaking changes accepted since the release (`make released-schema` writes it empty)", err)
	}
	decls, err := parseDeclarations(declSrc)
	if err != nil {
		t.Fatalf("graph/%s: %v", declaredBreakingFile, err)
	}

	cur := filepath.Join(t.TempDir(), "schema.graphql")
	if err := os.WriteFile(cur, current, 0o644); err != nil {
		t.Fatal(err)
	}
	changes := diffSchemas(t, releasedSchemaFile, cur)

	counts := map[string]int{}
	for _, c := range changes {
		counts[c.Level]++
		if c.Level != "BREAKING" {
			t.Logf("%s: %s (%s)", strings.ToLower(c.Level), c.Message, c.key())
		}
	}
	undeclared, stale := checkBreaking(changes, decls)
	for _, c := range changes {
		if c.Level == "BREAKING" && !slices.Contains(undeclared, c) {
			t.Logf("breaking, declared: %s (%s)", c.Message, c.key())
		}
	}
	for _, c := range undeclared {
		why := ""
		if c.Reason != "" {
			why = "\n    " + c.Reason
		}
		t.Errorf("breaking change since the released schema: %s%s\n"+
			"  Keep the old shape (deprecate with @deprecated(reason: …) and add the new beside it), or\n"+
			"  accept it by adding this line, with the reason, to graph/%s:\n"+
			"    %s: <why, and what clients do instead>",
			c.Message, why, declaredBreakingFile, c.key())
	}
	for _, d := range stale {
		t.Errorf("graph/%s:%d declares %s, which matches no breaking change since the released schema: remove the line",
			declaredBreakingFile, d.Line, d.Key)
	}
	t.Logf("since the released schema: %d breaking (%d declared), %d dangerous, %d safe",
		counts["BREAKING"], counts["BREAKING"]-len(undeclared), counts["DANGEROUS"], counts["NON_BREAKING"])
}

// TestSchemaBreakingFound proves the check finds what it must: a copy of
// the schema with a field removed and another's type changed is reported
// as breaking (so that an inspector that stops finding anything fails
// here), an added field is safe, a change to a @private field is no
// change, and the declarations are matched as TestSchemaBreaking does.
func TestSchemaBreakingFound(t *testing.T) {
	src := currentSchema(t)
	doc, err := parser.ParseSchema(&ast.Source{Name: "schema.graphql", Input: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	field := func(typ, name string) (*ast.Definition, int) {
		t.Helper()
		for _, d := range doc.Definitions {
			if d.Name != typ {
				continue
			}
			for i, f := range d.Fields {
				if f.Name == name {
					return d, i
				}
			}
		}
		t.Fatalf("the schema has no %s.%s to break (choose another field here)", typ, name)
		return nil, 0
	}
	// Breaking: a field removed, a field's type changed.
	pageInfo, i := field("PageInfo", "hasPreviousPage")
	pageInfo.Fields = slices.Delete(pageInfo.Fields, i, i+1)
	_, i = field("PageInfo", "hasNextPage")
	pageInfo.Fields[i].Type = ast.NamedType("String", nil)
	// Safe: a field added.
	pageInfo.Fields = append(pageInfo.Fields, &ast.FieldDefinition{
		Name: "pageSize", Description: "Added by the test.", Type: ast.NamedType("Int", nil),
	})
	// No change: a @private field's type changed.
	var private *ast.FieldDefinition
	for _, d := range doc.Definitions {
		for _, f := range d.Fields {
			if private == nil && f.Directives.ForName("private") != nil {
				private = f
			}
		}
	}
	if private == nil {
		t.Fatal("the schema has no @private field")
	}
	private.Type = ast.NamedType("Int", nil)

	var broken bytes.Buffer
	formatter.NewFormatter(&broken).FormatSchemaDocument(doc)
	dir := t.TempDir()
	oldFile, newFile := filepath.Join(dir, "old.graphql"), filepath.Join(dir, "new.graphql")
	if err := os.WriteFile(oldFile, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newFile, broken.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	changes := diffSchemas(t, oldFile, newFile)

	got := map[string]string{}
	for _, c := range changes {
		got[c.key()] = c.Level
		t.Logf("%s: %s (%s)", c.Level, c.Message, c.key())
	}
	want := map[string]string{
		"FIELD_REMOVED PageInfo.hasPreviousPage":  "BREAKING",
		"FIELD_TYPE_CHANGED PageInfo.hasNextPage": "BREAKING",
		"FIELD_ADDED PageInfo.pageSize":           "NON_BREAKING",
	}
	for k, level := range want {
		if got[k] != level {
			t.Errorf("%s: the inspector answered %q, want %s", k, got[k], level)
		}
	}
	for k, level := range got {
		if _, ok := want[k]; !ok && level == "BREAKING" {
			t.Errorf("the inspector reports a breaking change the test did not make: %s", k)
		}
	}

	// Declarations: one declared, one stale, one left undeclared.
	decls, err := parseDeclarations([]byte(declaredBreakingHeader +
		"FIELD_REMOVED PageInfo.hasPreviousPage: the test removed it\n" +
		"FIELD_REMOVED PageInfo.endCursor: not removed\n"))
	if err != nil {
		t.Fatal(err)
	}
	undeclared, stale := checkBreaking(changes, decls)
	if len(undeclared) != 1 || undeclared[0].key() != "FIELD_TYPE_CHANGED PageInfo.hasNextPage" {
		t.Errorf("undeclared: %+v, want the type change alone", undeclared)
	}
	if len(stale) != 1 || stale[0].Key != "FIELD_REMOVED PageInfo.endCursor" {
		t.Errorf("stale: %+v, want the endCursor line alone", stale)
	}
	for _, bad := range []string{
		"FIELD_REMOVED PageInfo.hasPreviousPage\n",
		"FIELD_REMOVED PageInfo.hasPreviousPage:   \n",
		"FIELD_REMOVED PageInfo hasPreviousPage extra: why\n",
		"FIELD_REMOVED A.b: why\nFIELD_REMOVED A.b: again\n",
	} {
		if _, err := parseDeclarations([]byte(bad)); err == nil {
			t.Errorf("parseDeclarations(%q) took it", bad)
		}
	}
}
