// Package graph holds the generated GraphQL executor and the one place that
// configures it (server.go): limits, error presentation, recovery.
package graph

//go:generate sh -c "cd .. && go tool gqlgen generate"
