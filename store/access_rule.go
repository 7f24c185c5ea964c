package store

import (
	"github.com/loupe-mam/loupe"

	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
)

// AccessLevel says who an access rule admits (spec 2.10).
type AccessLevel string

const (
	AccessTenant         AccessLevel = "tenant"
	AccessSelectedGroups AccessLevel = "selected_groups"
)

func (l AccessLevel) MarshalGQL(w io.Writer) { loupe.MarshalEnum(w, string(l)) }
func (l *AccessLevel) UnmarshalGQL(v any) (err error) {
	*l, err = loupe.UnmarshalEnum(v, "access level", AccessTenant, AccessSelectedGroups)
	return err
}

// Access is a folder's visibleTo or updatableBy rule.
type Access struct {
	Level  AccessLevel `json:"level"`
	Groups []string    `json:"groups"`
}

// TenantAccess admits everyone in the tenant: the default for new folders.
func TenantAccess() Access { return Access{Level: AccessTenant, Groups: []string{}} }

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
		return fmt.Errorf("store: cannot scan %T into Access", src)
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
