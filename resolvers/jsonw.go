package resolvers

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/scalar"
)

// Records are the REST answers of the hottest routes as one JSON value
// each (Item.record, FolderContent.record). gqlgen spends ~6 allocations
// and a context on every field it resolves — a third of a get-item's CPU
// on the 75 fields of an item record, most of a folder content page's on
// its 50 × 16 — and these fields are plain values. A record is written
// with jsonw from the same objects and the same field resolvers —
// generated from its fragment (records.go) — and a test per record holds
// it equal, key for key and in order, to the fields it stands for.
//
// jsonw appends JSON as gqlgen writes it, a quarter of encoding/json's
// cost on a folder content page (docs/performance.md).
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

func (w jsonw) optInt(n *int64) jsonw {
	if n == nil {
		return append(w, "null"...)
	}
	return strconv.AppendInt(w, *n, 10)
}

// optFloat writes a float as the Float scalar does (%g).
func (w jsonw) optFloat(f *float64) jsonw {
	if f == nil {
		return append(w, "null"...)
	}
	return strconv.AppendFloat(w, *f, 'g', -1, 64)
}

func (w jsonw) bool(b bool) jsonw { return strconv.AppendBool(w, b) }

func (w jsonw) optBool(b *bool) jsonw {
	if b == nil {
		return append(w, "null"...)
	}
	return w.bool(*b)
}

// raw writes a JSON value as the JSON scalar does: as stored.
func (w jsonw) raw(j loupe.JSON) jsonw {
	if j.IsNull() {
		return append(w, "null"...)
	}
	return append(w, j...)
}

// time writes a time as the DateTime scalar does.
func (w jsonw) time(t time.Time) jsonw {
	w = append(w, '"')
	w = t.UTC().AppendFormat(w, scalar.Layout)
	return append(w, '"')
}

func (w jsonw) optTime(t *time.Time) jsonw {
	if t == nil {
		return append(w, "null"...)
	}
	return w.time(*t)
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
