package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

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
func (d *Disk) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := d.path(key)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return 0, fmt.Errorf("blob: unable to create directory for %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("blob: unable to create %s: %w", key, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()           //nolint:errcheck // already failing
			os.Remove(tmp.Name()) //nolint:errcheck // best effort
		}
	}()
	n, err := io.Copy(tmp, ctxReader{ctx, r})
	if err != nil {
		return n, err // the reader's error as is: callers look for *http.MaxBytesError
	}
	if err := tmp.Sync(); err != nil {
		return n, fmt.Errorf("blob: unable to write %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return n, fmt.Errorf("blob: unable to write %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return n, fmt.Errorf("blob: unable to store %s: %w", key, err)
	}
	done = true
	return n, nil
}

// Open implements Store. The reader is an *os.File (an io.ReadSeeker).
func (d *Disk) Open(_ context.Context, key string) (io.ReadCloser, int64, time.Time, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, 0, time.Time{}, ErrNotFound
	}
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, time.Time{}, ErrNotFound
		}
		return nil, 0, time.Time{}, fmt.Errorf("blob: unable to open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close() //nolint:errcheck // read-only
		return nil, 0, time.Time{}, fmt.Errorf("blob: unable to open %s: %w", key, err)
	}
	if !st.Mode().IsRegular() {
		f.Close() //nolint:errcheck // read-only
		return nil, 0, time.Time{}, ErrNotFound
	}
	return f, st.Size(), st.ModTime(), nil
}

// Delete implements Store.
func (d *Disk) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: unable to delete %s: %w", key, err)
	}
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
