// Package loupe is the domain every layer speaks: error kinds and the
// spec's shared messages, the Principal a request runs as (and the rule of
// what only admins may do), raw JSON values, ids, the enums whose values are
// the spec's strings, and the rules of writes: what a client may create or
// configure, checked and settled before the store writes it (the entities a
// tenant configures live here, with their db tags, so the store scans into
// them). It imports nothing of Loupe's own, so store (SQL), resolvers, rest
// and graph can all depend on it without depending on each other.
package loupe
