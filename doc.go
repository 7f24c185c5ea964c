// Package loupe is the domain vocabulary every layer speaks: error kinds
// and the spec's shared messages, the Principal a request runs as, raw JSON
// values, ids and the enums whose values are the spec's strings. It imports
// nothing of Loupe's own, so store (SQL), resolvers, rest and graph can all
// depend on it without depending on each other.
package loupe
