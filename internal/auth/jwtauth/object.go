package jwtauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object's members by their exact names. Headers, claims
// and keys are read through it rather than by json.Unmarshal into structs
// because encoding/json matches field names case-insensitively and keeps
// the last of duplicate members: "Sub" or "EXP" must not stand in for
// "sub" or "exp" (RFC 7519 names are case-sensitive), and a document whose
// meaning depends on which duplicate a parser keeps is refused.
type object map[string]json.RawMessage

func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, ok := t.(string)
		if !ok {
			return nil, errors.New("malformed JSON object")
		}
		if _, dup := o[name]; dup {
			return nil, fmt.Errorf("member %q appears twice", name)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o[name] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

// member decodes the member name into a T, or returns nil if it is absent
// or null. A value of another JSON type is an error.
func member[T any](o object, name string) (*T, error) {
	raw, ok := o[name]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return v, nil
}

// members decodes several members, stopping at the first error: the
// boilerplate of reading a header, a claims set or a key.
type members struct {
	o   object
	err error
}

func str(m *members, name string) string {
	if p := get[string](m, name); p != nil {
		return *p
	}
	return ""
}

func get[T any](m *members, name string) *T {
	if m.err != nil {
		return nil
	}
	v, err := member[T](m.o, name)
	if err != nil {
		m.err = err
	}
	return v
}
