package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) updateUserSettings(ctx context.Context, in store.JSON) (*store.UserSettings, error) {
	return nil, errPending
}

func (r *Resolver) userSettings(ctx context.Context) (*store.UserSettings, error) {
	return nil, errPending
}

func (r *Resolver) userStatus(ctx context.Context) (*model.UserStatus, error) {
	return nil, errPending
}

func (r *Resolver) createPerson(ctx context.Context, in model.CreatePersonInput) (*store.Person, error) {
	return nil, errPending
}
