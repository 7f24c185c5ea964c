package resolvers

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/loupe-mam/loupe/graph/scalar"
	"github.com/loupe-mam/loupe/store"
)

// Records are the REST answers of the hottest routes as one JSON value each
// (Item.record, FolderContent.record): gqlgen spends ~6 allocations and a
// context per field it resolves — a third of a get-item's CPU on the 75
// fields of an item record, most of a folder content page's on its 50 × 16
// — and these fields are plain values. A record is encoded here from the
// same objects and the same field resolvers; a test per record holds it
// equal, key for key and in order, to the fields it stands for.

// encodeRecord writes v as gqlgen writes values: HTML characters as they
// are, no trailing newline.
func encodeRecord(v any) (store.JSON, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// dateTime writes a time as the DateTime scalar does.
type dateTime time.Time

func (t dateTime) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, time.Time(t).UTC().Format(scalar.Layout)), nil
}

func optTime(t *time.Time) *dateTime { return (*dateTime)(t) }

// orEmpty is a list as a non-null GraphQL list is written: [] for nil.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
