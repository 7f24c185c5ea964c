package loupe

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The transcription language settings (spec 2.24): the languages a tenant
// offers for transcription and the service that transcribes each, their
// rules, and the system's list, which applies until a tenant writes its own.

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
	s := TranscriptionLanguageList(list)
	s.IsSystem = true
	return s
}

// TranscriptionLanguageList is list in the spec's list shape.
func TranscriptionLanguageList(list []*TranscriptionLanguageSetting) *TranscriptionLanguageSettings {
	return &TranscriptionLanguageSettings{Total: len(list), Embedded: &TranscriptionLanguageCollection{Collection: list}}
}

// ValidateTranscriptionLanguages checks every entry and answers trimmed
// copies. A language may appear once per service.
func ValidateTranscriptionLanguages(list []*TranscriptionLanguageSetting) ([]*TranscriptionLanguageSetting, error) {
	if len(list) > MaxTranscriptionLanguages {
		return nil, Invalid("at most %d transcription languages", MaxTranscriptionLanguages)
	}
	out := make([]*TranscriptionLanguageSetting, 0, len(list))
	seen := map[[2]string]bool{}
	for i, e := range list {
		if e == nil {
			return nil, Invalid("collection[%d] must be an object", i)
		}
		c := TranscriptionLanguageSetting{
			LanguageCode:         e.LanguageCode,
			TranscriptionService: strings.TrimSpace(e.TranscriptionService),
			Label:                strings.TrimSpace(e.Label),
		}
		switch {
		case !transcriptionLanguageRE.MatchString(c.LanguageCode):
			return nil, Invalid("collection[%d].languageCode must have the form xx-XX (en-US), got %q", i, e.LanguageCode)
		case !transcriptionServiceRE.MatchString(c.TranscriptionService):
			return nil, Invalid("collection[%d].transcriptionService must be a service name such as %s, got %q",
				i, SystemTranscriptionService, e.TranscriptionService)
		case c.Label == "" || utf8.RuneCountInString(c.Label) > MaxTranscriptionLabelLength:
			return nil, Invalid("collection[%d].label must be 1 to %d characters", i, MaxTranscriptionLabelLength)
		}
		k := [2]string{c.LanguageCode, c.TranscriptionService}
		if seen[k] {
			return nil, Invalid("collection[%d]: %s with %s is listed twice", i, c.LanguageCode, c.TranscriptionService)
		}
		seen[k] = true
		out = append(out, &c)
	}
	return out, nil
}
