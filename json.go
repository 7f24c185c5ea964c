package loupe

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// JSON is a raw JSON value: open shapes such as form data. It passes the bytes
// it was read with straight to GraphQL and REST responses, without decoding
// them into maps on the hot path. A nil JSON is null.
type JSON []byte

// JSONOf encodes v. It panics on values that cannot be encoded, which only
// programming errors produce.
func JSONOf(v any) JSON {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("loupe: JSONOf(%T): %v", v, err))
	}
	return b
}

// IsNull reports whether j is absent or the JSON null.
func (j JSON) IsNull() bool { return len(j) == 0 || bytes.Equal(j, []byte("null")) }

// MarshalGQL writes the raw value (gqlgen scalar).
func (j JSON) MarshalGQL(w io.Writer) {
	if j.IsNull() {
		io.WriteString(w, "null") //nolint:errcheck
		return
	}
	w.Write(j) //nolint:errcheck
}

// UnmarshalGQL accepts any GraphQL input value (gqlgen scalar).
func (j *JSON) UnmarshalGQL(v any) error {
	if v == nil {
		*j = nil
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Invalid("not a JSON value: %v", err)
	}
	// json.Marshal writes U+0000 in a string or key as \u0000, which
	// jsonb refuses; a literal backslash before "u0000" is written \\.
	if bytes.Contains(b, []byte(`\u0000`)) && hasNUL(v) {
		return ErrNUL
	}
	*j = b
	return nil
}

// MarshalJSON writes the raw value.
func (j JSON) MarshalJSON() ([]byte, error) {
	if j.IsNull() {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON keeps a copy of the raw value.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}

// Scan reads a json/jsonb column.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append(JSON(nil), v...)
	case string:
		*j = JSON(v)
	default:
		return fmt.Errorf("loupe: cannot scan %T into JSON", src)
	}
	return nil
}

// Value writes a json/jsonb column.
func (j JSON) Value() (driver.Value, error) {
	if j.IsNull() {
		return nil, nil
	}
	// A string, not bytes: with binary_parameters=yes lib/pq would send
	// bytes in jsonb's binary format, which raw JSON text is not.
	return string(j), nil
}

// Object decodes j as an object; null decodes to an empty map.
func (j JSON) Object() (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if j.IsNull() {
		return m, nil
	}
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// hasNUL reports whether a decoded JSON value holds U+0000 in a string or
// a key.
func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case []any:
		for _, e := range v {
			if hasNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if strings.IndexByte(k, 0) >= 0 || hasNUL(e) {
				return true
			}
		}
	}
	return false
}
