package usage

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/loupe-mam/loupe/internal/blob"
	"github.com/loupe-mam/loupe/internal/reqlog"
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

// Put stores the file and records its size. A failed record is logged, not
// returned: the file is stored either way, and metering then misses it.
func (f *Files) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	n, err := f.Store.Put(ctx, key, r)
	if err != nil {
		return n, err
	}
	if tenant, ok := tenantOf(key); ok {
		if err := f.st.RecordStoredFile(context.WithoutCancel(ctx), tenant, key, n); err != nil {
			logger(ctx).Error("stored file not metered", "key", key, "err", err)
		}
	}
	return n, nil
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
