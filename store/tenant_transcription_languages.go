package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/loupe-mam/loupe"
)

// This file reads and writes the transcription language settings (spec
// 2.24); their rules and the system's list are loupe's.

const (
	transcriptionLanguagesSQL = `
SELECT settings FROM transcription_language_settings WHERE tenant_id = $1`

	setTranscriptionLanguagesSQL = `
INSERT INTO transcription_language_settings (tenant_id, settings, modified_by, modified_on)
VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant_id) DO UPDATE
SET settings = EXCLUDED.settings, modified_by = EXCLUDED.modified_by, modified_on = EXCLUDED.modified_on`
)

// TranscriptionLanguageSettings returns the tenant's settings, or the
// system's while the tenant has none of its own.
func (s *Store) TranscriptionLanguageSettings(ctx context.Context, tenantID string) (*loupe.TranscriptionLanguageSettings, error) {
	var doc loupe.JSON
	if err := s.getPrepared(ctx, &doc, transcriptionLanguagesSQL, tenantID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return loupe.SystemTranscriptionLanguageSettings(), nil
		}
		return nil, fmt.Errorf("store: unable to fetch transcription language settings: %w", err)
	}
	list := []*loupe.TranscriptionLanguageSetting{}
	if err := jsonUnmarshal(doc, &list); err != nil {
		return nil, err
	}
	return loupe.TranscriptionLanguageList(list), nil
}

// SetTranscriptionLanguageSettings replaces the tenant's settings with list
// (in its order) and returns them; an empty list offers no language. The
// caller has checked that the principal may. Returns EINVALID naming the
// first bad entry; nothing is written then.
func (s *Store) SetTranscriptionLanguageSettings(ctx context.Context, p *loupe.Principal, list []*loupe.TranscriptionLanguageSetting) (*loupe.TranscriptionLanguageSettings, error) {
	clean, err := loupe.ValidateTranscriptionLanguages(list)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, setTranscriptionLanguagesSQL, p.TenantID, loupe.JSONOf(clean), p.UserID, now()); err != nil {
		return nil, fmt.Errorf("store: unable to write transcription language settings: %w", err)
	}
	return loupe.TranscriptionLanguageList(clean), nil
}
