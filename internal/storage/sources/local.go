package sources

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// What the media tools (ffmpeg, the analysis engines) read a stored file
// as: they take paths and URLs, not stores.

// Input is what a tool reads key of files as without copying it: the file
// itself on local disk, else a presigned URL valid for ttl (ffmpeg seeks
// with HTTP ranges). False when the store offers neither.
func Input(ctx context.Context, files blob.Store, key string, ttl time.Duration) (string, bool, error) {
	switch f := files.(type) {
	case *blob.Disk:
		p, err := f.LocalPath(key)
		return p, err == nil, err
	case blob.Presigner:
		u, err := f.Presign(ctx, "GET", key, ttl)
		return u, err == nil, err
	}
	return "", false, nil
}

// Local is a local path of key in files: the file itself on local disk,
// else a copy downloaded into dir, named name plus key's extension.
// blob.ErrNotFound when there is no such file.
func Local(ctx context.Context, files blob.Store, key, dir, name string) (string, error) {
	if d, ok := files.(*blob.Disk); ok {
		p, err := d.LocalPath(key)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(p); err != nil {
			return "", errors.Join(blob.ErrNotFound, err)
		}
		return p, nil
	}
	p := filepath.Join(dir, name+filepath.Ext(key))
	return p, blob.Download(ctx, files, key, p)
}
