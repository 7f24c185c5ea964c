package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
)

// Messages of the 403s of tenant administration (docs/tenant-config.md,
// docs/usage.md).
const (
	msgConfigAdminOnly = "Only administrators may change the tenant configuration."
	msgUsageAdminOnly  = "Only administrators may read the tenant's usage figures."
)

// adminOnly returns the principal when it is an admin of its tenant, else
// FORBIDDEN with msg.
func adminOnly(ctx context.Context, msg string) (*loupe.Principal, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, loupe.Forbidden("%s", msg)
	}
	return p, nil
}
