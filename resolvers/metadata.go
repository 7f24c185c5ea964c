package resolvers

import (
	"context"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/mdf"
)

// readableFormData answers form data keyed by field labels, with the labels
// of choice values, when asked (readableMetadataFields). The form comes
// through the request's form loader; keys without a known label stay as
// they are.
func (r *Resolver) readableFormData(ctx context.Context, formID string, data loupe.JSON, readable bool) (loupe.JSON, error) {
	if !readable {
		return data, nil
	}
	form, err := r.loaders(ctx).Mdf.Load(ctx, formID)
	if err != nil && loupe.ErrorKind(err) != loupe.ENOTFOUND {
		return nil, err
	}
	return mdf.ReadableFormData(form, data)
}
