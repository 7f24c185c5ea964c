package blob_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// emptyDirs lists the empty directories under root (root itself aside).
func emptyDirs(t *testing.T, root string) []string {
	t.Helper()
	var empty []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() || p == root {
			return err
		}
		if entries, err := os.ReadDir(p); err == nil && len(entries) == 0 {
			rel, _ := filepath.Rel(root, p)
			empty = append(empty, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return empty
}

// Deleting a directory's last blob removes the directories it emptied, up
// to the store's root and never the root itself or above it.
func TestDiskDeleteRemovesTheDirectoriesItEmptied(t *testing.T) {
	d, parent := newDisk(t)
	ctx := context.Background()
	put := func(key string) {
		t.Helper()
		if _, err := d.Put(ctx, key, strings.NewReader(key)); err != nil {
			t.Fatal(err)
		}
	}
	del := func(key string) {
		t.Helper()
		if err := d.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(d.Root(), filepath.FromSlash(rel)))
		return err == nil
	}
	put("t1/items/i1/generated/early-7/poster.jpg")
	put("t1/items/i1/generated/set-8/proxy.mp4")
	put("t1/uploads/u1/tail-100")

	del("t1/items/i1/generated/early-7/poster.jpg")
	if exists("t1/items/i1/generated/early-7") || !exists("t1/items/i1/generated/set-8/proxy.mp4") {
		t.Fatalf("after deleting early-7's poster: early-7 exists %v, set-8's proxy %v; want gone, kept",
			exists("t1/items/i1/generated/early-7"), exists("t1/items/i1/generated/set-8/proxy.mp4"))
	}
	del("t1/uploads/u1/tail-100")
	if exists("t1/uploads") || !exists("t1/items") {
		t.Fatalf("after deleting the tail: t1/uploads exists %v, t1/items %v; want gone, kept", exists("t1/uploads"), exists("t1/items"))
	}
	del("t1/items/i1/generated/set-8/proxy.mp4")
	if got := emptyDirs(t, d.Root()); len(got) != 0 || exists("t1") {
		t.Fatalf("empty directories left: %v (t1 exists %v)", got, exists("t1"))
	}
	if _, err := os.Stat(d.Root()); err != nil {
		t.Fatalf("the root went too: %v", err)
	}
	if _, err := os.Stat(parent); err != nil {
		t.Fatalf("the root's parent went: %v", err)
	}
	del("t1/items/i1/missing") // deleting nothing below a missing directory is fine
}

// A multipart upload's staging directory goes with its last upload.
func TestDiskMultipartLeavesNoStagingDirectory(t *testing.T) {
	d, _ := newDisk(t)
	ctx := context.Background()
	for _, finish := range []string{"complete", "abort"} {
		key := "t1/items/i1/original/u1/" + finish + ".bin"
		id, err := d.CreateMultipart(ctx, key, blob.WithPartSize(blob.MinPartSize))
		if err != nil {
			t.Fatal(err)
		}
		part, err := d.UploadPart(ctx, key, id, 1, strings.NewReader("abc"), 3)
		if err != nil {
			t.Fatal(err)
		}
		if finish == "complete" {
			_, err = d.CompleteMultipart(ctx, key, id, []blob.Part{part})
		} else {
			err = d.AbortMultipart(ctx, key, id)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Delete(ctx, "t1/items/i1/original/u1/complete.bin"); err != nil {
		t.Fatal(err)
	}
	if got := emptyDirs(t, d.Root()); len(got) != 0 {
		t.Fatalf("empty directories left: %v", got)
	}
}

// Writers and deleters racing in one directory: a write whose directory a
// delete just removed makes it again; no write fails, every blob written is
// readable until its own delete, and nothing empty is left at the end.
func TestDiskWritesSurviveConcurrentDirectoryRemoval(t *testing.T) {
	d, _ := newDisk(t)
	ctx := context.Background()
	const writers, rounds = 8, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range rounds {
				// Two depths share t1/d: a delete in one empties the
				// other's parent as it is being made.
				key := fmt.Sprintf("t1/d/k%d", g)
				if g%2 == 1 {
					key = fmt.Sprintf("t1/d/e%d/k%d", n%3, g)
				}
				want := fmt.Sprintf("%d-%d", g, n)
				if _, err := d.Put(ctx, key, strings.NewReader(want)); err != nil {
					errs <- fmt.Errorf("put %s: %w", key, err)
					return
				}
				if got, err := read(t, d, key); err != nil || got != want {
					errs <- fmt.Errorf("read %s after put = %q, %v; want %q", key, got, err, want)
					return
				}
				if err := d.Delete(ctx, key); err != nil {
					errs <- fmt.Errorf("delete %s: %w", key, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := emptyDirs(t, d.Root()); len(got) != 0 {
		t.Fatalf("empty directories left: %v", got)
	}
}
