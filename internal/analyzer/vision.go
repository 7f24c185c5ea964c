package analyzer

import (
	"context"

	"github.com/loupe-mam/loupe/store"
)

// detectPersons finds faces in the item's keyframes.
func (r *run) detectPersons(ctx context.Context) error {
	if r.w.Engines.Faces == nil {
		return &kindError{state: store.AnalysisNotConfigured, reason: "no face detection engine on this server"}
	}
	return &kindError{state: store.AnalysisNotConfigured, reason: "person detection is not wired yet"}
}
