package loupe

import (
	"bytes"
	"encoding/json"
	"sort"
)

// checkDelta checks a write of some keys of a settings document (what:
// the tenant configuration, user settings): a JSON object of at most max
// bytes whose values check passes. Keys are checked in name order, so the
// error names the first bad one. It returns the values by key.
func checkDelta(in JSON, what string, max int, check func(name string, raw json.RawMessage) error) (map[string]json.RawMessage, error) {
	if len(in) > max {
		return nil, Invalid("%s would be larger than %d bytes", what, max)
	}
	var delta map[string]json.RawMessage
	if jsonType(in) != "object" || json.Unmarshal(in, &delta) != nil {
		return nil, Invalid("%s must be a JSON object", what)
	}
	names := make([]string, 0, len(delta))
	for k := range delta {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := check(name, delta[name]); err != nil {
			return nil, err
		}
	}
	return delta, nil
}

// jsonType names the type of a JSON value by its first byte.
func jsonType(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}
