package loupe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The input gate for JSON a client sends: bodies (REST, GraphQL over HTTP)
// are read by ReadJSON; free-form values that a client stores (the JSON
// scalar) are held to their field's JSONLimit by CheckJSON.

// MaxJSONNesting bounds how deeply arrays and objects nest in any body
// Loupe reads, before any field's own limit applies: decoding is recursive,
// and no input of the API needs more.
const MaxJSONNesting = 64

// ErrJSONSyntax is a body that is not one JSON value; each API answers it
// in its own words (REST: the spec's MsgInvalidSyntax).
var ErrJSONSyntax = errors.New("loupe: not one JSON value")

// ReadJSON decodes a client's body: valid UTF-8 (encoding/json would read
// other bytes as U+FFFD, storing the client's text changed without telling
// it), exactly one JSON value, no key twice in one object (encoding/json
// keeps the last silently: which one the client meant is a guess), nested at
// most MaxJSONNesting deep. Numbers stay json.Number, so large integers and
// the client's spelling of a number survive. The errors are ErrNotUTF8,
// ErrJSONSyntax or an EINVALID *Error naming the fault.
func ReadJSON(b []byte) (any, error) {
	if !utf8.Valid(b) {
		return nil, ErrNotUTF8
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ErrJSONSyntax
	}
	return v, nil
}

// readValue reads the value that starts at dec's next token; depth is the
// number of arrays and objects around it.
func readValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, ErrJSONSyntax
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth == MaxJSONNesting {
		return nil, Invalid("JSON nests arrays and objects more than %d deep", MaxJSONNesting)
	}
	switch d {
	case '[':
		list := []any{}
		for dec.More() {
			e, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, e)
		}
		if _, err := dec.Token(); err != nil {
			return nil, ErrJSONSyntax
		}
		return list, nil
	case '{':
		obj := map[string]any{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, ErrJSONSyntax
			}
			k := tok.(string) // the decoder allows only strings here
			if _, dup := obj[k]; dup {
				return nil, Invalid("the key %q appears twice in one object", k)
			}
			e, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			obj[k] = e
		}
		if _, err := dec.Token(); err != nil {
			return nil, ErrJSONSyntax
		}
		return obj, nil
	}
	return nil, ErrJSONSyntax // a closing delimiter where a value belongs
}

// A JSONError is a value past its JSONLimit (or holding U+0000): At says
// where in the value, as a.b[2] ("" for the whole value), so that the
// answer can name the spot under the input's own name.
type JSONError struct {
	At      string
	Message string
}

func (e *JSONError) Error() string {
	if e.At == "" {
		return e.Message
	}
	return e.At + ": " + e.Message
}

// CheckJSON holds a decoded value that a client stores to l and returns it
// encoded; the error is a *JSONError.
func CheckJSON(l JSONLimit, v any) (JSON, error) {
	if err := l.walk(v, 0); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &JSONError{Message: "not a JSON value"}
	}
	if len(b) > l.Bytes {
		return nil, &JSONError{Message: fmt.Sprintf("a JSON value of %d bytes, over the limit of %d", len(b), l.Bytes)}
	}
	return b, nil
}

// walk checks the shape of v, found depth arrays and objects deep.
func (l JSONLimit) walk(v any, depth int) *JSONError {
	switch v := v.(type) {
	case string:
		if strings.IndexByte(v, 0) >= 0 {
			return &JSONError{Message: ErrNUL.Message}
		}
	case []any:
		if depth == l.Depth {
			return l.tooDeep()
		}
		if len(v) > l.Items {
			return &JSONError{Message: fmt.Sprintf("an array of %d elements, over the limit of %d", len(v), l.Items)}
		}
		for i, e := range v {
			if err := l.walk(e, depth+1); err != nil {
				err.At = "[" + strconv.Itoa(i) + "]" + dotted(err.At)
				return err
			}
		}
	case map[string]any:
		if depth == l.Depth {
			return l.tooDeep()
		}
		if len(v) > l.Keys {
			return &JSONError{Message: fmt.Sprintf("an object of %d keys, over the limit of %d", len(v), l.Keys)}
		}
		// In key order, so that the first fault named is always the same.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if strings.IndexByte(k, 0) >= 0 {
				return &JSONError{Message: ErrNUL.Message}
			}
			if err := l.walk(v[k], depth+1); err != nil {
				err.At = k + dotted(err.At)
				return err
			}
		}
	}
	return nil
}

// dotted joins a path below a key: ".b" or "[2]", "" for none.
func dotted(at string) string {
	if at == "" || at[0] == '[' {
		return at
	}
	return "." + at
}

func (l JSONLimit) tooDeep() *JSONError {
	return &JSONError{Message: fmt.Sprintf("arrays and objects nested more than %d deep", l.Depth)}
}
