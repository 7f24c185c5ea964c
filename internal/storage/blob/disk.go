package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// notADirectory is what opening a/b answers when a is a file: no blob.
var notADirectory error = syscall.ENOTDIR

// Disk is a Store in a local directory: a key is a path under the root.
// Writes go to a temporary file beside the target and are renamed over it,
// so a reader sees the old blob or the new one, never half of one.
type Disk struct {
	root string
}

// NewDisk returns a store under root, creating the directory if needed.
func NewDisk(root string) (*Disk, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	if err := os.MkdirAll(abs, 0o750); err != nil {
		return nil, fmt.Errorf("blob: unable to create %s: %w", abs, err)
	}
	return &Disk{root: abs}, nil
}

// Root is the directory the store writes under.
func (d *Disk) Root() string { return d.root }

// LocalPath is the file that holds key, for a tool that reads files (ffmpeg,
// libvips) rather than streams.
func (d *Disk) LocalPath(key string) (string, error) { return d.path(key) }

// path maps a key to its file, refusing keys that could leave the root.
func (d *Disk) path(key string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	p := filepath.Join(d.root, filepath.FromSlash(key))
	rel, err := filepath.Rel(d.root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", ErrInvalidKey
	}
	return p, nil
}

// Put implements Store.
func (d *Disk) Put(ctx context.Context, key string, r io.Reader, opts ...PutOption) (Object, error) {
	o := PutOptionsOf(opts)
	if !validSHA256(o.SHA256) {
		return Object{}, fmt.Errorf("blob: %q is no SHA-256", o.SHA256)
	}
	p, err := d.path(key)
	if err != nil {
		return Object{}, err
	}
	hr := newHashingReader(ctx, r, o.SHA256)
	err = d.writeAtomically(key, p, func(f *os.File) error {
		_, err := io.Copy(f, hr)
		return err // the reader's error as is: callers look for *http.MaxBytesError
	})
	if err != nil {
		return Object{Size: hr.n}, err
	}
	obj, err := d.Stat(ctx, key)
	if err != nil {
		return Object{}, err
	}
	obj.SHA256 = hr.sum()
	return obj, nil
}

// writeAtomically creates a temporary file beside p, lets write fill it,
// syncs it and renames it over p; on any failure it removes the temporary
// file and leaves p as it was.
func (d *Disk) writeAtomically(key, p string, write func(*os.File) error) error {
	tmp, err := createTemp(filepath.Dir(p))
	if err != nil {
		return fmt.Errorf("blob: unable to create %s: %w", key, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()           //nolint:errcheck // already failing
			os.Remove(tmp.Name()) //nolint:errcheck // best effort
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("blob: unable to write %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("blob: unable to write %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("blob: unable to store %s: %w", key, err)
	}
	done = true
	return nil
}

// raceRetries bounds how often a write makes its directory again after a
// Delete removed it (removeEmptyDirs) between the making and the writing.
const raceRetries = 100

// createTemp creates a temporary file in dir, making dir (and its parents)
// first. A Delete that emptied dir or a parent may remove it between the
// two: then both again. A temporary file in dir keeps dir from being
// removed until it is renamed to its blob, which keeps it too.
func createTemp(dir string) (*os.File, error) {
	for i := 0; ; i++ {
		err := os.MkdirAll(dir, 0o750)
		if err == nil {
			var f *os.File
			if f, err = os.CreateTemp(dir, ".tmp-*"); err == nil {
				return f, nil
			}
		}
		if !raced(err) || i == raceRetries {
			return nil, err
		}
	}
}

// mkdirAll makes dir and its parents, again when a Delete removed a parent
// it had just made (removeEmptyDirs).
func mkdirAll(dir string) error {
	for i := 0; ; i++ {
		err := os.MkdirAll(dir, 0o750)
		if err == nil || !raced(err) || i == raceRetries {
			return err
		}
	}
}

// renameInto renames from to p, making p's directory first, again when a
// Delete removed it in between (as createTemp).
func renameInto(from, p string) error {
	for i := 0; ; i++ {
		err := os.MkdirAll(filepath.Dir(p), 0o750)
		if err == nil {
			if err = os.Rename(from, p); err == nil {
				return nil
			}
		}
		if !raced(err) || i == raceRetries {
			return err
		}
		if _, serr := os.Lstat(from); serr != nil {
			return err // the source is what is missing
		}
	}
}

// raced reports an error of a directory removed by a concurrent Delete
// while it was being made or used: gone (ENOENT), or — os.MkdirAll's
// answer when another writer made the directory and a Delete removed it
// before MkdirAll could see it — "file exists" (EEXIST).
func raced(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist)
}

// removeEmptyDirs removes dir and then each parent while it is empty,
// stopping below the root (never the root or above it) at the first that
// is not empty or already gone. Rmdir removes only an empty directory,
// atomically: a concurrent write's temporary file keeps its directory, and
// a write that finds its directory gone makes it again (createTemp).
func (d *Disk) removeEmptyDirs(dir string) {
	prefix := d.root + string(filepath.Separator)
	for strings.HasPrefix(dir, prefix) {
		if err := syscall.Rmdir(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Open implements Store. The reader is an *os.File (an io.ReadSeeker).
func (d *Disk) Open(_ context.Context, key string) (io.ReadCloser, int64, time.Time, error) {
	f, st, err := d.open(key)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	return f, st.Size(), st.ModTime(), nil
}

// open opens the regular file under key.
func (d *Disk) open(key string) (*os.File, fs.FileInfo, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, nil, ErrNotFound
	}
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, notADirectory) {
			return nil, nil, ErrNotFound
		}
		return nil, nil, fmt.Errorf("blob: unable to open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close() //nolint:errcheck // read-only
		return nil, nil, fmt.Errorf("blob: unable to open %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		f.Close() //nolint:errcheck // read-only
		return nil, nil, ErrNotFound
	}
	return f, st, nil
}

// OpenRange implements Store.
func (d *Disk) OpenRange(_ context.Context, key string, offset, length int64) (io.ReadCloser, Object, error) {
	f, st, err := d.open(key)
	if err != nil {
		return nil, Object{}, err
	}
	obj := d.object(key, st)
	if offset < 0 || offset > obj.Size {
		f.Close() //nolint:errcheck // read-only
		return nil, Object{}, fmt.Errorf("%w: offset %d of %d bytes", ErrInvalidRange, offset, obj.Size)
	}
	if length < 0 || length > obj.Size-offset {
		length = obj.Size - offset
	}
	return &sectionReadCloser{io.NewSectionReader(f, offset, length), f}, obj, nil
}

type sectionReadCloser struct {
	*io.SectionReader
	io.Closer
}

// Stat implements Store.
func (d *Disk) Stat(_ context.Context, key string) (Object, error) {
	p, err := d.path(key)
	if err != nil {
		return Object{}, ErrNotFound
	}
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, notADirectory) {
			return Object{}, ErrNotFound
		}
		return Object{}, fmt.Errorf("blob: unable to stat %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		return Object{}, ErrNotFound
	}
	return d.object(key, st), nil
}

// object describes the file of key.
func (d *Disk) object(key string, st fs.FileInfo) Object {
	return Object{Key: key, Size: st.Size(), ModTime: st.ModTime(), ETag: fileETag(st)}
}

// fileETag changes whenever the file is replaced (every write is a new file
// renamed into place, with a new modification time) — the way web servers
// derive one without reading the content.
func fileETag(st fs.FileInfo) string {
	return strconv.FormatInt(st.ModTime().UnixNano(), 16) + "-" + strconv.FormatInt(st.Size(), 16)
}

// Copy implements Store: a full copy (copy_file_range where the file system
// has it), never a hard link, so that the two blobs live on independently.
func (d *Disk) Copy(ctx context.Context, dst, src string) (Object, error) {
	dp, err := d.path(dst)
	if err != nil {
		return Object{}, err
	}
	f, _, err := d.open(src)
	if err != nil {
		return Object{}, err
	}
	defer f.Close()
	if src == dst {
		return d.Stat(ctx, dst)
	}
	err = d.writeAtomically(dst, dp, func(t *os.File) error {
		if _, err := io.Copy(t, f); err != nil {
			return fmt.Errorf("blob: unable to copy %s: %w", src, err)
		}
		return nil
	})
	if err != nil {
		return Object{}, err
	}
	return d.Stat(ctx, dst)
}

// Delete implements Store.
func (d *Disk) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, notADirectory):
		return nil
	case err != nil:
		return fmt.Errorf("blob: unable to delete %s: %w", key, err)
	case !st.Mode().IsRegular():
		return nil // a directory holds blobs but is none
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: unable to delete %s: %w", key, err)
	}
	// Keys are paths: a directory whose last blob went would stay behind
	// empty (an early poster's generated/early-N/, an upload's
	// uploads/<id>/), one per item and upload, for ever.
	d.removeEmptyDirs(filepath.Dir(p))
	return nil
}

// ctxReader stops a copy once its context is done (client gone, server
// shutting down).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
