package main

import (
	"fmt"
	"go/ast"
)

// renameCall is the patch that points every call of pkg.fn (pkg an import
// path), in every file of the set, at the package's own function to instead: graph/overrides.go has
// the replacements and why each exists.
func renameCall(name, pkg, fn, to string) patch {
	return patch{
		name:    name,
		pattern: fmt.Sprintf("calls of %s.%s", pkg, fn),
		applied: func(f *file) bool {
			found := false
			ast.Inspect(f.ast, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && isIdent(c.Fun, to) {
					found = true
				}
				return !found
			})
			return found
		},
		edits: func(files []*file) ([]edit, error) {
			var edits []edit
			importers := 0
			for _, f := range files {
				local := f.importName(pkg)
				if local == "" {
					continue // no call of pkg.fn can be in it
				}
				importers++
				ast.Inspect(f.ast, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok && isSelector(c.Fun, local, fn) {
						edits = append(edits, edit{f, f.offset(c.Fun.Pos()), f.offset(c.Fun.End()), to})
					}
					return true
				})
			}
			if importers == 0 {
				return nil, fmt.Errorf("%s is not imported", pkg)
			}
			return edits, nil
		},
	}
}
