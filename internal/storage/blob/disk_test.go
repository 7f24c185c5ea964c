package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

func newDisk(t *testing.T) (*blob.Disk, string) {
	t.Helper()
	parent := t.TempDir()
	d, err := blob.NewDisk(filepath.Join(parent, "root"))
	if err != nil {
		t.Fatal(err)
	}
	return d, parent
}

func read(t *testing.T, s blob.Store, key string) (string, error) {
	t.Helper()
	rc, size, _, err := s.Open(context.Background(), key)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != size {
		t.Fatalf("Open(%s) said size %d, read %d bytes", key, size, len(b))
	}
	return string(b), nil
}

func TestDiskPutOpenDelete(t *testing.T) {
	d, _ := newDisk(t)
	ctx := context.Background()
	const key = "t1/items/i1/attachments/0190-a.pdf"

	if _, err := read(t, d, key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open before Put: %v, want ErrNotFound", err)
	}
	for _, content := range []string{"first version", "second, longer version", ""} {
		obj, err := d.Put(ctx, key, strings.NewReader(content))
		if err != nil || obj.Size != int64(len(content)) {
			t.Fatalf("Put = %+v, %v", obj, err)
		}
		if got, err := read(t, d, key); err != nil || got != content {
			t.Fatalf("Open after Put = %q, %v; want %q", got, err, content)
		}
	}
	if err := d.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := read(t, d, key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open after Delete: %v", err)
	}
	if err := d.Delete(ctx, key); err != nil {
		t.Fatalf("deleting a missing blob: %v, want nil", err)
	}
	// A directory is no blob.
	if _, err := read(t, d, "t1/items"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open of a directory: %v", err)
	}
}

type failingReader struct{ after int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.after == 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.after)
	copy(p, bytes.Repeat([]byte("x"), n))
	f.after -= n
	return n, nil
}

func TestDiskFailedPutKeepsTheOldBlobAndNoTemporaryFile(t *testing.T) {
	d, _ := newDisk(t)
	ctx := context.Background()
	const key = "t1/items/i1/thumbnails/0-x"
	if _, err := d.Put(ctx, key, strings.NewReader("old")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Put(ctx, key, &failingReader{after: 5000}); err == nil {
		t.Fatal("Put from a failing reader succeeded")
	}
	if got, err := read(t, d, key); err != nil || got != "old" {
		t.Fatalf("after a failed Put: %q, %v; want the old blob", got, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.Put(cctx, key, strings.NewReader("new")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a cancelled context: %v", err)
	}
	entries, err := os.ReadDir(filepath.Join(d.Root(), "t1/items/i1/thumbnails"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "0-x" {
		t.Fatalf("directory holds %v, want only the blob", entries)
	}
}

func TestDiskRefusesKeysThatEscapeOrAreMalformed(t *testing.T) {
	d, parent := newDisk(t)
	ctx := context.Background()
	bad := []string{
		"", "../outside", "a/../../outside", "/etc/passwd", "a//b", "a/./b", "a/../b", "a/", "./a",
		".hidden", "a/.tmp-123", `a\..\..\outside`, "a\x00b", "a\nb", strings.Repeat("k", blob.MaxKeyLen+1), "\xff",
	}
	for _, key := range bad {
		t.Run(key, func(t *testing.T) {
			if _, err := d.Put(ctx, key, strings.NewReader("x")); !errors.Is(err, blob.ErrInvalidKey) {
				t.Fatalf("Put(%q) = %v, want ErrInvalidKey", key, err)
			}
			if err := d.Delete(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Fatalf("Delete(%q) = %v, want ErrInvalidKey", key, err)
			}
			if _, err := read(t, d, key); !errors.Is(err, blob.ErrNotFound) {
				t.Fatalf("Open(%q) = %v, want ErrNotFound", key, err)
			}
		})
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "root" {
		t.Fatalf("something was written beside the root: %v", entries)
	}
	if entries, _ := os.ReadDir(d.Root()); len(entries) != 0 {
		t.Fatalf("refused keys left files in the root: %v", entries)
	}
}

// An upload WithPartSize is written in place: what it cannot hold is
// refused, and its completion moves the file instead of copying it.
func TestDiskMultipartWithPartSize(t *testing.T) {
	d, _ := newDisk(t)
	ctx := context.Background()
	const key, size = "t1/items/i1/original/in-place.mov", blob.MinPartSize
	part := func(seed byte, n int64) *bytes.Reader { return bytes.NewReader(bytes.Repeat([]byte{seed}, int(n))) }
	id, err := d.CreateMultipart(ctx, key, blob.WithPartSize(size))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.UploadPart(ctx, key, id, 1, part('a', size+1), size+1); !errors.Is(err, blob.ErrInvalidPart) {
		t.Fatalf("a part larger than the part size: %v, want ErrInvalidPart", err)
	}
	if _, err := d.UploadPart(ctx, key, id, 1, part('a', size+1), size); !errors.Is(err, blob.ErrInvalidPart) {
		t.Fatalf("a body longer than announced: %v, want ErrInvalidPart", err)
	}
	p1, err := d.UploadPart(ctx, key, id, 1, part('a', size), size)
	if err != nil {
		t.Fatal(err)
	}
	short, err := d.UploadPart(ctx, key, id, 2, part('b', 10), 10)
	if err != nil {
		t.Fatal(err)
	}
	p3, err := d.UploadPart(ctx, key, id, 3, part('c', 7), 7)
	if err != nil {
		t.Fatal(err)
	}
	for name, parts := range map[string][]blob.Part{
		"a gap":                    {p1, p3},
		"not from 1":               {short},
		"a short part before last": {p1, short, p3},
	} {
		if _, err := d.CompleteMultipart(ctx, key, id, parts); !errors.Is(err, blob.ErrInvalidPart) {
			t.Errorf("completion with %s: %v, want ErrInvalidPart", name, err)
		}
	}
	// A failed replacement leaves the part missing, never half replaced.
	if _, err := d.UploadPart(ctx, key, id, 2, part('x', 5), 10); err == nil {
		t.Fatal("a short body was stored")
	}
	if _, err := d.CompleteMultipart(ctx, key, id, []blob.Part{p1, short}); !errors.Is(err, blob.ErrInvalidPart) {
		t.Fatalf("completion with a part whose replacement failed: %v, want ErrInvalidPart", err)
	}
	p2, err := d.UploadPart(ctx, key, id, 2, part('b', 10), 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CompleteMultipart(ctx, key, id, []blob.Part{p1, p2}); err != nil {
		t.Fatal(err)
	}
	got, err := read(t, d, key)
	if err != nil || got != strings.Repeat("a", int(size))+strings.Repeat("b", 10) {
		t.Fatalf("the blob has %d bytes, %v", len(got), err)
	}
	if m, _ := filepath.Glob(filepath.Join(d.Root(), ".uploads", "*")); len(m) != 0 {
		t.Fatalf("the upload's directory remains: %v", m)
	}
}
