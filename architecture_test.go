package loupe_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// processStarters are the calls that start a process, by import path.
var processStarters = map[string][]string{
	"os/exec": {"Command", "CommandContext"},
	"os":      {"StartProcess"},
	"syscall": {"ForkExec", "Exec"},
}

// startersAllowed are where processes may be started: internal/tool, which
// runs every external program the product starts (nice, process group,
// stderr tail, kept helpers), and the tests' and the benchmark's own
// tooling.
var startersAllowed = []string{"internal/tool/", "internal/testkit/", "internal/bench/", "cmd/loupe-bench/"}

// Every program the product runs goes through internal/tool.
func TestProcessesStartInTool(t *testing.T) {
	fset := token.NewFileSet()
files:
	for _, path := range sourceFiles(t, ".") {
		slash := filepath.ToSlash(path)
		for _, dir := range startersAllowed {
			if strings.HasPrefix(slash, dir) {
				continue files
			}
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, found := range processStarts(f) {
			pos := fset.Position(found.Pos())
			t.Errorf("%s:%d: %s starts a process outside internal/tool: run it with tool.Run, tool.Start, tool.StartKept or a tool.Pool",
				pos.Filename, pos.Line, found.name)
		}
	}
}

type start struct {
	*ast.SelectorExpr
	name string
}

// processStarts are f's uses of processStarters.
func processStarts(f *ast.File) []start {
	banned := map[string]map[string]bool{} // by the name f imports the package as
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		names, ok := processStarters[path]
		if !ok {
			continue
		}
		local := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		banned[local] = map[string]bool{}
		for _, n := range names {
			banned[local][n] = true
		}
	}
	var found []start
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && banned[pkg.Name][sel.Sel.Name] {
			found = append(found, start{sel, pkg.Name + "." + sel.Sel.Name})
		}
		return true
	})
	return found
}

// These tests hold the floor plan (README "Layout", shared/DESIGN.md): what
// imports what, where workers live, and a map that lists every package.

const module = "github.com/loupe-mam/loupe"

// The product binary links neither bench tooling nor test support.
func TestProductLinksNoBenchOrTestKit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./cmd/loupe").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module+"/internal/bench") || strings.HasPrefix(p, module+"/internal/testkit") {
			t.Errorf("cmd/loupe links %s", p)
		}
	}
}

// The API layer holds resolvers only: no job queue, no workers; the
// composition root (server/) makes the resolver root for the HTTP handler
// alone and wires workers to services.
func TestWorkersLiveBesideTheirServices(t *testing.T) {
	for _, dir := range []string{"resolvers", "rest", "graph", "loaders"} {
		for _, f := range sourceFiles(t, dir) {
			if b := read(t, f); strings.Contains(b, "github.com/riverqueue/river") {
				t.Errorf("%s imports River: workers live beside their services, not in the API layer", f)
			}
		}
	}
	var calls []string
	for _, f := range sourceFiles(t, "server") {
		if n := strings.Count(read(t, f), "resolvers.New("); n > 0 {
			calls = append(calls, f)
		}
	}
	if len(calls) != 1 || calls[0] != filepath.Join("server", "app.go") {
		t.Errorf("resolvers.New is called in %v: only the HTTP handler (server/app.go) makes resolvers", calls)
	}
}

// The services below the API never depend on it: a worker or a storage
// package importing rest/, graph/ or resolvers/ would pull the whole API
// into every service (the tus endpoint's error body lives in
// internal/platform/envelope for that reason).
func TestServicesDoNotImportTheAPI(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if strings.HasPrefix(pkg, module+"/internal/testkit") || strings.HasPrefix(pkg, module+"/internal/bench") {
			continue // they drive the API, as a client does
		}
		for _, imp := range strings.Fields(imports) {
			for _, api := range []string{"rest", "graph", "resolvers", "server"} {
				if imp == module+"/"+api {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
}

// Every package is on the README's map.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	readme := read(t, "README.md")
	start := strings.Index(readme, "## Layout")
	if start < 0 {
		t.Fatal("README.md has no Layout section")
	}
	layout := readme[start+len("## Layout"):]
	if end := strings.Index(layout, "\n## "); end >= 0 {
		layout = layout[:end]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z0-9_./{},-]+)/?`").FindAllStringSubmatch(layout, -1) {
		for _, p := range expandBraces(strings.TrimSuffix(m[1], "/")) {
			listed[p] = true
		}
	}
	for _, pkg := range packageDirs(t) {
		if !listed[pkg] {
			t.Errorf("package %s/ is not in README.md's Layout", pkg)
		}
	}
}

// expandBraces expands one {a,b} group: x/{a,b} is x/a and x/b.
func expandBraces(p string) []string {
	open, end := strings.Index(p, "{"), strings.Index(p, "}")
	if open < 0 || end < open {
		return []string{p}
	}
	var out []string
	for _, alt := range strings.Split(p[open+1:end], ",") {
		out = append(out, expandBraces(p[:open]+alt+p[end+1:])...)
	}
	return out
}

// packageDirs are the module's package directories other than its root.
func packageDirs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var dirs []string
	for _, f := range sourceFiles(t, ".") {
		if dir := filepath.ToSlash(filepath.Dir(f)); dir != "." && !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// sourceFiles are the non-test Go files of dir and below (test data,
// hidden directories and Node packages aside).
func sourceFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != dir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every page of docs/ is in its index.
func TestDocsIndexListsEveryPage(t *testing.T) {
	index := read(t, filepath.Join("docs", "README.md"))
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if name := filepath.Base(p); name != "README.md" && !strings.Contains(index, "("+name+")") {
			t.Errorf("docs/%s is not in docs/README.md", name)
		}
	}
}

// The files the docs and the README name are there: a map that matches the
// house.
func TestDocsNameFilesThatExist(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := regexp.MustCompile("\\b(?:[a-z0-9_.-]+/)+[a-zA-Z0-9_.-]+\\.(?:go|py|sql|graphqls|md|sh)\\b")
	for _, page := range append(pages, "README.md") {
		for _, p := range path.FindAllString(read(t, page), -1) {
			if strings.HasPrefix(p, "shared/") { // beside the checkout
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s names %s, which is not there", page, p)
			}
		}
	}
}
