// Package graph holds the generated GraphQL executor and the one place that
// configures it (server.go): limits, error presentation, recovery.
package graph

// gqlgen writes generated.go; its lists then go through marshalSlice
// (overrides.go) instead of one goroutine per element, no input
// unmarshaler map is built per operation (noUnmarshalerMap, overrides.go),
// and leaves read from struct fields are answered directly unless a field
// interceptor is installed (internal/leaves, fieldsIntercepted).
//go:generate sh -c "cd .. && go tool gqlgen generate && sed -i -e 's/graphql\\.MarshalSliceConcurrently(/marshalSlice(/g' -e 's/graphql\\.BuildUnmarshalerMap(/noUnmarshalerMap(/g' graph/generated.go && go run ./graph/internal/leaves graph/generated.go"
