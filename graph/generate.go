// Package graph holds the generated GraphQL executor and the one place that
// configures it (server.go): limits, error presentation, recovery.
package graph

// gqlgen writes the executor, one <domain>.generated.go per schema file
// (schema/*.graphqls) plus root_.generated.go and prelude.generated.go,
// then postgen (internal/postgen) patches them, as one set, where gqlgen
// has no option for what Loupe needs: lists go through
// marshalSlice (overrides.go) instead of one goroutine per element, no
// input unmarshaler map is built per operation (noUnmarshalerMap,
// overrides.go), and leaves read from struct fields are answered directly
// unless a field interceptor is installed (fieldsIntercepted). postgen
// fails, naming the patch, when gqlgen's output no longer has the shape a
// patch expects in any of the files (docs/codegen.md).
//go:generate sh -c "cd .. && go tool gqlgen generate && go run ./graph/internal/postgen 'graph/*.generated.go'"
