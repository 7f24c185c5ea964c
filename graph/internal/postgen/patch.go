package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// A patch is one named change to gqlgen's output, which is a set of files
// (one per schema file, and gqlgen's root_ and prelude files). It finds
// what to change on the syntax trees of the whole set and says so as edits
// of the source texts: the rest of each file stays byte for byte as gqlgen
// wrote it.
type patch struct {
	name string
	// pattern says what the patch looks for, for the error when it is
	// not found.
	pattern string
	// applied reports whether a file already carries the patch.
	applied func(*file) bool
	// edits are the patch's changes across the set; an error when
	// something it needs is missing from every file. No edits at all is
	// an error too (apply).
	edits func([]*file) ([]edit, error)
}

// An edit replaces f.src[start:end] with text (an insertion when start ==
// end).
type edit struct {
	f          *file
	start, end int
	text       string
}

// A source is one generated file: its name (for messages) and text.
type source struct {
	name string
	src  []byte
}

// A file is one generated source and its syntax tree.
type file struct {
	name string
	src  []byte
	fset *token.FileSet
	ast  *ast.File
}

// offset is p's byte offset in the source.
func (f *file) offset(p token.Pos) int { return f.fset.Position(p).Offset }

// importName is the name under which the file imports path, "" when it
// does not.
func (f *file) importName(path string) string {
	for _, im := range f.ast.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err != nil || p != path {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
		return path[strings.LastIndexByte(path, '/')+1:]
	}
	return ""
}

// applied is what a patch changed: changes in all, in how many files.
type applied struct {
	name    string
	changes int
	files   int
}

// apply runs every patch on srcs, gqlgen's output, and returns the patched
// sources, in the same order (unchanged ones as they were). It fails,
// naming the patch, when a patch is already applied to any file or finds
// nothing to change in the whole set.
func apply(srcs []source, patches []patch) ([]source, []applied, error) {
	if len(srcs) == 0 {
		return nil, nil, errors.New("no generated files")
	}
	fset := token.NewFileSet()
	files := make([]*file, len(srcs))
	for i, s := range srcs {
		tree, err := parser.ParseFile(fset, s.name, s.src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("parse: %w", err)
		}
		files[i] = &file{name: s.name, src: s.src, fset: fset, ast: tree}
	}
	byFile := map[*file][]edit{}
	var report []applied
	for _, p := range patches {
		for _, f := range files {
			if p.applied(f) {
				return nil, nil, fmt.Errorf("patch %s: already applied (%s): postgen patches gqlgen's fresh output once", p.name, f.name)
			}
		}
		edits, err := p.edits(files)
		if err != nil {
			return nil, nil, fmt.Errorf("patch %s: %w: has gqlgen's generated code changed?", p.name, err)
		}
		if len(edits) == 0 {
			return nil, nil, fmt.Errorf("patch %s: pattern not found (%s) in any of %d files: has gqlgen's generated code changed?", p.name, p.pattern, len(files))
		}
		touched := map[*file]bool{}
		for _, e := range edits {
			byFile[e.f] = append(byFile[e.f], e)
			touched[e.f] = true
		}
		report = append(report, applied{p.name, len(edits), len(touched)})
	}
	out := make([]source, len(files))
	for i, f := range files {
		out[i] = source{f.name, f.src}
		edits := byFile[f]
		if len(edits) == 0 {
			continue
		}
		patched, err := splice(f.src, edits)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.name, err)
		}
		// Formatting checks that the patched code parses; the edits are
		// written formatted, so it changes nothing else.
		formatted, err := format.Source(patched)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: patched code does not parse: %w", f.name, err)
		}
		out[i].src = formatted
	}
	return out, report, nil
}

// splice applies edits, all of one file, to its source src; two edits of
// the same text are an error.
func splice(src []byte, edits []edit) ([]byte, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b bytes.Buffer
	last := 0
	for _, e := range edits {
		if e.start < last {
			return nil, fmt.Errorf("patches overlap at byte %d", e.start)
		}
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	return b.Bytes(), nil
}

// methods calls fn for every method of *executionContext, the receiver
// of gqlgen's generated code.
func methods(f *file, fn func(*ast.FuncDecl)) {
	for _, d := range f.ast.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok && isIdent(star.X, "executionContext") {
			fn(fd)
		}
	}
}

// isIdent reports whether e is the identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// isSelector reports whether e is x.sel.
func isSelector(e ast.Expr, x, sel string) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(s.X, x) && s.Sel.Name == sel
}

// onlyReturn is the results of body when it is exactly one return statement.
func onlyReturn(body *ast.BlockStmt) ([]ast.Expr, bool) {
	if body == nil || len(body.List) != 1 {
		return nil, false
	}
	r, ok := body.List[0].(*ast.ReturnStmt)
	if !ok {
		return nil, false
	}
	return r.Results, true
}

// paramNames are the names of a function's parameters, in order.
func paramNames(ft *ast.FuncType) []string {
	var names []string
	for _, p := range ft.Params.List {
		if len(p.Names) == 0 {
			names = append(names, "")
		}
		for _, n := range p.Names {
			names = append(names, n.Name)
		}
	}
	return names
}
