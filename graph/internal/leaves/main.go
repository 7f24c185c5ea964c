// Command leaves gives the generated executor (graph/generated.go) a short
// way to answer a scalar field that is read straight from a struct field —
// no resolver, no method, no arguments: an item's title, a comment's text.
//
// gqlgen resolves every field alike: a field context (three allocations),
// a context carrying it, a deferred recover, the field middleware chain,
// the value boxed and unboxed. For a field that is a struct read none of it
// can matter unless a field interceptor is installed: the read cannot fail
// or panic, and its marshaler cannot report an error (safe, below). A grid's page of 50 items is ~600
// fields, most of them such leaves, and that machinery was the larger half
// of its server CPU (docs/performance.md).
//
// Each such field function gets, ahead of gqlgen's call, which stays as it
// was for when interceptors are installed (graph.fieldsIntercepted):
//
//	if !fieldsIntercepted(ec.OperationContext) {
//		return ec.marshalNString2string(ctx, field.Selections, obj.Title)
//	}
//
// Usage (go:generate, graph/generate.go): leaves generated.go
package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
)

// leafCall is gqlgen's call for a field read from obj, as it generates it.
var leafCall = regexp.MustCompile(`(?m)^\treturn graphql\.ResolveField\(
\t\tctx,
\t\tec\.OperationContext,
\t\tfield,
\t\tfunc\(ctx context\.Context, field graphql\.CollectedField\) \(\*graphql\.FieldContext, error\) \{
\t\t\treturn ec\.(fieldContext_\w+)\(ctx, field\)
\t\t\},
\t\tfunc\(ctx context\.Context\) \(any, error\) \{
\t\t\treturn obj\.(\w+), nil
\t\t\},
\t\tnil,
\t\tfunc\(ctx context\.Context, selections ast\.SelectionSet, v [^)]+\) graphql\.Marshaler \{
\t\t\treturn ec\.(marshal[^(]+)\(ctx, selections, v\)
\t\t\},
`)

// scalarContext finds the field contexts of plain struct fields of scalar
// type: not a method, not a resolver.
var scalarContext = regexp.MustCompile(`(?m)^func \(ec \*executionContext\) (fieldContext_\w+)\(_ context\.Context, field graphql\.CollectedField\) \(fc \*graphql\.FieldContext, err error\) \{
\treturn graphql\.NewScalarFieldContext\("\w+", field, false, false, `)

// marshalFunc finds a marshaler and its body.
var marshalFunc = regexp.MustCompile(`(?m)^func \(ec \*executionContext\) (marshal[^(]+)\(ctx context\.Context, sel ast\.SelectionSet, v [^)]+\) graphql\.Marshaler \{\n((?:.*\n)*?)\}\n`)

// safe are the marshalers of leaf values that can neither fail nor answer
// null where the schema forbids it, so that they need no field context
// for an error's path: strings, ids, booleans, integers and times by value
// (gqlgen's marshalers of these never answer null), and the nullable
// forms, which answer null for nil without an error. Floats are not here
// (NaN is an error), nor non-null JSON (nil is an error), nor lists.
// Enums are safe too: their marshaler is "return v".
var safe = map[string]bool{
	"marshalNString2string":                        true,
	"marshalNID2string":                            true,
	"marshalNBoolean2bool":                         true,
	"marshalNInt2int":                              true,
	"marshalNInt2int64":                            true,
	"marshalNDateTime2timeᚐTime":                   true,
	"marshalOString2ᚖstring":                       true,
	"marshalOID2ᚖstring":                           true,
	"marshalOBoolean2ᚖbool":                        true,
	"marshalOInt2ᚖint":                             true,
	"marshalOInt2ᚖint64":                           true,
	"marshalODateTime2ᚖtimeᚐTime":                  true,
	"marshalOJSON2githubᚗcomᚋloupeᚑmamᚋloupeᚐJSON": true,
}

const marker = "\tif !fieldsIntercepted(ec.OperationContext) {\n"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: leaves generated.go")
		os.Exit(2)
	}
	path := os.Args[1]
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, n, err := rewrite(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("leaves: %d struct-field leaves answered directly\n", n)
}

// rewrite adds the direct answer to every leaf field function of src and
// reports how many it changed.
func rewrite(src []byte) ([]byte, int, error) {
	if bytes.Contains(src, []byte(marker)) {
		return nil, 0, fmt.Errorf("leaves: already rewritten")
	}
	scalar := map[string]bool{}
	for _, m := range scalarContext.FindAllSubmatch(src, -1) {
		scalar[string(m[1])] = true
	}
	enum := map[string]bool{}
	for _, m := range marshalFunc.FindAllSubmatch(src, -1) {
		if string(m[2]) == "\treturn v\n" {
			enum[string(m[1])] = true
		}
	}
	var b bytes.Buffer
	n, last := 0, 0
	for _, m := range leafCall.FindAllSubmatchIndex(src, -1) {
		group := func(i int) string { return string(src[m[2*i]:m[2*i+1]]) }
		ctxFunc, fieldName, marshal := group(1), group(2), group(3)
		if !scalar[ctxFunc] || !(safe[marshal] || enum[marshal]) {
			continue // its marshaler may need the field context
		}
		b.Write(src[last:m[0]])
		fmt.Fprintf(&b, "%s\t\treturn ec.%s(ctx, field.Selections, obj.%s)\n\t}\n", marker, marshal, fieldName)
		last = m[0]
		n++
	}
	b.Write(src[last:])
	if n == 0 {
		return nil, 0, fmt.Errorf("leaves: no leaf field found: has gqlgen's generated code changed?")
	}
	return b.Bytes(), n, nil
}
