package loupe_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
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
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		slash := filepath.ToSlash(path)
		if !strings.HasSuffix(slash, ".go") || strings.HasSuffix(slash, "_test.go") {
			return nil
		}
		for _, dir := range startersAllowed {
			if strings.HasPrefix(slash, dir) {
				return nil
			}
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, found := range processStarts(f) {
			pos := fset.Position(found.Pos())
			t.Errorf("%s:%d: %s starts a process outside internal/tool: run it with tool.Run, tool.Start, tool.StartKept or a tool.Pool",
				pos.Filename, pos.Line, found.name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
