package replicate

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// RunWorker runs a replication source (replication_run): the items of its
// scope (a page at a time, or the items the ingest trigger named) get a
// transfer for each file to copy — the original when it lies where the
// source takes files from, the generated media listed in Loupe's store.
// Files already copied to the same key, or being copied, are skipped, so a
// run repeated after a crash asks for nothing twice.
type RunWorker struct {
	river.WorkerDefaults[jobs.ReplicationRunArgs]
	Store *store.Store
	// Files is Loupe's own file store, where generated media is.
	Files blob.Store
}

// runPage is how many items a run plans at once.
const runPage = 200

// Timeout implements river.Worker: a run over a large tenant lists many
// pages (it makes transfers, it copies nothing).
func (w *RunWorker) Timeout(*river.Job[jobs.ReplicationRunArgs]) time.Duration {
	return jobs.MaxJobTimeout
}

// Work implements river.Worker.
func (w *RunWorker) Work(ctx context.Context, job *river.Job[jobs.ReplicationRunArgs]) error {
	a := job.Args
	src, err := w.Store.ReplicationSource(ctx, a.TenantID, a.SourceID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil // deleted since
	}
	if err != nil {
		return err
	}
	if !src.Enabled && a.Reason != "hand" {
		return nil
	}
	if a.ItemIDs == nil {
		if err := w.Store.ReplicationRunStarted(ctx, a.TenantID, a.SourceID); err != nil {
			return err
		}
	}
	loc, err := w.Store.StorageLocation(ctx, a.TenantID, src.ToLocationID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return river.JobCancel(fmt.Errorf("replication source %s: its destination location %s no longer exists", src.ID, src.ToLocationID))
	}
	if err != nil {
		return err
	}
	if a.ItemIDs != nil {
		items, err := w.Store.ReplicationItems(ctx, src, a.ItemIDs)
		if err != nil {
			return err
		}
		return w.plan(ctx, src, loc, items)
	}
	for after := ""; ; {
		items, err := w.Store.ReplicationPage(ctx, src, after, runPage)
		if err != nil {
			return err
		}
		if err := w.plan(ctx, src, loc, items); err != nil {
			return err
		}
		if len(items) < runPage {
			return nil
		}
		after = items[len(items)-1].ID
	}
}

// plan asks for the transfers of items.
func (w *RunWorker) plan(ctx context.Context, src *loupe.ReplicationSource, loc *loupe.StorageLocation, items []*store.ReplicationCandidate) error {
	var out []store.NewTransfer
	for _, it := range items {
		if src.Copies(loupe.ReplicationOriginal) {
			if key, ok := originalKey(src, it.Location); ok {
				out = append(out, store.NewTransfer{SourceID: src.ID, ItemID: it.ID, Media: loupe.ReplicationOriginal,
					Mode: src.Mode, FromLocationID: src.FromLocationID, FromKey: key, FromRef: it.Location,
					ToLocationID: loc.ID, ToKey: loc.PathPrefix + loupe.ItemFilesPrefix(src.TenantID, it.ID) + "original/" + path.Base(key),
					ExpectedSHA256: it.SHA256, MaxBytesPerSecond: src.MaxBytesPerSecond})
			}
		}
		if src.Copies(loupe.ReplicationGenerated) && w.Files != nil {
			keys, err := w.generated(ctx, store.GeneratedPrefix(src.TenantID, it.ID))
			if err != nil {
				return err
			}
			for _, k := range keys {
				out = append(out, store.NewTransfer{SourceID: src.ID, ItemID: it.ID, Media: loupe.ReplicationGenerated,
					Mode: loupe.ReplicationCopy, FromKey: k, ToLocationID: loc.ID, ToKey: loc.PathPrefix + k,
					MaxBytesPerSecond: src.MaxBytesPerSecond})
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	_, err := w.Store.CreateTransfers(ctx, src.TenantID, out)
	return err
}

// originalKey answers the key of an original that lies where src takes
// files from (Loupe's store, or its fromLocationId), else false.
func originalKey(src *loupe.ReplicationSource, location string) (string, bool) {
	var key string
	var ok bool
	if src.FromLocationID == nil {
		key, ok = loupe.FileKey(location)
	} else {
		key, ok = strings.CutPrefix(location, loupe.LocationsScheme+*src.FromLocationID+"/")
	}
	return key, ok && blob.ValidKey(key) == nil
}

// generated lists the item's generated media in Loupe's store.
func (w *RunWorker) generated(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	for after := ""; ; {
		page, more, err := w.Files.List(ctx, prefix, after, blob.MaxListLimit)
		if err != nil {
			return nil, fmt.Errorf("listing generated media under %s: %w", prefix, err)
		}
		for _, o := range page {
			keys = append(keys, o.Key)
		}
		if !more || len(page) == 0 {
			return keys, nil
		}
		after = page[len(page)-1].Key
	}
}
