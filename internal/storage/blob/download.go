package blob

import (
	"context"
	"os"
)

// Download copies the file under key into a new local file at path (for
// tools that read files only: ffmpeg on a small original, the analysis
// engines on a proxy). ErrNotFound when there is no such file.
func Download(ctx context.Context, s Store, key, path string) error {
	rc, _, _, err := s.Open(ctx, key)
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.ReadFrom(rc); err != nil {
		return err
	}
	return f.Close()
}

// PutFile stores the local file at path under key, with its content type
// and size (a tool's output: a render, a recording's segment or original).
func PutFile(ctx context.Context, s Store, key, path, contentType string) (Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return Object{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Object{}, err
	}
	return s.Put(ctx, key, f, WithContentType(contentType), WithSize(st.Size()))
}
