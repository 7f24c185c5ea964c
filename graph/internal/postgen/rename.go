package main

import (
	"fmt"
	"go/ast"
)

// renameCall is the patch that points every call of pkg.fn (pkg an import
// path) at the package's own function to instead: graph/overrides.go has
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
		edits: func(f *file) ([]edit, error) {
			local := f.importName(pkg)
			if local == "" {
				return nil, fmt.Errorf("%s is not imported", pkg)
			}
			var edits []edit
			ast.Inspect(f.ast, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && isSelector(c.Fun, local, fn) {
					edits = append(edits, edit{f.offset(c.Fun.Pos()), f.offset(c.Fun.End()), to})
				}
				return true
			})
			return edits, nil
		},
	}
}
