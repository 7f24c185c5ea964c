package loupe_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe"
)

func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{loupe.NotFound(), loupe.ENOTFOUND},
		{fmt.Errorf("wrapped: %w", loupe.Invalid("bad %s", "x")), loupe.EINVALID},
		{loupe.Forbidden("no"), loupe.EFORBIDDEN},
		{errors.New("pq: something"), loupe.EINTERNAL}, // never shown to clients
	} {
		if got := loupe.ErrorKind(tc.err); got != tc.want {
			t.Errorf("ErrorKind(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestRequiredText(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want string // "" for valid
	}{
		{"Title", ""},
		{"  ", "title is required"},
		{"", "title is required"},
		{strings.Repeat("é", 5), ""}, // characters, not bytes
		{strings.Repeat("x", 6), "title: at most 5 characters"},
	} {
		err := loupe.RequiredText("title", tc.v, 5)
		got := ""
		if err != nil {
			got = err.(*loupe.Error).Message
		}
		if got != tc.want {
			t.Errorf("RequiredText(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestIDs(t *testing.T) {
	a, b := loupe.NewID(), loupe.NewID()
	if !loupe.ValidID(a) || a >= b {
		t.Errorf("NewID: %s then %s (want valid, time-ordered)", a, b)
	}
	for _, bad := range []string{"", "x", strings.ToUpper(a)[:35], a + "0", "{" + a[1:]} {
		if loupe.ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

func TestJSON(t *testing.T) {
	var j loupe.JSON
	if !j.IsNull() || !loupe.JSON("null").IsNull() || loupe.JSON(`{}`).IsNull() {
		t.Error("IsNull")
	}
	var buf bytes.Buffer
	if err := loupe.JSON(`{"a":[1,"<"]}`).MarshalGQLContext(context.Background(), &buf); err != nil || buf.String() != `{"a":[1,"<"]}` {
		t.Errorf("MarshalGQLContext wrote %s (%v): the raw bytes, as stored", buf.String(), err)
	}
	if v, err := loupe.JSON(nil).Value(); v != nil || err != nil {
		t.Errorf("Value of null = %v, %v; want SQL NULL", v, err)
	}
}

func TestEnums(t *testing.T) {
	var c loupe.CommentType
	if err := c.UnmarshalGQL("reply"); err != nil || c != loupe.CommentReply {
		t.Errorf("CommentType reply: %v %v", c, err)
	}
	if err := c.UnmarshalGQL("REPLY"); loupe.ErrorKind(err) != loupe.EINVALID {
		t.Errorf("CommentType REPLY: %v, want EINVALID (values are the spec's strings)", err)
	}
	if a, err := loupe.ParseAuditAction("archiveInitiated"); err != nil || a != loupe.ActionArchiveInitiated {
		t.Errorf("ParseAuditAction: %v %v", a, err)
	}
	if _, err := loupe.ParseAuditAction("archive"); err == nil || !strings.Contains(err.Error(), "expected one of create, delete") {
		t.Errorf("ParseAuditAction(archive): %v", err)
	}
	var buf bytes.Buffer
	loupe.VersionInRecycleBin.MarshalGQL(&buf)
	if buf.String() != `"IN_RECYCLE_BIN"` {
		t.Errorf("MarshalGQL = %s", buf.String())
	}
}

// Names that may label a metric or name a span: plain identifiers of at
// most 64 bytes, nothing else.
func TestPlainName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"GetItem", true}, {"_x9", true}, {"a", true}, {strings.Repeat("a", 64), true},
		{"", false}, {"9lives", false}, {"get-item", false}, {"naïve", false}, {"a b", false},
		{strings.Repeat("a", 65), false}, {"/api/v1/items/1", false},
	} {
		if got := loupe.PlainName(c.name); got != c.want {
			t.Errorf("loupe.PlainName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
