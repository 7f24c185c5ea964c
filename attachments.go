package loupe

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rules of an attachment's fields as a client writes them (spec 2.6).

// Limits of an attachment's fields.
const (
	MaxFileName       = 255
	MaxDescription    = 4096
	maxAttachmentLang = 35
)

// fileLanguageRE is a BCP 47 tag in its common forms (en, en-US, zh-Hant-TW, es-419).
var fileLanguageRE = regexp.MustCompile(`^[a-zA-Z]{2,3}(-[a-zA-Z]{4})?(-([a-zA-Z]{2}|[0-9]{3}))?$`)

// Validate checks a new attachment's file name, language and description.
// Returns EINVALID naming the field.
func (in *CreateAttachmentInput) Validate() error {
	if err := validFileName("fileName", in.FileName); err != nil {
		return err
	}
	return validAttachmentText(in.Language, in.Description)
}

// Validate checks the fields an attachment's update changes. Returns
// EINVALID naming the field.
func (in *UpdateAttachmentInput) Validate() error {
	if in.NewFileName != nil {
		if err := validFileName("newFileName", *in.NewFileName); err != nil {
			return err
		}
	}
	return validAttachmentText(in.Language, in.Description)
}

// validFileName checks an attachment's file name: 1 to 255 characters, no
// slash and no control characters. It is a name, not a path.
func validFileName(field, name string) error {
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxFileName {
		return Invalid("%s must be 1 to %d characters", field, MaxFileName)
	}
	if strings.ContainsRune(name, '/') {
		return Invalid("%s must not contain /", field)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return Invalid("%s must not contain control characters", field)
		}
	}
	return nil
}

func validAttachmentText(language, description *string) error {
	if language != nil && *language != "" && (len(*language) > maxAttachmentLang || !fileLanguageRE.MatchString(*language)) {
		return Invalid("language must be a BCP 47 tag such as en-US, got %q", *language)
	}
	if description != nil && (!utf8.ValidString(*description) || utf8.RuneCountInString(*description) > MaxDescription) {
		return Invalid("description must be at most %d characters", MaxDescription)
	}
	return nil
}
