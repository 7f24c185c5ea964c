package blobtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

var objectBehaviours = []behaviour{
	{"put and get a streamed multi-MiB body", roundtrip},
	{"empty blob", emptyBlob},
	{"range reads", rangeReads},
	{"open seeks", openSeeks},
	{"overwrite is atomic", overwriteIsAtomic},
	{"missing blob is ErrNotFound", missing},
	{"delete is idempotent", deleteIsIdempotent},
	{"invalid keys are refused", invalidKeys},
	{"checksum", checksum},
	{"failed body stores nothing", failedBody},
	{"stat", stat},
}

func roundtrip(t *testing.T, b Backend) {
	// Over three parts where the backend has parts, and not a multiple of
	// anything.
	size := max(3*b.PartSize, 12*MiB) + 12345
	src := body{seed: 1, n: size}
	const key = "t1/items/i1/original/clip.mov"
	obj := put(t, b.Store, key, src.reader())
	if obj.Key != key || obj.Size != size || obj.SHA256 != src.sha256() || obj.ETag == "" {
		t.Fatalf("Put = %+v; want key %s, size %d, SHA-256 %s and an ETag", obj, key, size, src.sha256())
	}
	n, sum := sumOf(t, b.Store, key)
	if n != size || sum != src.sha256() {
		t.Fatalf("read back %d bytes with SHA-256 %s; want %d, %s", n, sum, size, src.sha256())
	}
	got, err := blob.SHA256Of(ctx, b.Store, key)
	if err != nil || got != src.sha256() {
		t.Fatalf("SHA256Of = %s, %v", got, err)
	}
}

func emptyBlob(t *testing.T, b Backend) {
	const key = "t1/empty"
	obj := put(t, b.Store, key, strings.NewReader(""))
	empty := sha256.Sum256(nil)
	if obj.Size != 0 || obj.SHA256 != hex.EncodeToString(empty[:]) {
		t.Fatalf("Put of nothing = %+v", obj)
	}
	if got := content(t, b.Store, key); got != "" {
		t.Fatalf("read %q", got)
	}
	rc, o, err := b.Store.OpenRange(ctx, key, 0, -1)
	if err != nil {
		t.Fatalf("OpenRange(0, -1) of an empty blob: %v", err)
	}
	defer rc.Close()
	if p, _ := io.ReadAll(rc); len(p) != 0 || o.Size != 0 {
		t.Fatalf("OpenRange of an empty blob read %d bytes, size %d", len(p), o.Size)
	}
}

func rangeReads(t *testing.T, b Backend) {
	const key = "t1/items/i1/proxy.mp4"
	src := body{seed: 2, n: 3*MiB + 17}
	whole := src.bytes()
	put(t, b.Store, key, src.reader())
	size := src.n
	cases := []struct {
		name           string
		offset, length int64
		want           []byte
		err            error
	}{
		{"head", 0, 10, whole[:10], nil},
		{"middle", MiB, MiB, whole[MiB : 2*MiB], nil},
		{"to the end", size - 100, -1, whole[size-100:], nil},
		{"longer than the rest", size - 3, 10, whole[size-3:], nil},
		{"whole", 0, -1, whole, nil},
		{"at the end", size, 5, nil, nil},
		{"nothing", 7, 0, nil, nil},
		{"past the end", size + 1, 1, nil, blob.ErrInvalidRange},
		{"negative", -1, 1, nil, blob.ErrInvalidRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc, obj, err := b.Store.OpenRange(ctx, key, c.offset, c.length)
			if c.err != nil {
				wantErr(t, "OpenRange", err, c.err)
				return
			}
			if err != nil {
				t.Fatalf("OpenRange(%d, %d): %v", c.offset, c.length, err)
			}
			defer rc.Close()
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if !equalBytes(got, c.want) || obj.Size != size || obj.Key != key {
				t.Fatalf("OpenRange(%d, %d) read %d bytes (want %d), object %+v", c.offset, c.length, len(got), len(c.want), obj)
			}
		})
	}
}

// openSeeks: Open's reader seeks on every backend, so that the /blobs/
// handler answers Range requests (http.ServeContent) whatever the store.
func openSeeks(t *testing.T, b Backend) {
	const key = "t1/seek"
	src := body{seed: 3, n: 2*MiB + 5}
	whole := src.bytes()
	put(t, b.Store, key, src.reader())
	rc, size, mod, err := b.Store.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if size != src.n || mod.IsZero() {
		t.Fatalf("Open: size %d, modified %v", size, mod)
	}
	rs, ok := rc.(io.ReadSeeker)
	if !ok {
		t.Fatalf("Open answered a %T, not an io.ReadSeeker", rc)
	}
	p := make([]byte, 1000)
	for _, off := range []int64{0, MiB, 5, 2*MiB + 5 - 1000} {
		if n, err := rs.Seek(off, io.SeekStart); err != nil || n != off {
			t.Fatalf("Seek(%d) = %d, %v", off, n, err)
		}
		if _, err := io.ReadFull(rs, p); err != nil || !equalBytes(p, whole[off:off+1000]) {
			t.Fatalf("read at %d: %v or other bytes", off, err)
		}
	}
	if end, err := rs.Seek(0, io.SeekEnd); err != nil || end != src.n {
		t.Fatalf("Seek(0, end) = %d, %v", end, err)
	}
	if n, err := rs.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("read at the end = %d, %v", n, err)
	}
}

// overwriteIsAtomic: while a replacement streams in (and when it fails),
// readers see the old blob whole; once it is stored, the new one.
func overwriteIsAtomic(t *testing.T, b Backend) {
	const key = "t1/items/i1/poster.png"
	put(t, b.Store, key, strings.NewReader("the old version"))

	next := body{seed: 4, n: max(2*b.PartSize, 6*MiB) + 1}
	for _, fail := range []bool{true, false} {
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			_, err := b.Store.Put(ctx, key, pr)
			done <- err
		}()
		// Feed more than a part, so that S3 has a multipart upload in
		// flight, then look.
		half := next.n/2 + b.PartSize
		if _, err := io.CopyN(pw, next.reader(), min(half, next.n-1)); err != nil {
			t.Fatal(err)
		}
		if got := content(t, b.Store, key); got != "the old version" {
			t.Fatalf("while the replacement is under way: %d bytes, want the old blob", len(got))
		}
		if fail {
			pw.CloseWithError(errors.New("connection reset"))
			if err := <-done; err == nil {
				t.Fatal("a Put whose body failed succeeded")
			}
			if got := content(t, b.Store, key); got != "the old version" {
				t.Fatalf("after a failed replacement: %d bytes, want the old blob", len(got))
			}
			continue
		}
		// The rest of the body.
		rest := io.MultiReader(next.reader())
		io.CopyN(io.Discard, rest, min(half, next.n-1)) //nolint:errcheck // a generator
		if _, err := io.Copy(pw, rest); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		if err := <-done; err != nil {
			t.Fatalf("Put: %v", err)
		}
		if n, sum := sumOf(t, b.Store, key); n != next.n || sum != next.sha256() {
			t.Fatalf("after the replacement: %d bytes, SHA-256 %s; want the new blob", n, sum)
		}
	}
}

func missing(t *testing.T, b Backend) {
	const key = "t1/never/written"
	_, _, _, err := b.Store.Open(ctx, key)
	wantErr(t, "Open", err, blob.ErrNotFound)
	_, _, err = b.Store.OpenRange(ctx, key, 0, 10)
	wantErr(t, "OpenRange", err, blob.ErrNotFound)
	_, _, err = b.Store.OpenRange(ctx, key, 0, 0)
	wantErr(t, "OpenRange of nothing", err, blob.ErrNotFound)
	_, err = b.Store.Stat(ctx, key)
	wantErr(t, "Stat", err, blob.ErrNotFound)
	_, err = b.Store.Copy(ctx, "t1/copy", key)
	wantErr(t, "Copy", err, blob.ErrNotFound)
	_, err = blob.SHA256Of(ctx, b.Store, key)
	wantErr(t, "SHA256Of", err, blob.ErrNotFound)
	// A prefix of stored keys (a directory, on disk) is no blob either.
	put(t, b.Store, "t1/items/i1/a", strings.NewReader("x"))
	_, err = b.Store.Stat(ctx, "t1/items")
	wantErr(t, "Stat of a prefix", err, blob.ErrNotFound)
	_, _, _, err = b.Store.Open(ctx, "t1/items")
	wantErr(t, "Open of a prefix", err, blob.ErrNotFound)
	// Below a blob, as if it were a directory.
	_, err = b.Store.Stat(ctx, "t1/items/i1/a/b")
	wantErr(t, "Stat below a blob", err, blob.ErrNotFound)
}

func deleteIsIdempotent(t *testing.T, b Backend) {
	const key = "t1/items/i1/attachments/a.pdf"
	put(t, b.Store, key, strings.NewReader("pdf"))
	for i := range 2 {
		if err := b.Store.Delete(ctx, key); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		_, err := b.Store.Stat(ctx, key)
		wantErr(t, "Stat after Delete", err, blob.ErrNotFound)
	}
	if err := b.Store.Delete(ctx, "t1/never/was"); err != nil {
		t.Fatalf("Delete of a blob never written: %v", err)
	}
	// Deleting a prefix deletes nothing.
	put(t, b.Store, "t1/keep/me", strings.NewReader("x"))
	if err := b.Store.Delete(ctx, "t1/keep"); err != nil {
		t.Fatalf("Delete of a prefix: %v", err)
	}
	if got := content(t, b.Store, "t1/keep/me"); got != "x" {
		t.Fatalf("after deleting its prefix the blob holds %q", got)
	}
}

func invalidKeys(t *testing.T, b Backend) {
	bad := []string{
		"", "../outside", "a/../../outside", "/etc/passwd", "a//b", "a/./b", "a/../b", "a/", "./a",
		".hidden", "a/.tmp-123", `a\..\..\outside`, "a\x00b", "a\nb", strings.Repeat("k", blob.MaxKeyLen+1), "\xff",
	}
	put(t, b.Store, "t1/good", strings.NewReader("x"))
	m, _ := b.Store.(blob.Multiparter)
	for _, key := range bad {
		t.Run(key, func(t *testing.T) {
			_, err := b.Store.Put(ctx, key, strings.NewReader("x"))
			wantErr(t, "Put", err, blob.ErrInvalidKey)
			wantErr(t, "Delete", b.Store.Delete(ctx, key), blob.ErrInvalidKey)
			_, err = b.Store.Copy(ctx, key, "t1/good")
			wantErr(t, "Copy to it", err, blob.ErrInvalidKey)
			_, _, _, err = b.Store.Open(ctx, key)
			wantErr(t, "Open", err, blob.ErrNotFound)
			_, _, err = b.Store.OpenRange(ctx, key, 0, 1)
			wantErr(t, "OpenRange", err, blob.ErrNotFound)
			_, err = b.Store.Stat(ctx, key)
			wantErr(t, "Stat", err, blob.ErrNotFound)
			_, err = b.Store.Copy(ctx, "t1/copy", key)
			wantErr(t, "Copy from it", err, blob.ErrNotFound)
			if m != nil {
				_, err = m.CreateMultipart(ctx, key)
				wantErr(t, "CreateMultipart", err, blob.ErrInvalidKey)
			}
			if b.Presigner != nil {
				_, err = b.Presigner.Presign(ctx, "GET", key, time.Hour)
				wantErr(t, "Presign", err, blob.ErrInvalidKey)
			}
		})
	}
	page, _, err := b.Store.List(ctx, "", "", 0)
	if err != nil || len(page) != 1 || page[0].Key != "t1/good" {
		t.Fatalf("after refused writes the store lists %+v, %v; want only t1/good", page, err)
	}
}

func checksum(t *testing.T, b Backend) {
	const key = "t1/items/i1/original/verified.mxf"
	small := body{seed: 5, n: 1000}
	large := body{seed: 6, n: max(2*b.PartSize, 6*MiB) + 99}
	for _, src := range []body{small, large} {
		obj := put(t, b.Store, key, src.reader(), blob.WithSHA256(strings.ToUpper(src.sha256())))
		if obj.SHA256 != src.sha256() || obj.Size != src.n {
			t.Fatalf("Put with the right checksum = %+v", obj)
		}
	}
	for _, src := range []body{small, large} {
		_, err := b.Store.Put(ctx, key, streamOnly{src.reader()}, blob.WithSHA256(body{seed: 9, n: 1}.sha256()))
		wantErr(t, "Put with another checksum", err, blob.ErrChecksum)
		if n, sum := sumOf(t, b.Store, key); n != large.n || sum != large.sha256() {
			t.Fatalf("after a refused body the blob has %d bytes; want the previous one", n)
		}
	}
	if _, err := b.Store.Put(ctx, key, strings.NewReader("x"), blob.WithSHA256("not hex")); err == nil {
		t.Fatal("Put with a malformed checksum succeeded")
	}
	if n, _ := sumOf(t, b.Store, key); n != large.n {
		t.Fatal("a Put with a malformed checksum changed the blob")
	}
}

// failingReader yields n bytes, then fails with err.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

var errBodyCut = errors.New("body cut")

func failedBody(t *testing.T, b Backend) {
	const key = "t1/items/i1/thumbnails/0-x"
	put(t, b.Store, key, strings.NewReader("old"))
	for _, n := range []int64{5000, max(2*b.PartSize, 6*MiB) + 1} {
		_, err := b.Store.Put(ctx, key, &failingReader{io.LimitReader(body{seed: 7, n: n}.reader(), n), errBodyCut})
		wantErr(t, "Put from a failing body", err, errBodyCut)
		if got := content(t, b.Store, key); got != "old" {
			t.Fatalf("after a failed Put: %d bytes, want the old blob", len(got))
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := b.Store.Put(cctx, key, strings.NewReader("new"))
	wantErr(t, "Put with a cancelled context", err, context.Canceled)
	if got := content(t, b.Store, key); got != "old" {
		t.Fatalf("after a cancelled Put: %q", got)
	}
	page, _, err := b.Store.List(ctx, "", "", 0)
	if err != nil || len(page) != 1 {
		t.Fatalf("after failed Puts the store lists %+v, %v; want the one blob", page, err)
	}
}

func stat(t *testing.T, b Backend) {
	const key = "t1/items/i1/strip.jpg"
	before := time.Now().Add(-2 * time.Second)
	first := put(t, b.Store, key, strings.NewReader("first"))
	st, err := b.Store.Stat(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if st.Key != key || st.Size != 5 || st.ETag != first.ETag || st.ModTime.Before(before) || st.ModTime.After(time.Now().Add(2*time.Second)) {
		t.Fatalf("Stat = %+v after Put answered %+v", st, first)
	}
	time.Sleep(10 * time.Millisecond)
	second := put(t, b.Store, key, strings.NewReader("second"))
	st2, err := b.Store.Stat(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if st2.ETag == st.ETag || st2.ETag != second.ETag || st2.Size != 6 {
		t.Fatalf("Stat after a replacement = %+v (was %+v)", st2, st)
	}
}
