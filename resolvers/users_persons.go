package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// updateUserSettings merges settings into the caller's own settings.
func (r *Resolver) updateUserSettings(ctx context.Context, in loupe.JSON) (*store.UserSettings, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.UpdateUserSettings(ctx, p, in)
}

// userSettings are the caller's own settings (Viewer.settings).
func (r *Resolver) userSettings(ctx context.Context) (*store.UserSettings, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.UserSettings(ctx, p)
}

// userStatus reads the caller's users row. Authentication already refuses a
// deactivated user's key, so a caller that gets here reads false unless the
// user was deactivated during the request.
func (r *Resolver) userStatus(ctx context.Context) (*model.UserStatus, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	deactivated, err := r.Store.UserDeactivated(ctx, p)
	if err != nil {
		return nil, err
	}
	if deactivated {
		// Deactivated since the key was cached (the cache hears of it a
		// moment later): the row says the key no longer authenticates.
		return nil, &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: loupe.MsgUnauthenticated}
	}
	return &model.UserStatus{IsDeactivated: false}, nil
}

// createPerson makes an item of itemType person.
func (r *Resolver) createPerson(ctx context.Context, in model.CreatePersonInput) (*store.Person, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.authorizeAll(ctx, p, in.ImageIds, func(id string) error {
		return loupe.Invalid("imageIds: item %s does not exist", id)
	}); err != nil {
		return nil, err
	}
	return r.Store.CreatePerson(ctx, p, store.NewPerson{
		Name: in.Name, Description: in.Description, ImageIDs: in.ImageIds,
	})
}
