package loupe

import (
	"strings"
	"unicode/utf8"
)

// The rules of a new person (spec 2.17): an item of itemType person.

// Limits on persons.
const (
	MaxPersonNameLength        = 256   // characters
	MaxPersonDescriptionLength = 10000 // characters
	MaxPersonImages            = 100
)

// NewPerson is a person to create (GraphQL CreatePersonInput, REST POST
// /api/v1/persons).
type NewPerson struct {
	Name        string
	Description *string
	ImageIDs    []string
}

// Validate trims the name and description and canonicalises the image ids.
// Returns EINVALID naming the first bad field.
func (in *NewPerson) Validate() error {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		return Invalid("name is required")
	}
	if utf8.RuneCountInString(in.Name) > MaxPersonNameLength {
		return Invalid("name must be 1 to %d characters", MaxPersonNameLength)
	}
	if in.Description != nil {
		d := strings.TrimSpace(*in.Description)
		if utf8.RuneCountInString(d) > MaxPersonDescriptionLength {
			return Invalid("description is longer than %d characters", MaxPersonDescriptionLength)
		}
		in.Description = &d
	}
	if len(in.ImageIDs) > MaxPersonImages {
		return Invalid("imageIds: a person has at most %d images", MaxPersonImages)
	}
	ids := make([]string, len(in.ImageIDs))
	seen := make(map[string]bool, len(in.ImageIDs))
	for i, id := range in.ImageIDs {
		if !ValidID(id) {
			return Invalid("imageIds: item %s does not exist", id)
		}
		id = strings.ToLower(id)
		if seen[id] {
			return Invalid("imageIds lists %s twice", id)
		}
		seen[id] = true
		ids[i] = id
	}
	in.ImageIDs = ids
	return nil
}
