// Package model holds GraphQL types that are not domain types: payloads,
// filters, connections. Most is generated (models_gen.go).
package model

import (
	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// ItemConnection is a page of items. It keeps the query it was made from so
// that totalCount is counted only when a client asks for it.
type ItemConnection struct {
	Edges    []*ItemEdge   `json:"edges"`
	Nodes    []*store.Item `json:"nodes"`
	PageInfo *PageInfo     `json:"pageInfo"`

	Principal *loupe.Principal `json:"-"`
	Query     store.ItemQuery  `json:"-"`
}
