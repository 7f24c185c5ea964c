package usage

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/loupe-mam/loupe/internal/platform/reqlog"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// Files is a blob store that meters what it holds: every file put or
// deleted under a tenant's prefix (<tenantId>/…, as every key Loupe makes
// starts) is recorded in the store, where metering reads the bytes held
// over time. Recording costs one write per upload or delete, never a read.
type Files struct {
	blob.Store
	st *store.Store
}

// MeterFiles wraps files.
func MeterFiles(files blob.Store, st *store.Store) *Files {
	return &Files{Store: files, st: st}
}

// Put stores the file and records its size.
func (f *Files) Put(ctx context.Context, key string, r io.Reader, opts ...blob.PutOption) (blob.Object, error) {
	obj, err := f.Store.Put(ctx, key, r, opts...)
	if err != nil {
		return obj, err
	}
	f.stored(ctx, key, obj.Size)
	return obj, nil
}

// Copy copies the file and records the copy's size.
func (f *Files) Copy(ctx context.Context, dst, src string) (blob.Object, error) {
	obj, err := f.Store.Copy(ctx, dst, src)
	if err != nil {
		return obj, err
	}
	f.stored(ctx, dst, obj.Size)
	return obj, nil
}

// stored records a file written under key. A failed record is logged, not
// returned: the file is stored either way, and metering then misses it.
func (f *Files) stored(ctx context.Context, key string, size int64) {
	if tenant, ok := tenantOf(key); ok {
		if err := f.st.RecordStoredFile(context.WithoutCancel(ctx), tenant, key, size); err != nil {
			logger(ctx).Error("stored file not metered", "key", key, "err", err)
		}
	}
}

// Delete removes the file and records that it is gone.
func (f *Files) Delete(ctx context.Context, key string) error {
	if err := f.Store.Delete(ctx, key); err != nil {
		return err
	}
	if tenant, ok := tenantOf(key); ok {
		if err := f.st.RecordDeletedFile(context.WithoutCancel(ctx), tenant, key); err != nil {
			logger(ctx).Error("deleted file not metered", "key", key, "err", err)
		}
	}
	return nil
}

// tenantOf is the tenant id a key starts with.
func tenantOf(key string) (string, bool) {
	tenant, _, ok := strings.Cut(key, "/")
	return tenant, ok && len(tenant) == 36
}

func logger(ctx context.Context) *slog.Logger { return reqlog.From(ctx) }

// Check reports whether the metered store works (storage manager status).
func (f *Files) Check(ctx context.Context) error {
	if c, ok := f.Store.(blob.Checker); ok {
		return c.Check(ctx)
	}
	return nil
}

// CreateMultipart, UploadPart, CompleteMultipart and AbortMultipart pass
// multipart uploads through to a store that has them (both backends do),
// recording the file once it is complete.
func (f *Files) CreateMultipart(ctx context.Context, key string, opts ...blob.PutOption) (string, error) {
	m, ok := f.Store.(blob.Multiparter)
	if !ok {
		return "", blob.ErrNotSupported
	}
	return m.CreateMultipart(ctx, key, opts...)
}

func (f *Files) UploadPart(ctx context.Context, key, uploadID string, number int, r io.Reader, size int64) (blob.Part, error) {
	m, ok := f.Store.(blob.Multiparter)
	if !ok {
		return blob.Part{}, blob.ErrNotSupported
	}
	return m.UploadPart(ctx, key, uploadID, number, r, size)
}

func (f *Files) CompleteMultipart(ctx context.Context, key, uploadID string, parts []blob.Part) (blob.Object, error) {
	m, ok := f.Store.(blob.Multiparter)
	if !ok {
		return blob.Object{}, blob.ErrNotSupported
	}
	obj, err := m.CompleteMultipart(ctx, key, uploadID, parts)
	if err != nil {
		return obj, err
	}
	f.stored(ctx, key, obj.Size)
	return obj, nil
}

func (f *Files) AbortMultipart(ctx context.Context, key, uploadID string) error {
	m, ok := f.Store.(blob.Multiparter)
	if !ok {
		return blob.ErrNotSupported
	}
	return m.AbortMultipart(ctx, key, uploadID)
}
