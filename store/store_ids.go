package store

import (
	"fmt"
	"strings"
)

// IDs reads a uuid[] column. lib/pq's StringArray parses any text array
// (quotes, escapes, NULLs) byte by byte, a visible share of a folder
// content page (docs/performance.md). A uuid[] is written
// {id,id,...} with nothing to unquote, so it is split on its commas.
type IDs []string

// Scan implements sql.Scanner.
func (ids *IDs) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*ids = nil
		return nil
	case []byte:
		s = string(v)
	case string:
		s = v
	default:
		return fmt.Errorf("store: cannot read %T as ids", src)
	}
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' || strings.ContainsAny(s, `"\ `) {
		return fmt.Errorf("store: %q is not a uuid array", s)
	}
	if s = s[1 : len(s)-1]; s == "" {
		*ids = IDs{}
		return nil
	}
	*ids = strings.Split(s, ",")
	return nil
}
