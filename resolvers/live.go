package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/live"
)

// msgLiveAdminOnly refuses a user's write of a live pipeline.
const msgLiveAdminOnly = "Only administrators may create, change, measure and delete live pipelines."

// defaultLive serves resolvers made without a live service: the
// defaults.
var defaultLive = live.New(live.Config{})

// live is r's live service.
func (r *Resolver) live() *live.Service {
	if r.Live != nil {
		return r.Live
	}
	return defaultLive
}

// checkLiveSettings checks what a write makes beyond its form: the
// sources' addresses, and a storage location that exists.
func (r *Resolver) checkLiveSettings(ctx context.Context, p *loupe.Principal, s loupe.LiveSettings) error {
	if err := r.live().CheckSources(ctx, s); err != nil {
		return err
	}
	if s.LocationID != loupe.LiveOwnStoreLocation {
		if _, err := r.Store.StorageLocation(ctx, p.TenantID, s.LocationID); err != nil {
			if loupe.ErrorKind(err) == loupe.ENOTFOUND {
				return loupe.Invalid("pipelineLocationId %s is not a storage location of the tenant", s.LocationID)
			}
			return err
		}
	}
	return nil
}

// adminPipeline is the pipeline an admin's write is about, as it is now.
func (r *Resolver) adminPipeline(ctx context.Context, id string) (*loupe.Principal, *loupe.LivePipeline, error) {
	p, err := auth.RequireAdmin(ctx, msgLiveAdminOnly)
	if err != nil {
		return nil, nil, err
	}
	cur, err := r.Store.LivePipeline(ctx, p.TenantID, id)
	if err != nil {
		return nil, nil, err
	}
	return p, cur, nil
}
