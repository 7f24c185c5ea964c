// Package transfer moves media between stores: an item's original to a
// storage location of its tenant (migrate_media jobs), verified before the
// item is switched onto the copy (docs/storage-locations.md).
package transfer

import (
	"context"
	"crypto/sha256"
	hexenc "encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// MigrateWorker moves an item's original to a storage location
// (migrate_media jobs, asked for by migrateMediaLocation): copy, verify
// (size, and SHA-256 against the item's mediaSha256 when known, else
// against the bytes read), switch the item's sourceFileLocation in one
// statement, then delete the old copy where Loupe owns it. A crash before
// the switch leaves an unreferenced copy that the retry overwrites; after
// it, an old copy the retry no longer sees (docs/storage-locations.md).
type MigrateWorker struct {
	river.WorkerDefaults[jobs.MigrateArgs]
	Store   *store.Store
	Sources *sources.Sources
}

// Timeout implements river.Worker: a large original takes long to copy.
func (w *MigrateWorker) Timeout(*river.Job[jobs.MigrateArgs]) time.Duration {
	return jobs.MaxJobTimeout
}

// Work implements river.Worker.
func (w *MigrateWorker) Work(ctx context.Context, job *river.Job[jobs.MigrateArgs]) error {
	a := job.Args
	state := map[string]any{"state": "moving", "storageLocationId": a.LocationID, "attempt": job.Attempt}
	if err := w.Store.SetMediaMigration(ctx, a.TenantID, a.ItemID, state); err != nil {
		return err
	}
	err := w.migrate(ctx, a, state)
	if err == nil || errors.Is(err, errItemGone) {
		return nil
	}
	var le *loupe.Error
	if errors.As(err, &le) && le.Kind != loupe.EINTERNAL {
		// The item, its original or the location will not change by
		// retrying: say why and stop.
		state["state"], state["error"], state["finishedOn"] = "failed", le.Message, time.Now().UTC()
		if serr := w.Store.SetMediaMigration(context.WithoutCancel(ctx), a.TenantID, a.ItemID, state); serr != nil {
			return serr
		}
		return river.JobCancel(err)
	}
	state["error"] = err.Error()
	w.Store.SetMediaMigration(context.WithoutCancel(ctx), a.TenantID, a.ItemID, state) //nolint:errcheck // the retry writes again
	return err
}

// errItemGone ends a migration whose item was deleted: nothing to do.
var errItemGone = errors.New("the item is gone")

func (w *MigrateWorker) migrate(ctx context.Context, a jobs.MigrateArgs, state map[string]any) error {
	src, err := w.Store.MediaSourceOf(ctx, a.TenantID, a.ItemID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return errItemGone
	}
	if err != nil {
		return err
	}
	from, key, owned, err := w.Sources.Original(ctx, a.TenantID, src.Location, src.StorageID)
	if err != nil {
		return err
	}
	loc, err := w.Store.StorageLocation(ctx, a.TenantID, a.LocationID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return loupe.Invalid("the storage location %s no longer exists", a.LocationID)
	}
	if err != nil {
		return err
	}
	to, err := w.Sources.OpenLocation(ctx, loc)
	if err != nil {
		return err
	}
	dstKey := loc.PathPrefix + loupe.ItemFilesPrefix(a.TenantID, a.ItemID) + "original/" + path.Base(key)
	target := loupe.StorageLocationFile(loc.ID, dstKey)
	if target == src.Location {
		state["state"], state["finishedOn"] = "complete", time.Now().UTC()
		return w.Store.SetMediaMigration(ctx, a.TenantID, a.ItemID, state)
	}
	if err := copyVerified(ctx, from, key, to, dstKey, src.SHA256); err != nil {
		return err
	}
	state["state"], state["finishedOn"] = "complete", time.Now().UTC()
	delete(state, "error")
	if err := w.Store.SwitchMediaSource(ctx, a.TenantID, a.ItemID, src.Location, target, state); err != nil {
		to.Delete(context.WithoutCancel(ctx), dstKey) //nolint:errcheck // unreferenced either way
		return err
	}
	if owned {
		// The item points at the new copy: an old one left behind (the
		// delete failed) is only space.
		from.Delete(ctx, key) //nolint:errcheck
	}
	return nil
}

// copyVerified streams key of from into dstKey of to and checks what was
// stored: its size and SHA-256 are those of the bytes read, and these the
// item's own checksum when it has one.
func copyVerified(ctx context.Context, from blob.Store, key string, to blob.Store, dstKey, want string) error {
	rc, size, _, err := from.Open(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return loupe.Invalid("the item's original is missing from where it was kept")
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	obj, err := to.Put(ctx, dstKey, io.TeeReader(rc, h), blob.WithSize(size))
	if err != nil {
		return fmt.Errorf("copying the original: %w", err)
	}
	read := hexenc.EncodeToString(h.Sum(nil))
	got, err := to.Stat(ctx, dstKey)
	if err != nil {
		return fmt.Errorf("checking the copy: %w", err)
	}
	switch {
	case got.Size != size || obj.Size != size:
		return fmt.Errorf("the copy holds %d bytes, the original %d", got.Size, size)
	case obj.SHA256 != "" && obj.SHA256 != read:
		return fmt.Errorf("the copy's SHA-256 differs from the original's")
	case want != "" && read != want:
		return loupe.Invalid("the original's SHA-256 is no longer the one recorded at upload: not moved")
	}
	return nil
}
