// Package resolvers answers GraphQL fields: it authorizes the principal,
// calls the store, and resolves nested fields through per-request
// dataloaders. REST runs these same resolvers through stored documents.
package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/internal/events/feed"
	"github.com/loupe-mam/loupe/internal/events/webhooks"
	"github.com/loupe-mam/loupe/internal/live"

	"github.com/loupe-mam/loupe/internal/analysis/transcripts"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/ingest"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/store"
)

// Resolver is the root resolver.
type Resolver struct {
	Store *store.Store
	// Blobs signs links to files; Files holds them.
	Blobs *blob.Signer
	Files blob.Store
	// JWKS checks a key set URL a tenant saves (internal/auth/jwtauth); with
	// none, setting a jwksUrl is refused.
	JWKS URLChecker
	// Sources seals, checks and opens the places media lies (storage
	// locations, ingest buckets; docs/storage-locations.md).
	Sources *sources.Sources
	// Ingest ingests objects of tenants' buckets (docs/ingest.md).
	Ingest *ingest.Service
	// Transcripts writes transcripts with their subtitle files.
	Transcripts *transcripts.Writer
	// BucketEventsTarget is the ARN generated-media locations' buckets send
	// object-created events to (LOUPE_BUCKET_EVENTS_ARN); empty: no
	// trigger is attached (docs/generated-media-locations.md).
	BucketEventsTarget string
	// Uploads creates and reads resumable uploads (nil without a file
	// store).
	Uploads *upload.Service
	// Feed is this node's reader of the outbox, which subscriptions listen
	// to (nil: subscriptions are refused; docs/events.md).
	Feed *feed.Feed
	// Webhooks checks receivers' URLs and seals hooks' secrets.
	Webhooks *webhooks.Guard
	// ShareBaseURL starts the links of new shares (the server's public
	// address; "" makes them relative: /share/<token>).
	ShareBaseURL string
	// DryRun checks a preset's changed settings through ffmpeg (nil on a
	// node without it: such changes are refused).
	DryRun PresetDryRun
	// Live measures pipelines and checks their sources with the server's
	// address policy (docs/live.md; nil: the defaults).
	Live *live.Service
}

// URLChecker refuses key set URLs the server must not fetch.
type URLChecker interface {
	CheckURL(ctx context.Context, url string) error
}

// New returns the root resolver.
func New(st *store.Store, blobs *blob.Signer, files blob.Store) *Resolver {
	return &Resolver{Store: st, Blobs: blobs, Files: files}
}
