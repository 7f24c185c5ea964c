package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// A Disk multipart upload is a directory <root>/.uploads/<uploadID>/
// holding "key" (the key it is for) and one file per part, "part-<n>". The
// dot keeps it out of every key's reach and out of List.
const uploadsDir = ".uploads"

// CreateMultipart implements Multiparter.
func (d *Disk) CreateMultipart(_ context.Context, key string, opts ...PutOption) (string, error) {
	if _, err := d.path(key); err != nil {
		return "", err
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("blob: %w", err)
	}
	id := hex.EncodeToString(b)
	dir := filepath.Join(d.root, uploadsDir, id)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("blob: unable to start an upload to %s: %w", key, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key"), []byte(key), 0o640); err != nil {
		return "", fmt.Errorf("blob: unable to start an upload to %s: %w", key, err)
	}
	return id, nil
}

// uploadDir is the directory of an upload to key, or ErrNoSuchUpload.
func (d *Disk) uploadDir(key, uploadID string) (string, error) {
	if b, err := hex.DecodeString(uploadID); err != nil || len(b) != 16 {
		return "", ErrNoSuchUpload
	}
	dir := filepath.Join(d.root, uploadsDir, uploadID)
	k, err := os.ReadFile(filepath.Join(dir, "key"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", ErrNoSuchUpload
		}
		return "", fmt.Errorf("blob: unable to read upload %s: %w", uploadID, err)
	}
	if string(k) != key {
		return "", ErrNoSuchUpload // as S3: an upload id is only valid with its key
	}
	return dir, nil
}

func partFile(dir string, number int) string {
	return filepath.Join(dir, "part-"+strconv.Itoa(number))
}

// UploadPart implements Multiparter.
func (d *Disk) UploadPart(ctx context.Context, key, uploadID string, number int, r io.Reader, size int64) (Part, error) {
	if number < 1 || number > MaxParts {
		return Part{}, fmt.Errorf("%w: part number %d", ErrInvalidPart, number)
	}
	if size < 0 || size > MaxPartSize {
		return Part{}, fmt.Errorf("%w: part size %d", ErrInvalidPart, size)
	}
	dir, err := d.uploadDir(key, uploadID)
	if err != nil {
		return Part{}, err
	}
	p := partFile(dir, number)
	err = d.writeAtomically(key, p, func(f *os.File) error {
		n, err := io.Copy(f, io.LimitReader(ctxReader{ctx, r}, size+1))
		if err != nil {
			return err
		}
		if n != size {
			return fmt.Errorf("%w: part %d has %d bytes, not the %d announced", ErrInvalidPart, number, n, size)
		}
		return nil
	})
	if err != nil {
		return Part{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return Part{}, fmt.Errorf("blob: unable to store part %d of %s: %w", number, key, err)
	}
	return Part{Number: number, ETag: fileETag(st), Size: st.Size()}, nil
}

// CompleteMultipart implements Multiparter.
func (d *Disk) CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) (Object, error) {
	p, err := d.path(key)
	if err != nil {
		return Object{}, err
	}
	dir, err := d.uploadDir(key, uploadID)
	if err != nil {
		return Object{}, err
	}
	if len(parts) == 0 {
		return Object{}, fmt.Errorf("%w: no parts", ErrInvalidPart)
	}
	files := make([]*os.File, 0, len(parts))
	defer func() {
		for _, f := range files {
			f.Close() //nolint:errcheck // read-only
		}
	}()
	for i, part := range parts {
		if i > 0 && part.Number <= parts[i-1].Number {
			return Object{}, fmt.Errorf("%w: part %d after part %d", ErrInvalidPart, part.Number, parts[i-1].Number)
		}
		f, err := os.Open(partFile(dir, part.Number))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return Object{}, fmt.Errorf("%w: part %d was not uploaded", ErrInvalidPart, part.Number)
			}
			return Object{}, fmt.Errorf("blob: unable to read part %d of %s: %w", part.Number, key, err)
		}
		files = append(files, f)
		st, err := f.Stat()
		if err != nil {
			return Object{}, fmt.Errorf("blob: unable to read part %d of %s: %w", part.Number, key, err)
		}
		if fileETag(st) != part.ETag {
			return Object{}, fmt.Errorf("%w: part %d has another ETag", ErrInvalidPart, part.Number)
		}
		if i < len(parts)-1 && st.Size() < MinPartSize {
			return Object{}, fmt.Errorf("%w: part %d is smaller than %d bytes", ErrInvalidPart, part.Number, MinPartSize)
		}
	}
	err = d.writeAtomically(key, p, func(t *os.File) error {
		for i, f := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := io.Copy(t, f); err != nil {
				return fmt.Errorf("blob: unable to join part %d of %s: %w", parts[i].Number, key, err)
			}
		}
		return nil
	})
	if err != nil {
		return Object{}, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return Object{}, fmt.Errorf("blob: %s is stored, but its parts remain: %w", key, err)
	}
	return d.Stat(ctx, key)
}

// AbortMultipart implements Multiparter.
func (d *Disk) AbortMultipart(_ context.Context, key, uploadID string) error {
	dir, err := d.uploadDir(key, uploadID)
	if errors.Is(err, ErrNoSuchUpload) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("blob: unable to abort the upload to %s: %w", key, err)
	}
	return nil
}
