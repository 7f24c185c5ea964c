package loupe

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
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

// MarshalGQLContext writes the raw value (the JSON scalar's output; the
// signature is gqlgen's graphql.ContextMarshaler).
func (j JSON) MarshalGQLContext(_ context.Context, w io.Writer) error {
	if j.IsNull() {
		_, err := io.WriteString(w, "null")
		return err
	}
	_, err := w.Write(j)
	return err
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
