package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
)

// This file holds the transcription language settings (spec 2.24): the
// languages a tenant offers for transcription and the service that
// transcribes each. The system's list applies until a tenant writes its own.

// Limits on transcription language settings.
const (
	MaxTranscriptionLanguages   = 500
	MaxTranscriptionLabelLength = 100
)

// SystemTranscriptionService transcribes the system's languages.
const SystemTranscriptionService = "externalSpeechToText"

var (
	// The spec's form of a language code: xx-XX.
	transcriptionLanguageRE = regexp.MustCompile(`^[a-z]{2}-[A-Z]{2}$`)
	transcriptionServiceRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)
)

// TranscriptionLanguageSetting is one language offered for transcription.
type TranscriptionLanguageSetting struct {
	// LanguageCode has the form xx-XX (en-US).
	LanguageCode         string `json:"languageCode"`
	TranscriptionService string `json:"transcriptionService"`
	Label                string `json:"label"`
}

// TranscriptionLanguageSettings is the spec's list shape {total, _embedded:
// {collection}}.
type TranscriptionLanguageSettings struct {
	Total    int                              `json:"total"`
	Embedded *TranscriptionLanguageCollection `json:"_embedded"`
	// IsSystem is true for the system's list, also where a tenant without
	// settings of its own reads it.
	IsSystem bool `json:"-"`
}

// TranscriptionLanguageCollection holds the entries of a list.
type TranscriptionLanguageCollection struct {
	Collection []*TranscriptionLanguageSetting `json:"collection"`
}

// systemTranscriptionLanguages is the system-wide list (docs/tenant-config.md):
// the languages the external speech-to-text service transcribes well.
var systemTranscriptionLanguages = [][2]string{
	{"en-US", "English (United States)"},
	{"en-GB", "English (United Kingdom)"},
	{"en-AU", "English (Australia)"},
	{"de-DE", "German (Germany)"},
	{"de-CH", "German (Switzerland)"},
	{"fr-FR", "French (France)"},
	{"fr-CA", "French (Canada)"},
	{"es-ES", "Spanish (Spain)"},
	{"es-US", "Spanish (United States)"},
	{"it-IT", "Italian (Italy)"},
	{"pt-BR", "Portuguese (Brazil)"},
	{"pt-PT", "Portuguese (Portugal)"},
	{"nl-NL", "Dutch (Netherlands)"},
	{"sv-SE", "Swedish (Sweden)"},
	{"da-DK", "Danish (Denmark)"},
	{"nb-NO", "Norwegian Bokmål (Norway)"},
	{"fi-FI", "Finnish (Finland)"},
	{"pl-PL", "Polish (Poland)"},
	{"ru-RU", "Russian (Russia)"},
	{"tr-TR", "Turkish (Turkey)"},
	{"ar-SA", "Arabic (Saudi Arabia)"},
	{"hi-IN", "Hindi (India)"},
	{"ja-JP", "Japanese (Japan)"},
	{"ko-KR", "Korean (South Korea)"},
	{"zh-CN", "Chinese, Mandarin (China)"},
}

// SystemTranscriptionLanguageSettings is the system-wide list. Each call
// returns fresh values.
func SystemTranscriptionLanguageSettings() *TranscriptionLanguageSettings {
	list := make([]*TranscriptionLanguageSetting, len(systemTranscriptionLanguages))
	for i, l := range systemTranscriptionLanguages {
		list[i] = &TranscriptionLanguageSetting{LanguageCode: l[0], TranscriptionService: SystemTranscriptionService, Label: l[1]}
	}
	s := transcriptionLanguageList(list)
	s.IsSystem = true
	return s
}

func transcriptionLanguageList(list []*TranscriptionLanguageSetting) *TranscriptionLanguageSettings {
	return &TranscriptionLanguageSettings{Total: len(list), Embedded: &TranscriptionLanguageCollection{Collection: list}}
}

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
func (s *Store) TranscriptionLanguageSettings(ctx context.Context, tenantID string) (*TranscriptionLanguageSettings, error) {
	var doc loupe.JSON
	if err := s.getPrepared(ctx, &doc, transcriptionLanguagesSQL, tenantID); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return SystemTranscriptionLanguageSettings(), nil
		}
		return nil, fmt.Errorf("store: unable to fetch transcription language settings: %w", err)
	}
	list := []*TranscriptionLanguageSetting{}
	if err := jsonUnmarshal(doc, &list); err != nil {
		return nil, err
	}
	return transcriptionLanguageList(list), nil
}

// SetTranscriptionLanguageSettings replaces the tenant's settings with list
// (in its order) and returns them; an empty list offers no language. The
// caller has checked that the principal may. Returns EINVALID naming the
// first bad entry; nothing is written then.
func (s *Store) SetTranscriptionLanguageSettings(ctx context.Context, p *loupe.Principal, list []*TranscriptionLanguageSetting) (*TranscriptionLanguageSettings, error) {
	clean, err := validateTranscriptionLanguages(list)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, setTranscriptionLanguagesSQL, p.TenantID, loupe.JSONOf(clean), p.UserID, now()); err != nil {
		return nil, fmt.Errorf("store: unable to write transcription language settings: %w", err)
	}
	return transcriptionLanguageList(clean), nil
}

// validateTranscriptionLanguages checks every entry and answers trimmed
// copies. A language may appear once per service.
func validateTranscriptionLanguages(list []*TranscriptionLanguageSetting) ([]*TranscriptionLanguageSetting, error) {
	if len(list) > MaxTranscriptionLanguages {
		return nil, loupe.Invalid("at most %d transcription languages", MaxTranscriptionLanguages)
	}
	out := make([]*TranscriptionLanguageSetting, 0, len(list))
	seen := map[[2]string]bool{}
	for i, e := range list {
		if e == nil {
			return nil, loupe.Invalid("collection[%d] must be an object", i)
		}
		c := TranscriptionLanguageSetting{
			LanguageCode:         e.LanguageCode,
			TranscriptionService: strings.TrimSpace(e.TranscriptionService),
			Label:                strings.TrimSpace(e.Label),
		}
		switch {
		case !transcriptionLanguageRE.MatchString(c.LanguageCode):
			return nil, loupe.Invalid("collection[%d].languageCode must have the form xx-XX (en-US), got %q", i, e.LanguageCode)
		case !transcriptionServiceRE.MatchString(c.TranscriptionService):
			return nil, loupe.Invalid("collection[%d].transcriptionService must be a service name such as %s, got %q",
				i, SystemTranscriptionService, e.TranscriptionService)
		case c.Label == "" || utf8.RuneCountInString(c.Label) > MaxTranscriptionLabelLength:
			return nil, loupe.Invalid("collection[%d].label must be 1 to %d characters", i, MaxTranscriptionLabelLength)
		}
		k := [2]string{c.LanguageCode, c.TranscriptionService}
		if seen[k] {
			return nil, loupe.Invalid("collection[%d]: %s with %s is listed twice", i, c.LanguageCode, c.TranscriptionService)
		}
		seen[k] = true
		out = append(out, &c)
	}
	return out, nil
}
