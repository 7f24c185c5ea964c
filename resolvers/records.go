package resolvers

import _ "embed" // records.graphql

// The records written as one JSON value (jsonw.go says why) are generated
// from fragments: the stored ones of rest/operations/*.graphql, or, for a
// record whose fragment no REST operation selects, records.graphql. The
// fragment is the only list of a record's fields (records_gen.go,
// internal/recordgen). A test per record holds it equal to what the
// fragment's fields answer.
//go:generate go run ./internal/recordgen records_gen.go

// RecordFragments is records.graphql, for those that describe a record by
// its fragment (the OpenAPI document, rest/openapi).
//
//go:embed records.graphql
var RecordFragments string
