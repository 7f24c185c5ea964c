package server

import (
	"github.com/loupe-mam/loupe/internal/analysis/transcripts"
	"github.com/loupe-mam/loupe/internal/storage/ingest"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/internal/usage"
	"github.com/loupe-mam/loupe/store"
)

// services are what the API and the workers of a node share, made from its
// configuration: the resolvers call them for a request, the workers for a
// job.
type services struct {
	// sources opens originals and tenants' buckets; in the server's own
	// store, unmetered (the files it opens are metered where written).
	sources *sources.Sources
	ingest  *ingest.Service
	// transcripts writes through the metered store: transcripts are files
	// the tenant holds.
	transcripts *transcripts.Writer
}

func newServices(cfg Config, st *store.Store) services {
	src := &sources.Sources{Store: st, Files: cfg.Files, Credentials: cfg.Credentials, AllowPrivate: cfg.AllowPrivateStorage}
	tr := &transcripts.Writer{Store: st}
	if cfg.Files != nil {
		tr.Files = usage.MeterFiles(cfg.Tracing.Files(cfg.Files), st)
	}
	return services{sources: src, ingest: &ingest.Service{Store: st, Sources: src}, transcripts: tr}
}
