package renderjob

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// CheckWorker dry-runs a new preset (check_preset jobs) and records its
// resolved type or why it failed; a preset changed since is left to the
// check of its new settings.
type CheckWorker struct {
	river.WorkerDefaults[jobs.CheckPresetArgs]
	Store *store.Store
}

// Timeout implements river.Worker: a second of media, even through a
// slow encoder, takes seconds.
func (w *CheckWorker) Timeout(*river.Job[jobs.CheckPresetArgs]) time.Duration { return 2 * time.Minute }

// Work implements river.Worker.
func (w *CheckWorker) Work(ctx context.Context, job *river.Job[jobs.CheckPresetArgs]) error {
	a := job.Args
	at, err := time.Parse(time.RFC3339Nano, a.ModifiedOn)
	if err != nil {
		return river.JobCancel(err)
	}
	p, err := w.Store.Preset(ctx, a.TenantID, a.PresetID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if !p.ModifiedOn.Equal(at) {
		return nil
	}
	typ, err := DryRun(ctx, p.Output, p.AudioMapping)
	reason := ""
	var le *loupe.Error
	if errors.As(err, &le) && le.Kind == loupe.EINVALID {
		reason = le.Message
	} else if err != nil {
		return err // not the preset's fault: try again
	}
	return w.Store.PresetChecked(ctx, a.TenantID, a.PresetID, at, typ, reason)
}
