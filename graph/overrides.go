package graph

// The functions here stand in for gqlgen's in the generated code: go:generate
// (generate.go, graph/internal/postgen) points the generated exec files
// (*.generated.go) at them.

import (
	"context"
	"fmt"
	"reflect"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
)

// marshalSlice marshals a list's elements one after the other. gqlgen's
// generated code calls graphql.MarshalSliceConcurrently, which starts a
// goroutine per element to let each element's loads gather in a batch
// window; go:generate (generate.go) points it here instead.
//
// Loupe's loaders do not need the window: a list hints its elements' keys
// to the loaders before any element resolves (loaders/doc.go), and
// the first element's load fetches every hinted key at once — so the
// elements' own loads are cache hits, and goroutines per element are pure
// cost (measured in docs/performance.md). A load of a key nobody hinted
// still works, one batch window later.
//
// A panic in an element is recovered as gqlgen does: the error is added,
// and the list answers null.
func marshalSlice(ctx context.Context, length int, _ int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	ret := make(graphql.Array, length)
	for i := range length {
		fc := &graphql.FieldContext{Index: &i}
		childCtx := graphql.WithFieldContext(ctx, fc)
		if omitPanicHandler {
			ret[i] = marshalElement(childCtx, i)
			continue
		}
		if !marshalRecovered(childCtx, ret, i, marshalElement) {
			return nil
		}
	}
	return ret
}

// marshalRecovered marshals element i, reporting false after a panic.
func marshalRecovered(ctx context.Context, ret graphql.Array, i int,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			graphql.AddError(ctx, graphql.Recover(ctx, r))
			ok = false
		}
	}()
	ret[i] = marshalElement(ctx, i)
	return true
}

// noUnmarshalerMap stands for graphql.BuildUnmarshalerMap in the generated
// Exec (go:generate, generate.go), which builds by reflection, on every
// operation, a map of the schema's ~100 input unmarshalers (a measurable
// share of a get-item's CPU, docs/performance.md). The map serves only graphql.UnmarshalInputFromContext,
// for directives that unmarshal input themselves; Loupe has none.
func noUnmarshalerMap(...any) map[reflect.Type]reflect.Value { return nil }

// fieldsIntercepted reports whether the operation runs its fields through
// a field interceptor (a FieldInterceptor extension). When none is
// installed, the generated code answers a leaf read from a struct field
// directly (the leaves patch, graph/internal/postgen); otherwise every
// field takes gqlgen's way, so that the interceptor sees it.
//
// gqlgen's executor gives an operation without field interceptors its
// one default middleware, a function literal without captures; any
// interceptor wraps it in another literal. The code pointer tells them
// apart, whichever executor or handler the operation came from.
func fieldsIntercepted(oc *graphql.OperationContext) bool {
	return reflect.ValueOf(oc.ResolverMiddleware).Pointer() != defaultFieldMiddleware
}

// defaultFieldMiddleware is the code of gqlgen's default field middleware,
// read from an operation of an executor without extensions.
var defaultFieldMiddleware uintptr

// init reads defaultFieldMiddleware. Not in the variable's initializer:
// the executor needs the parsed schema (parsedSchema, root_.generated.go),
// which it reaches through an interface, where the compiler sees no
// dependency — package variables without one are initialized in the order
// of their files' names, and root_.generated.go comes after overrides.go.
// init functions run after every package variable is initialized.
func init() {
	oc, err := executor.New(NewExecutableSchema(Config{})).
		CreateOperationContext(graphql.StartOperationTrace(context.Background()), &graphql.RawParams{Query: "{ __typename }"})
	if err != nil {
		panic(fmt.Sprintf("graph: no operation to read the default field middleware from: %v", err))
	}
	defaultFieldMiddleware = reflect.ValueOf(oc.ResolverMiddleware).Pointer()
}
