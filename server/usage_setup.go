package server

import (
	"log/slog"
	"net/http"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/usage"
	"github.com/loupe-mam/loupe/store"
)

// usageOf sets up the usage figures (docs/usage.md): the store counts its
// events with the recorder (cfg.Usage, or a new one whose counts are
// written a few seconds after they happen), and the blob store meters the
// files it holds. It answers the recorder and the metered blob store.
func usageOf(cfg Config, st *store.Store, logger *slog.Logger) (*usage.Recorder, blob.Store) {
	rec := cfg.Usage
	if rec == nil {
		rec = usage.New(st, logger)
	}
	st.RecordUsageWith(rec)
	var files blob.Store
	if cfg.Files != nil {
		files = usage.MeterFiles(cfg.Tracing.Files(cfg.Files), st)
	}
	return rec, files
}

// countUsers notes each authenticated request's user as active this hour
// (in memory: no statement on the request's path).
func countUsers(rec *usage.Recorder) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := auth.From(r.Context()); p != nil {
				rec.SeenUser(p.TenantID, p.UserID)
			}
			next.ServeHTTP(w, r)
		})
	}
}
