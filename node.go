package loupe

// Node is anything fetched by id alone (GraphQL interface Node).
type Node interface {
	NodeID() string
}
