package resolvers

import (
	"context"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
)

// Scheduled recordings and series (docs/live.md "Scheduled recordings").
// Who may: read a recording, users who see its item; schedule, users who
// may add items to the folder (createItem's rule; any user without a
// folder); change or cancel, users who may change its item (deleteItem's
// rule); change a series, its creator or users who may change its folder.
// Admins always. Another tenant's ids are missing ones.

// msgSeriesForbidden refuses a user's change of a series.
const msgSeriesForbidden = "you may not change this recording series"

// tenantZone is the tenant's tenantWideTimezone ("UTC" when unset).
func (r *Resolver) tenantZone(ctx context.Context, p *loupe.Principal) (string, *loupe.TenantConfig, error) {
	c, err := r.Store.TenantConfig(ctx, p.TenantID)
	if err != nil {
		return "", nil, err
	}
	if c.TenantWideTimezone == "" {
		return "UTC", c, nil
	}
	return c.TenantWideTimezone, c, nil
}

// visibleRecordings leaves out the recordings whose items p may not see.
func (r *Resolver) visibleRecordings(ctx context.Context, p *loupe.Principal, list []*loupe.ScheduledRecording) ([]*loupe.ScheduledRecording, error) {
	if p.IsAdmin || len(list) == 0 {
		return list, nil
	}
	ids := make([]string, len(list))
	for i, rec := range list {
		ids[i] = rec.ItemID
	}
	acc, err := r.Store.AccessOf(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	out := list[:0:0]
	for _, rec := range list {
		if a, ok := acc[rec.ItemID]; !ok || a.Visible {
			out = append(out, rec)
		}
	}
	return out, nil
}

// visibleSeries leaves out the series whose folder p may not see.
func (r *Resolver) visibleSeries(ctx context.Context, p *loupe.Principal, list []*loupe.RecordingSeries) ([]*loupe.RecordingSeries, error) {
	if p.IsAdmin || len(list) == 0 {
		return list, nil
	}
	var folders []string
	for _, sr := range list {
		if sr.FolderID != nil {
			folders = append(folders, *sr.FolderID)
		}
	}
	acc, err := r.Store.AccessOf(ctx, p, folders)
	if err != nil {
		return nil, err
	}
	out := list[:0:0]
	for _, sr := range list {
		if sr.FolderID == nil {
			out = append(out, sr)
			continue
		}
		if a, ok := acc[*sr.FolderID]; !ok || a.Visible {
			out = append(out, sr)
		}
	}
	return out, nil
}

// seriesWriter is the principal when it may change series id: an admin,
// its creator, or a user who may change its folder. A series p may not see
// is missing.
func (r *Resolver) seriesWriter(ctx context.Context, id string) (*loupe.Principal, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	sr, err := r.Store.RecordingSeries(ctx, p.TenantID, id, now, now)
	if err != nil {
		return nil, err
	}
	if p.IsAdmin || sr.CreatedByUser == p.UserID {
		return p, nil
	}
	if sr.FolderID == nil {
		return nil, loupe.Forbidden(msgSeriesForbidden)
	}
	acc, err := r.Store.AccessOf(ctx, p, []string{*sr.FolderID})
	if err != nil {
		return nil, err
	}
	a, ok := acc[*sr.FolderID]
	switch {
	case ok && !a.Visible:
		return nil, loupe.NotFound()
	case !ok || !a.Updatable:
		return nil, loupe.Forbidden(msgSeriesForbidden)
	}
	return p, nil
}
