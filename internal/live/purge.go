package live

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// PurgeWorker removes a finished recording's live segments, playlist and
// thumbnails (purge_live_segments jobs, an hour after it ended) once its
// item has been processed — the joined original and the processed proxy
// hold what they held. While processing runs it looks again an hour
// later; after a failed processing it keeps them (the live playlist is
// then the item's only playable version); a deleted item's go.
type PurgeWorker struct {
	river.WorkerDefaults[jobs.PurgeLiveArgs]
	Store *store.Store
	Files blob.Store
}

// Work implements river.Worker.
func (w *PurgeWorker) Work(ctx context.Context, job *river.Job[jobs.PurgeLiveArgs]) error {
	a := job.Args
	state, deleted, gone, err := w.Store.LiveLeft(ctx, a.TenantID, a.ItemID)
	if err != nil {
		return err
	}
	switch {
	case gone || deleted || state == store.TranscodingComplete || state == store.TranscodingSkipped:
	case state == store.TranscodingFailed:
		return nil
	default:
		return river.JobSnooze(time.Hour)
	}
	prefix := segmentPrefix(&store.RecordingLease{TenantID: a.TenantID, ItemID: a.ItemID})
	for {
		objs, _, err := w.Files.List(ctx, prefix, "", 1000)
		if err != nil {
			return err
		}
		if len(objs) == 0 {
			break
		}
		for _, o := range objs {
			if err := w.Files.Delete(ctx, o.Key); err != nil {
				return err
			}
		}
	}
	if gone {
		return nil
	}
	return w.Store.ForgetLiveMedia(ctx, a.TenantID, a.ItemID)
}
