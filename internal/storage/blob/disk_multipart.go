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
	"strings"
)

// A Disk multipart upload is a directory <root>/.uploads/<uploadID>/
// holding "key" (the key it is for) and its parts. The dot keeps it out of
// every key's reach and out of List.
//
// Parts of any size are files "part-<n>", copied one after the other into
// the blob on completion. An upload created WithPartSize(s) writes part n
// in place at (n-1)×s of one file, "data", and keeps "part-<n>" as a
// marker holding the part's size; completing it truncates "data" and
// renames it to the blob: a completion that copied and synced took seconds
// for a large upload (docs/performance.md); the rename takes nothing.
const (
	uploadsDir   = ".uploads"
	partSizeFile = "part-size" // present when the upload has uniform parts
	dataFile     = "data"
)

// CreateMultipart implements Multiparter.
func (d *Disk) CreateMultipart(_ context.Context, key string, opts ...PutOption) (string, error) {
	if _, err := d.path(key); err != nil {
		return "", err
	}
	o := PutOptionsOf(opts)
	if o.PartSize < 0 || o.PartSize > MaxPartSize {
		return "", fmt.Errorf("%w: part size %d", ErrInvalidPart, o.PartSize)
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("blob: %w", err)
	}
	id := hex.EncodeToString(b)
	dir := filepath.Join(d.root, uploadsDir, id)
	if err := mkdirAll(dir); err != nil {
		return "", fmt.Errorf("blob: unable to start an upload to %s: %w", key, err)
	}
	if o.PartSize > 0 {
		if err := os.WriteFile(filepath.Join(dir, partSizeFile), []byte(strconv.FormatInt(o.PartSize, 10)), 0o640); err != nil {
			return "", fmt.Errorf("blob: unable to start an upload to %s: %w", key, err)
		}
	}
	// "key" last: an upload without it does not exist.
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

// uniformPartSize is the upload's part size when it was created
// WithPartSize, else 0.
func uniformPartSize(dir string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, partSizeFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("blob: unable to read an upload's part size: %w", err)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("blob: unreadable part size of an upload: %w", err)
	}
	return n, nil
}

// A part's marker holds "<size> <tag>", the tag random: its ETag is
// "<tag>-<size in hex>", new at every upload of the part (file times are
// too coarse to tell two quick uploads apart).
func readMarker(p string) (size int64, etag string, err error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, "", err
	}
	f := strings.Fields(string(b))
	if len(f) == 2 {
		if size, err = strconv.ParseInt(f[0], 10, 64); err == nil {
			return size, f[1] + "-" + strconv.FormatInt(size, 16), nil
		}
	}
	return 0, "", fmt.Errorf("blob: unreadable part marker %s", p)
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
	uniform, err := uniformPartSize(dir)
	if err != nil {
		return Part{}, err
	}
	if uniform > 0 {
		return d.uploadPartInPlace(ctx, dir, key, number, r, size, uniform)
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

// uploadPartInPlace writes part number at its place in the upload's data
// file, syncs it, then records its marker. The marker goes first: a part
// being replaced is missing until its new bytes are stored (never the old
// marker over half-new bytes).
func (d *Disk) uploadPartInPlace(ctx context.Context, dir, key string, number int, r io.Reader, size, uniform int64) (Part, error) {
	if size > uniform {
		return Part{}, fmt.Errorf("%w: part %d has %d bytes, more than the upload's part size %d", ErrInvalidPart, number, size, uniform)
	}
	marker := partFile(dir, number)
	if err := os.Remove(marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Part{}, fmt.Errorf("blob: unable to replace part %d of %s: %w", number, key, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, dataFile), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return Part{}, fmt.Errorf("blob: unable to store part %d of %s: %w", number, key, err)
	}
	defer f.Close() //nolint:errcheck // synced below; a failed close after that loses nothing
	src := ctxReader{ctx, r}
	n, err := io.CopyN(io.NewOffsetWriter(f, int64(number-1)*uniform), src, size)
	if errors.Is(err, io.EOF) {
		return Part{}, fmt.Errorf("%w: part %d has %d bytes, not the %d announced", ErrInvalidPart, number, n, size)
	}
	if err != nil {
		return Part{}, err
	}
	if k, _ := src.Read(make([]byte, 1)); k > 0 {
		return Part{}, fmt.Errorf("%w: part %d has more than the %d bytes announced", ErrInvalidPart, number, size)
	}
	if err := f.Sync(); err != nil {
		return Part{}, fmt.Errorf("blob: unable to store part %d of %s: %w", number, key, err)
	}
	tag := make([]byte, 8)
	if _, err := rand.Read(tag); err != nil {
		return Part{}, fmt.Errorf("blob: %w", err)
	}
	etag := hex.EncodeToString(tag) + "-" + strconv.FormatInt(size, 16)
	err = d.writeAtomically(key, marker, func(t *os.File) error {
		_, err := fmt.Fprintf(t, "%d %x", size, tag)
		return err
	})
	if err != nil {
		return Part{}, err
	}
	return Part{Number: number, ETag: etag, Size: size}, nil
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
	for i, part := range parts {
		if i > 0 && part.Number <= parts[i-1].Number {
			return Object{}, fmt.Errorf("%w: part %d after part %d", ErrInvalidPart, part.Number, parts[i-1].Number)
		}
	}
	uniform, err := uniformPartSize(dir)
	if err != nil {
		return Object{}, err
	}
	if uniform > 0 {
		err = d.completeInPlace(dir, key, p, parts, uniform)
	} else {
		err = d.join(ctx, dir, key, p, parts)
	}
	if err != nil {
		return Object{}, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return Object{}, fmt.Errorf("blob: %s is stored, but its parts remain: %w", key, err)
	}
	d.removeEmptyDirs(filepath.Dir(dir))
	return d.Stat(ctx, key)
}

// join copies the part files, in order, into the blob.
func (d *Disk) join(ctx context.Context, dir, key, p string, parts []Part) error {
	files := make([]*os.File, 0, len(parts))
	defer func() {
		for _, f := range files {
			f.Close() //nolint:errcheck // read-only
		}
	}()
	for i, part := range parts {
		f, err := os.Open(partFile(dir, part.Number))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%w: part %d was not uploaded", ErrInvalidPart, part.Number)
			}
			return fmt.Errorf("blob: unable to read part %d of %s: %w", part.Number, key, err)
		}
		files = append(files, f)
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("blob: unable to read part %d of %s: %w", part.Number, key, err)
		}
		if fileETag(st) != part.ETag {
			return fmt.Errorf("%w: part %d has another ETag", ErrInvalidPart, part.Number)
		}
		if i < len(parts)-1 && st.Size() < MinPartSize {
			return fmt.Errorf("%w: part %d is smaller than %d bytes", ErrInvalidPart, part.Number, MinPartSize)
		}
	}
	return d.writeAtomically(key, p, func(t *os.File) error {
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
}

// completeInPlace checks the markers, cuts the data file to the parts'
// length and renames it to the blob.
func (d *Disk) completeInPlace(dir, key, p string, parts []Part, uniform int64) error {
	var total int64
	for i, part := range parts {
		if part.Number != i+1 {
			return fmt.Errorf("%w: part %d: the parts of an upload with a part size run from 1 without a gap", ErrInvalidPart, part.Number)
		}
		size, etag, err := readMarker(partFile(dir, part.Number))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: part %d was not uploaded", ErrInvalidPart, part.Number)
		}
		if err != nil {
			return fmt.Errorf("blob: unable to read part %d of %s: %w", part.Number, key, err)
		}
		if etag != part.ETag {
			return fmt.Errorf("%w: part %d has another ETag", ErrInvalidPart, part.Number)
		}
		if i < len(parts)-1 && (size != uniform || size < MinPartSize) {
			return fmt.Errorf("%w: part %d has %d bytes, not the upload's part size %d", ErrInvalidPart, part.Number, size, uniform)
		}
		total += size
	}
	data := filepath.Join(dir, dataFile)
	f, err := os.OpenFile(data, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("blob: unable to complete %s: %w", key, err)
	}
	if err := f.Truncate(total); err != nil {
		f.Close() //nolint:errcheck // already failing
		return fmt.Errorf("blob: unable to complete %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		f.Close() //nolint:errcheck // already failing
		return fmt.Errorf("blob: unable to complete %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("blob: unable to complete %s: %w", key, err)
	}
	if err := renameInto(data, p); err != nil {
		return fmt.Errorf("blob: unable to store %s: %w", key, err)
	}
	return nil
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
	d.removeEmptyDirs(filepath.Dir(dir))
	return nil
}
