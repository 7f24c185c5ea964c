// Package graph holds the generated GraphQL executor and the one place that
// configures it (server.go): limits, error presentation, recovery.
package graph

// gqlgen writes generated.go; its lists then go through marshalSlice
// (slice.go) instead of one goroutine per element.
//go:generate sh -c "cd .. && go tool gqlgen generate && sed -i 's/graphql\\.MarshalSliceConcurrently(/marshalSlice(/g' graph/generated.go"
