package resolvers

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/loupe-mam/loupe/graph/scalar"
)

// jsonw appends JSON by hand, for the records with many small values (a
// folder content page: 50 hits of 16 values each), where encoding/json's
// reflection was a sixth of the request.
type jsonw []byte

func (w jsonw) str(s string) jsonw {
	w = append(w, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			w = append(w, s[start:i]...)
			switch c {
			case '"', '\\':
				w = append(w, '\\', c)
			case '\n':
				w = append(w, '\\', 'n')
			case '\r':
				w = append(w, '\\', 'r')
			case '\t':
				w = append(w, '\\', 't')
			default:
				w = append(w, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 { // invalid UTF-8, as encoding/json writes it
			w = append(w, s[start:i]...)
			w = append(w, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	w = append(w, s[start:]...)
	return append(w, '"')
}

const hex = "0123456789abcdef"

// strs writes a list of strings; nil is [] (a non-null GraphQL list).
func (w jsonw) strs(list []string) jsonw {
	w = append(w, '[')
	for i, s := range list {
		if i > 0 {
			w = append(w, ',')
		}
		w = w.str(s)
	}
	return append(w, ']')
}

func (w jsonw) optStr(s *string) jsonw {
	if s == nil {
		return append(w, "null"...)
	}
	return w.str(*s)
}

func (w jsonw) int(n int) jsonw { return strconv.AppendInt(w, int64(n), 10) }

// time writes a time as the DateTime scalar does.
func (w jsonw) time(t time.Time) jsonw {
	w = append(w, '"')
	w = t.UTC().AppendFormat(w, scalar.Layout)
	return append(w, '"')
}

// key writes "k": after a comma, or opening the object with its first key
// (the caller closes it). k is a constant with nothing to escape.
func (w jsonw) key(k string, first bool) jsonw {
	if first {
		w = append(w, '{')
	} else {
		w = append(w, ',')
	}
	w = append(w, '"')
	w = append(w, k...)
	return append(w, '"', ':')
}
