package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/store"
)

func (r *Resolver) updateTranscript(ctx context.Context, input model.UpdateTranscriptInput) (*model.UpdateTranscriptPayload, error) {
	return nil, errPending
}

func (r *Resolver) itemTranscript(ctx context.Context, obj *store.Item, languageCode *string) (*store.Transcript, error) {
	return nil, errPending
}

func (r *Resolver) timedTranscriptURL(ctx context.Context, obj *store.Item) (*string, error) {
	return nil, nil
}
