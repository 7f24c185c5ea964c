package pgtest

import (
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/loupe-mam/loupe/migrations"
)

func TestTemplateName(t *testing.T) {
	base := fstest.MapFS{
		"00001_a.sql": {Data: []byte("CREATE TABLE a ();")},
		"00002_b.sql": {Data: []byte("CREATE TABLE b ();")},
	}
	name := func(fsys fstest.MapFS) string {
		t.Helper()
		n, err := templateName(fsys)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	want := name(base)
	if !regexp.MustCompile(`^loupe_tpl_[0-9a-f]{12}$`).MatchString(want) {
		t.Fatalf("templateName = %q", want)
	}
	if got := name(base); got != want {
		t.Fatalf("templateName not stable: %q then %q", want, got)
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
	}{
		{"changed content", fstest.MapFS{
			"00001_a.sql": {Data: []byte("CREATE TABLE a ();")},
			"00002_b.sql": {Data: []byte("CREATE TABLE b (x int);")},
		}},
		{"renamed file", fstest.MapFS{
			"00001_a.sql": {Data: []byte("CREATE TABLE a ();")},
			"00003_b.sql": {Data: []byte("CREATE TABLE b ();")},
		}},
		{"added file", fstest.MapFS{
			"00001_a.sql": {Data: []byte("CREATE TABLE a ();")},
			"00002_b.sql": {Data: []byte("CREATE TABLE b ();")},
			"00003_c.sql": {Data: []byte("")},
		}},
	} {
		if got := name(tc.fsys); got == want {
			t.Errorf("%s: template name unchanged (%s)", tc.name, got)
		}
	}
	if _, err := templateName(migrations.FS); err != nil {
		t.Fatalf("templateName(migrations.FS): %v", err)
	}
}
