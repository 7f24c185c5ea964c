package loupe

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// The rules of folders: names, paths of names, and the access rules a
// folder carries (spec 2.10).

// Limits on folders.
const (
	// MaxFolderDepth bounds a folder path, and how deep the store walks a
	// tree.
	MaxFolderDepth = 64
	// MaxGroupsInRule bounds the groups an access rule names.
	MaxGroupsInRule = 100
)

// ValidFolderName checks a folder name and answers it trimmed: 1 to 256
// characters, no control characters, no slash (paths are made of names).
func ValidFolderName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 256 || strings.ContainsRune(name, '/') ||
		strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", Invalid("invalid folder name %q: 1 to 256 characters, no slash", name)
	}
	return name, nil
}

// FolderPathNames splits a slash-separated folder path into its names, as
// CreateFolderPath does.
func FolderPathNames(path string) ([]string, error) {
	var names []string
	for _, part := range strings.Split(path, "/") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, err := ValidFolderName(part)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	if len(names) == 0 || len(names) > MaxFolderDepth {
		return nil, Invalid("path must name 1 to %d folders, such as /Projects/2026/Promo", MaxFolderDepth)
	}
	return names, nil
}

// AccessLevel says who an access rule admits (spec 2.10).
type AccessLevel string

const (
	AccessTenant         AccessLevel = "tenant"
	AccessSelectedGroups AccessLevel = "selected_groups"
)

func (l AccessLevel) MarshalGQL(w io.Writer) { MarshalEnum(w, string(l)) }
func (l *AccessLevel) UnmarshalGQL(v any) (err error) {
	*l, err = UnmarshalEnum(v, "access level", AccessTenant, AccessSelectedGroups)
	return err
}

// Access is a folder's visibleTo or updatableBy rule.
type Access struct {
	Level  AccessLevel `json:"level"`
	Groups []string    `json:"groups"`
}

// TenantAccess admits everyone in the tenant: the default for new folders.
func TenantAccess() Access { return Access{Level: AccessTenant, Groups: []string{}} }

// Validate normalises an access rule: tenant-wide rules carry no groups;
// group rules need at least one.
func (a *Access) Validate(field string) error {
	switch a.Level {
	case AccessTenant:
		a.Groups = []string{}
	case AccessSelectedGroups:
		if len(a.Groups) == 0 || len(a.Groups) > MaxGroupsInRule {
			return Invalid("%s: selected_groups needs 1 to %d groups", field, MaxGroupsInRule)
		}
		for _, g := range a.Groups {
			if strings.TrimSpace(g) == "" || len(g) > 256 {
				return Invalid("%s: invalid group %q", field, g)
			}
		}
	default:
		return Invalid("%s: invalid level %q: expected tenant or selected_groups", field, a.Level)
	}
	return nil
}

// Scan reads a jsonb column; NULL reads as tenant-wide access.
func (a *Access) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*a = TenantAccess()
		return nil
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return fmt.Errorf("loupe: cannot scan %T into Access", src)
	}
	if err := json.Unmarshal(b, a); err != nil {
		return err
	}
	if a.Groups == nil {
		a.Groups = []string{}
	}
	return nil
}

// Value writes a jsonb column.
func (a Access) Value() (driver.Value, error) {
	b, err := json.Marshal(a)
	return string(b), err
}
