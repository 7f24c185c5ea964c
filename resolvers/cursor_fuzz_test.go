package resolvers

import (
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/store"
)

// The cursors clients hand back (after, nextToken): any string is either
// refused EINVALID or a position the store accepts, and what Loupe encodes
// reads back the same.

func FuzzItemCursor(f *testing.F) {
	f.Add(encodeCursor(loupe.NewID()))
	f.Add("")
	f.Add("not base64!")
	f.Add(encodeCursor("x"))
	f.Fuzz(func(t *testing.T, s string) {
		q, err := itemQuery(nil, &s, nil, nil)
		if err != nil {
			if loupe.ErrorKind(err) != loupe.EINVALID {
				t.Fatalf("itemQuery(after %q): %v", s, err)
			}
			return
		}
		if q.After != "" && !loupe.ValidID(q.After) {
			t.Fatalf("after %q gave the store the position %q", s, q.After)
		}
	})
}

func FuzzChangeCursor(f *testing.F) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
	f.Add(encodeChangeCursor(&store.Item{ID: loupe.NewID(), ModifiedOn: at}))
	f.Add(encodeCursor("2026-11-24T12:00:00Z|x"))
	f.Add(encodeCursor("|"))
	f.Fuzz(func(t *testing.T, s string) {
		q, err := changesQuery(at, nil, &s)
		if err != nil {
			if loupe.ErrorKind(err) != loupe.EINVALID {
				t.Fatalf("changesQuery(after %q): %v", s, err)
			}
			return
		}
		if q.After != "" && !loupe.ValidID(q.After) {
			t.Fatalf("after %q gave the store the position %q", s, q.After)
		}
		again := encodeChangeCursor(&store.Item{ID: q.After, ModifiedOn: q.AfterModified})
		at2, id2, err := decodeChangeCursor(again)
		if err != nil || !at2.Equal(q.AfterModified) || id2 != q.After {
			t.Fatalf("cursor %q re-encoded as %q reads %v %q %v", s, again, at2, id2, err)
		}
	})
}
