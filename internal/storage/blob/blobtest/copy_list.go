package blobtest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

var copyListBehaviours = []behaviour{
	{"copy", copyBlob},
	{"copy of a large blob", copyLarge},
	{"list pages in key order", listPaging},
	{"list by prefix", listPrefix},
}

func copyBlob(t *testing.T, b Backend) {
	const src, dst = "t1/items/i1/original/a.mov", "t2/items/i9/original/a.mov"
	put(t, b.Store, src, strings.NewReader("source"))
	put(t, b.Store, dst, strings.NewReader("what was there before"))
	obj, err := b.Store.Copy(ctx, dst, src)
	if err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if obj.Key != dst || obj.Size != 6 || obj.ETag == "" {
		t.Fatalf("Copy = %+v", obj)
	}
	if got := content(t, b.Store, dst); got != "source" {
		t.Fatalf("the copy holds %q", got)
	}
	// The two live on independently.
	put(t, b.Store, src, strings.NewReader("source, changed"))
	if got := content(t, b.Store, dst); got != "source" {
		t.Fatalf("after the source changed the copy holds %q", got)
	}
	if err := b.Store.Delete(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := content(t, b.Store, dst); got != "source" {
		t.Fatalf("after the source was deleted the copy holds %q", got)
	}
	// A copy onto itself changes nothing.
	if obj, err := b.Store.Copy(ctx, dst, dst); err != nil || obj.Size != 6 {
		t.Fatalf("Copy onto itself = %+v, %v", obj, err)
	}
	if got := content(t, b.Store, dst); got != "source" {
		t.Fatalf("after a copy onto itself: %q", got)
	}
}

// copyLarge copies more than the backend's copy part size (S3 then copies
// in parts; see the S3 backend's CopyPartSize in the suite's setup).
func copyLarge(t *testing.T, b Backend) {
	src := body{seed: 8, n: max(2*b.PartSize, 6*MiB) + 4321}
	put(t, b.Store, "t1/big", src.reader(), blob.WithContentType("video/quicktime"))
	obj, err := b.Store.Copy(ctx, "t1/big-copy", "t1/big")
	if err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if obj.Size != src.n {
		t.Fatalf("Copy = %+v, want size %d", obj, src.n)
	}
	if n, sum := sumOf(t, b.Store, "t1/big-copy"); n != src.n || sum != src.sha256() {
		t.Fatalf("the copy has %d bytes, SHA-256 %s; want %d, %s", n, sum, src.n, src.sha256())
	}
	st, err := b.Store.Stat(ctx, "t1/big-copy")
	if err != nil || st.Size != src.n || st.ETag != obj.ETag {
		t.Fatalf("Stat of the copy = %+v, %v; Copy answered %+v", st, err, obj)
	}
}

// listKeys are stored for the listing behaviours: nested, with names that
// sort differently as paths than as strings ("a-b" < "a/…" < "a0" in byte
// order, which is S3's).
var listKeys = []string{
	"p/a/b/c", "p/a-b", "p/a/c", "p/a0", "p/a/b-x", "p/a/b/d", "p/b", "p/ä", "p/z/y/x/w",
	"p/a/ü", "p/a/b/c0", "p/m 1", "p/m-1", "p/m_1", "p/M", "p/0", "p/9/9", "q/outside", "o/outside",
}

func storeKeys(t *testing.T, s blob.Store) map[string]blob.Object {
	t.Helper()
	stored := map[string]blob.Object{}
	for i, k := range listKeys {
		stored[k] = put(t, s, k, strings.NewReader(strings.Repeat("x", i)))
	}
	return stored
}

func listAll(t *testing.T, s blob.Store, prefix, after string, limit int) (keys []string, pages int) {
	t.Helper()
	for {
		page, more, err := s.List(ctx, prefix, after, limit)
		if err != nil {
			t.Fatalf("List(%q, %q, %d): %v", prefix, after, limit, err)
		}
		pages++
		if len(page) > limit || (more && len(page) != limit) {
			t.Fatalf("List(%q, %q, %d) answered %d keys, more=%v", prefix, after, limit, len(page), more)
		}
		for _, o := range page {
			keys = append(keys, o.Key)
		}
		if !more {
			return keys, pages
		}
		after = page[len(page)-1].Key
	}
}

func listPaging(t *testing.T, b Backend) {
	stored := storeKeys(t, b.Store)
	var want []string
	for _, k := range listKeys {
		if strings.HasPrefix(k, "p/") {
			want = append(want, k)
		}
	}
	sort.Strings(want)
	for _, limit := range []int{1, 4, len(want), 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			got, pages := listAll(t, b.Store, "p/", "", limit)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("listed\n%q\nwant\n%q", got, want)
			}
			if wantPages := (len(want) + limit - 1) / limit; pages != wantPages && pages != wantPages+1 {
				t.Fatalf("%d pages of %d, want %d", pages, limit, wantPages)
			}
		})
	}
	// Each listed blob is described as Stat describes it.
	page, _, err := b.Store.List(ctx, "p/", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range page {
		s := stored[o.Key]
		if o.Size != s.Size || o.ETag != s.ETag || o.ModTime.IsZero() {
			t.Fatalf("listed %+v; Put answered %+v", o, s)
		}
	}
	// From a position between keys, and from one that is no key.
	for _, after := range []string{"p/a/b/c", "p/a/b", "p/a/zzz", "p/m"} {
		got, _ := listAll(t, b.Store, "p/", after, 3)
		var w []string
		for _, k := range want {
			if k > after {
				w = append(w, k)
			}
		}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Fatalf("after %q listed\n%q\nwant\n%q", after, got, w)
		}
	}
}

func listPrefix(t *testing.T, b Backend) {
	storeKeys(t, b.Store)
	cases := []struct {
		prefix string
		want   []string
	}{
		{"p/a/", []string{"p/a/b-x", "p/a/b/c", "p/a/b/c0", "p/a/b/d", "p/a/c", "p/a/ü"}},
		{"p/a/b", []string{"p/a/b-x", "p/a/b/c", "p/a/b/c0", "p/a/b/d"}}, // a prefix need not end at a slash
		{"p/m", []string{"p/m 1", "p/m-1", "p/m_1"}},
		{"p/z/y/x/w", []string{"p/z/y/x/w"}},
		{"p/nothing", nil},
		{"", append(append([]string{"o/outside"}, sorted(listKeys[:len(listKeys)-2], "p/")...), "q/outside")},
	}
	for _, c := range cases {
		t.Run(c.prefix, func(t *testing.T) {
			got, _ := listAll(t, b.Store, c.prefix, "", 2)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("listed\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// sorted is the keys with prefix, in byte order.
func sorted(keys []string, prefix string) []string {
	var out []string
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
