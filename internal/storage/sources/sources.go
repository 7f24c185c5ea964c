// Package sources opens stored media wherever it lies: Loupe's own file
// store, a tenant's storage locations and the buckets of its ingest
// configurations and gateways, with the credentials sealed for each
// (internal/platform/secretbox), through an HTTP client that reaches only
// public addresses unless the operator allows private ones. Resolvers check
// and save the places; workers (processing, ingest, transfers) read and
// write through them. Errors never hold a secret.
package sources

import (
	"github.com/loupe-mam/loupe/internal/platform/secretbox"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// Sources opens the places media lies.
type Sources struct {
	Store *store.Store
	// Files is Loupe's own file store (nil: the server has none, and an
	// original in it cannot be opened).
	Files blob.Store
	// Credentials seals and opens the places' secret keys; without it a
	// key-user place can be neither saved nor opened.
	Credentials *secretbox.Box
	// AllowPrivate lets the places' endpoints be loopback, private and
	// link-local addresses (on-prem S3, tests); else only public ones are
	// reached.
	AllowPrivate bool
}
