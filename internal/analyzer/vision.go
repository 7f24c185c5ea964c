package analyzer

import (
	"context"

	"github.com/loupe-mam/loupe/store"
)

// detectText finds text in the item's keyframes (not yet wired: the text
// detection engine lands with internal/analysis/tesseract).
func (r *run) detectText(ctx context.Context) error {
	if r.w.Engines.Text == nil {
		return &kindError{state: store.AnalysisNotConfigured, reason: "no text detection engine on this server"}
	}
	return &kindError{state: store.AnalysisNotConfigured, reason: "text detection is not wired yet"}
}

// detectPersons finds faces in the item's keyframes.
func (r *run) detectPersons(ctx context.Context) error {
	if r.w.Engines.Faces == nil {
		return &kindError{state: store.AnalysisNotConfigured, reason: "no face detection engine on this server"}
	}
	return &kindError{state: store.AnalysisNotConfigured, reason: "person detection is not wired yet"}
}
