package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// The leaves patch gives the generated executor a short way to answer a
// scalar field that is read straight from a struct field — no resolver,
// no method, no arguments: an item's title, a comment's text.
//
// gqlgen resolves every field alike: a field context (three allocations),
// a context carrying it, a deferred recover, the field middleware chain,
// the value boxed and unboxed. For a field that is a struct read none of it
// can matter unless a field interceptor is installed: the read cannot fail
// or panic, and its marshaler cannot report an error (safeMarshalers). A
// grid's page of 50 items is ~600 fields, most of them such leaves, and
// that machinery was the larger half of its server CPU
// (docs/performance.md).
//
// Each such field function gets, ahead of gqlgen's call, which stays as it
// was for when interceptors are installed (graph.fieldsIntercepted):
//
//	if !fieldsIntercepted(ec.OperationContext) {
//		return ec.marshalNString2string(ctx, field.Selections, obj.Title)
//	}

// safeMarshalers are the marshalers of leaf values that can neither fail
// nor answer null where the schema forbids it, so that they need no field
// context for an error's path: strings, ids, booleans, integers and times
// by value (gqlgen's marshalers of these never answer null), and the
// nullable forms, which answer null for nil without an error. Floats are
// not here (NaN is an error), nor non-null JSON (nil is an error), nor
// lists. Enums are safe too — their marshaler is "return v" — and found
// by that.
//
// The names are gqlgen's, which encode the Go type's package: each must be
// generated, or the patch fails — so a type that moves, or a new naming
// scheme, is noticed rather than losing its fields the short way.
var safeMarshalers = []string{
	"marshalNString2string",
	"marshalNID2string",
	"marshalNBoolean2bool",
	"marshalNInt2int",
	"marshalNInt2int64",
	"marshalNDateTime2timeᚐTime",
	"marshalOString2ᚖstring",
	"marshalOID2ᚖstring",
	"marshalOBoolean2ᚖbool",
	"marshalOInt2ᚖint",
	"marshalOInt2ᚖint64",
	"marshalODateTime2ᚖtimeᚐTime",
	"marshalOJSON2githubᚗcomᚋloupeᚑmamᚋloupeᚐJSON",
}

// interceptCheck is how the inserted code starts; its presence means the
// patch is applied.
const interceptCheck = "fieldsIntercepted"

// leaves is the patch; safe are the marshalers it may call directly
// besides enums'.
func leaves(safe []string) patch {
	return patch{
		name:    "leaves",
		pattern: "return graphql.ResolveField(…, func(ctx) { return obj.F, nil }, nil, …) in a field function",
		applied: func(f *file) bool {
			found := false
			ast.Inspect(f.ast, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && isIdent(c.Fun, interceptCheck) {
					found = true
				}
				return !found
			})
			return found
		},
		edits: func(files []*file) ([]edit, error) { return leafEdits(files, safe) },
	}
}

// A leaf is gqlgen's call resolving a field read from obj.
type leaf struct {
	file     *file
	ret      *ast.ReturnStmt
	context  string // the field context function
	field    string // obj's field
	marshal  string // the marshaler
	function string // the field function, for messages
}

// leafEdits finds the leaves in every file of the set. What decides
// whether a leaf is answered directly may be in another file than the
// leaf: gqlgen writes a field's function and context with its object's
// type, but a marshaler with the type it marshals (the builtin scalars'
// in prelude.generated.go, an enum's with the enum).
func leafEdits(files []*file, safe []string) ([]edit, error) {
	scalar := map[string]bool{} // field contexts of plain scalar struct fields
	marshalers := map[string]bool{}
	enum := map[string]bool{}
	var leaves []leaf
	importers := 0
	for _, f := range files {
		gql := f.importName(gqlgenGraphQL)
		if gql == "" {
			continue // no field context, no ResolveField
		}
		importers++
		methods(f, func(fd *ast.FuncDecl) {
			name := fd.Name.Name
			switch {
			case isScalarFieldContext(fd, gql):
				scalar[name] = true
			case strings.HasPrefix(name, "marshal"):
				marshalers[name] = true
				if isEnumMarshaler(fd) {
					enum[name] = true
				}
			}
			for _, s := range fd.Body.List {
				if l, ok := matchLeaf(s, gql); ok {
					l.file = f
					l.function = name
					leaves = append(leaves, l)
				}
			}
		})
	}
	if importers == 0 {
		return nil, fmt.Errorf("%s is not imported", gqlgenGraphQL)
	}
	switch {
	case len(scalar) == 0:
		return nil, errors.New("no field context of a plain scalar field (return graphql.NewScalarFieldContext(name, field, false, false, …))")
	case len(leaves) == 0:
		return nil, errors.New("no field read from a struct (return graphql.ResolveField(…, func(ctx) { return obj.F, nil }, nil, …))")
	}
	var missing []string
	for _, m := range safe {
		if !marshalers[m] {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("safe marshalers not generated: %s (a type moved or gqlgen renamed its marshalers: update safeMarshalers)", strings.Join(missing, ", "))
	}
	var edits []edit
	for _, l := range leaves {
		if !scalar[l.context] || !(slices.Contains(safe, l.marshal) || enum[l.marshal]) {
			continue // its marshaler may need the field context
		}
		// Written as gofmt writes it in a function's body, before the
		// return statement.
		text := fmt.Sprintf("if !%s(ec.OperationContext) {\n\t\treturn ec.%s(ctx, field.Selections, obj.%s)\n\t}\n\t",
			interceptCheck, l.marshal, l.field)
		at := l.file.offset(l.ret.Pos())
		edits = append(edits, edit{l.file, at, at, text})
	}
	return edits, nil
}

// isScalarFieldContext reports whether fd is the field context of a plain
// struct field of scalar type, not a method, not a resolver:
//
//	return graphql.NewScalarFieldContext("T", field, false, false, …)
func isScalarFieldContext(fd *ast.FuncDecl, gql string) bool {
	if !strings.HasPrefix(fd.Name.Name, "fieldContext_") {
		return false
	}
	results, ok := onlyReturn(fd.Body)
	if !ok || len(results) != 1 {
		return false
	}
	c, ok := results[0].(*ast.CallExpr)
	if !ok || !isSelector(c.Fun, gql, "NewScalarFieldContext") || len(c.Args) < 4 {
		return false
	}
	lit, ok := c.Args[0].(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && isIdent(c.Args[1], "field") &&
		isIdent(c.Args[2], "false") && isIdent(c.Args[3], "false")
}

// isEnumMarshaler reports whether fd is a marshaler answering its value
// as it is, as gqlgen's marshalers of enums do:
//
//	func (ec *executionContext) marshalNKind2…(ctx context.Context, sel ast.SelectionSet, v Kind) graphql.Marshaler {
//		return v
//	}
func isEnumMarshaler(fd *ast.FuncDecl) bool {
	if !slices.Equal(paramNames(fd.Type), []string{"ctx", "sel", "v"}) {
		return false
	}
	results, ok := onlyReturn(fd.Body)
	return ok && len(results) == 1 && isIdent(results[0], "v")
}

// matchLeaf matches gqlgen's call for a field read from obj, without
// field directives:
//
//	return graphql.ResolveField(
//		ctx,
//		ec.OperationContext,
//		field,
//		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
//			return ec.fieldContext_T_f(ctx, field)
//		},
//		func(ctx context.Context) (any, error) {
//			return obj.F, nil
//		},
//		nil,
//		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
//			return ec.marshalNString2string(ctx, selections, v)
//		},
//		…
//	)
func matchLeaf(s ast.Stmt, gql string) (leaf, bool) {
	ret, ok := s.(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return leaf{}, false
	}
	c, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isSelector(c.Fun, gql, "ResolveField") || len(c.Args) < 7 {
		return leaf{}, false
	}
	a := c.Args
	if !isIdent(a[0], "ctx") || !isSelector(a[1], "ec", "OperationContext") || !isIdent(a[2], "field") || !isIdent(a[5], "nil") {
		return leaf{}, false
	}
	context, ok := callOfEC(a[3], []string{"ctx", "field"}, "ctx", "field")
	if !ok {
		return leaf{}, false
	}
	field, ok := readOfObj(a[4])
	if !ok {
		return leaf{}, false
	}
	marshal, ok := callOfEC(a[6], []string{"ctx", "selections", "v"}, "ctx", "selections", "v")
	if !ok {
		return leaf{}, false
	}
	return leaf{ret: ret, context: context, field: field, marshal: marshal}, true
}

// callOfEC matches a function literal of parameters params whose body is
// `return ec.M(args…)`, and returns M.
func callOfEC(e ast.Expr, params []string, args ...string) (string, bool) {
	fl, ok := e.(*ast.FuncLit)
	if !ok || !slices.Equal(paramNames(fl.Type), params) {
		return "", false
	}
	results, ok := onlyReturn(fl.Body)
	if !ok || len(results) != 1 {
		return "", false
	}
	c, ok := results[0].(*ast.CallExpr)
	if !ok || len(c.Args) != len(args) {
		return "", false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, "ec") {
		return "", false
	}
	for i, arg := range args {
		if !isIdent(c.Args[i], arg) {
			return "", false
		}
	}
	return sel.Sel.Name, true
}

// readOfObj matches `func(ctx context.Context) (any, error) { return obj.F, nil }`
// and returns F.
func readOfObj(e ast.Expr) (string, bool) {
	fl, ok := e.(*ast.FuncLit)
	if !ok || !slices.Equal(paramNames(fl.Type), []string{"ctx"}) {
		return "", false
	}
	results, ok := onlyReturn(fl.Body)
	if !ok || len(results) != 2 || !isIdent(results[1], "nil") {
		return "", false
	}
	sel, ok := results[0].(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, "obj") {
		return "", false
	}
	return sel.Sel.Name, true
}
