package loupe

import (
	"encoding/json"
	"regexp"
	"strings"
)

// The rules of a new item (CreateItem, an upload's item, an ingested
// object's item): what a CreateItemInput may hold and the defaults it
// settles. The store checks what needs the database besides (folders
// exist, the form's fields, a free externalId).

// Limits on item input.
const (
	MaxTitleLength   = 1024
	MaxFolderParents = 100
	maxExternalIDLen = 512
)

var (
	itemTypeRE     = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	languageCodeRE = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
	formIDRE       = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
)

// ValidFormID reports whether id can name a metadata form (1 to 128
// letters, digits, _ and -); one that cannot names none.
func ValidFormID(id string) bool { return formIDRE.MatchString(id) }

// NewItem is a checked CreateItemInput with its defaults settled, ready to
// insert.
type NewItem struct {
	Title    string
	FileName string
	FormID   string
	FormData map[string]json.RawMessage
	Language string
}

// NewItem checks the input and settles the defaults: the title falls back
// to the form's default_title, then to the file name; the form's
// default_title follows the title when the form data does not carry one.
// Returns EINVALID naming the first bad field.
func (in *CreateItemInput) NewItem() (*NewItem, error) {
	n := &NewItem{FormID: "default", Language: "en-US"}
	if !itemTypeRE.MatchString(in.ItemType) {
		return nil, Invalid("invalid itemType %q: lowercase letters, digits, _ and -, starting with a letter", in.ItemType)
	}
	if in.ItemType == "folder" {
		n.FormID = "default_folder"
	}
	if in.OriginalFileName != nil {
		n.FileName = strings.TrimSpace(*in.OriginalFileName)
	}
	n.FormData = map[string]json.RawMessage{}
	if in.Metadata != nil {
		if in.Metadata.FormID != nil {
			if !ValidFormID(*in.Metadata.FormID) {
				return nil, Invalid("invalid metadata.formId %q", *in.Metadata.FormID)
			}
			n.FormID = *in.Metadata.FormID
		}
		if !in.Metadata.FormData.IsNull() {
			if err := json.Unmarshal(in.Metadata.FormData, &n.FormData); err != nil || n.FormData == nil {
				return nil, Invalid("metadata.formData must be an object")
			}
		}
	}
	if in.Title != nil {
		n.Title = strings.TrimSpace(*in.Title)
	}
	if n.Title == "" {
		var t string
		if raw, ok := n.FormData["default_title"]; ok && json.Unmarshal(raw, &t) == nil {
			n.Title = strings.TrimSpace(t)
		}
	}
	if n.Title == "" {
		n.Title = n.FileName
	}
	if n.Title == "" {
		return nil, Invalid("title is required (or originalFileName, or metadata.formData.default_title)")
	}
	if len(n.Title) > MaxTitleLength {
		return nil, Invalid("title is longer than %d bytes", MaxTitleLength)
	}
	if _, ok := n.FormData["default_title"]; !ok {
		n.FormData["default_title"] = RawJSON(n.Title)
	}
	if in.LanguageCode != nil {
		if !languageCodeRE.MatchString(*in.LanguageCode) {
			return nil, Invalid("invalid languageCode %q: expected a BCP 47 tag such as en-US", *in.LanguageCode)
		}
		n.Language = *in.LanguageCode
	}
	if in.ExternalID != nil && (strings.TrimSpace(*in.ExternalID) == "" || len(*in.ExternalID) > maxExternalIDLen) {
		return nil, Invalid("externalId must be 1 to %d characters", maxExternalIDLen)
	}
	if len(in.FolderParents) > MaxFolderParents {
		return nil, Invalid("an item can sit in at most %d folders", MaxFolderParents)
	}
	if in.ItemType == "folder" && len(in.FolderParents) > 1 {
		return nil, Invalid("a folder has at most one parent folder")
	}
	seen := map[string]bool{}
	for _, id := range in.FolderParents {
		if seen[id] {
			return nil, Invalid("folderParents lists %s twice", id)
		}
		seen[id] = true
	}
	return n, nil
}

// RawJSON encodes v as one value of form data.
func RawJSON(v any) json.RawMessage { return json.RawMessage(JSONOf(v)) }
