package renderjob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media/render"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// Worker renders a render-sequence request (render_sequence jobs): the
// clips' originals, read where they lie, through the preset into one
// file, stored as the target item's original and switched in like a
// completed upload (its processing follows). A killed node's job runs
// again from the start after its timeout; the request's row says how far
// it is meanwhile.
type Worker struct {
	river.WorkerDefaults[jobs.RenderArgs]
	Store   *store.Store
	Files   blob.Store
	Sources *sources.Sources
}

// renderAttempts is how often a render is tried before the request fails
// with the last reason (a source read through a URL, or the store, may
// have failed for a moment; ffmpeg failing the same way three times is
// the media's doing).
const renderAttempts = jobs.RenderAttempts

// Timeout implements river.Worker: 2 minutes, and 6× the sequence's
// length (a slow encoder on a small machine), up to jobs.MaxJobTimeout.
func (w *Worker) Timeout(job *river.Job[jobs.RenderArgs]) time.Duration {
	d := 2*time.Minute + time.Duration(6*job.Args.DurationSeconds*float64(time.Second))
	return min(d, jobs.MaxJobTimeout)
}

// failure is a reason the request cannot be rendered: it fails at once.
type failure struct{ reason string }

func (f *failure) Error() string { return f.reason }

func failed(format string, args ...any) error { return &failure{fmt.Sprintf(format, args...)} }

// Work implements river.Worker.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.RenderArgs]) error {
	r, err := w.Store.Render(ctx, job.Args.TenantID, job.Args.RequestID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if started, err := w.Store.StartRender(ctx, r); err != nil || !started {
		return err
	}
	err = w.render(ctx, r)
	var f *failure
	switch {
	case err == nil:
		return nil
	case errors.As(err, &f):
	case ctx.Err() == nil && job.Attempt >= renderAttempts:
		f = &failure{oneLine(err.Error())}
	default:
		return err
	}
	if err := w.Store.FailRender(context.WithoutCancel(ctx), r, f.reason); err != nil {
		return err
	}
	return river.JobCancel(f)
}

// render makes, stores and switches in the request's file.
func (w *Worker) render(ctx context.Context, r *store.RenderRequest) error {
	preset, err := w.Store.Preset(ctx, r.TenantID, r.PresetID)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return failed("the preset %s was deleted", r.PresetID)
	}
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "loupe-render-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	clips, err := w.inputs(ctx, r, dir)
	if err != nil {
		return err
	}
	out := filepath.Join(dir, "render."+preset.Output.Container)
	plan, err := render.Plan(ctx, clips, Profile(preset.Output, preset.AudioMapping), out)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failed("%s", oneLine(err.Error()))
	}
	if err := w.Store.RenderPlanned(ctx, r, plan.Frames, plan.Duration.Seconds()); err != nil {
		return err
	}
	r.Frames = plan.Frames
	var last time.Time
	if err := plan.Run(ctx, func(done float64) {
		if time.Since(last) < time.Second {
			return
		}
		last = time.Now()
		_ = w.Store.RenderProgress(ctx, r, float64(int(done*990))/10) // 0..99: storing is left
	}); err != nil {
		return err
	}
	return w.store(ctx, r, preset, out)
}

// inputs are the clips as the engine reads them: each item's original,
// where it lies (a local path or a presigned URL; a local copy where the
// store offers neither).
func (w *Worker) inputs(ctx context.Context, r *store.RenderRequest, dir string) ([]render.Clip, error) {
	seen := map[string]string{}
	out := make([]render.Clip, len(r.Clips))
	for i, c := range r.Clips {
		in, ok := seen[c.ItemID]
		if !ok {
			src, err := w.Store.MediaSourceOf(ctx, r.TenantID, c.ItemID)
			if loupe.ErrorKind(err) == loupe.ENOTFOUND || (err == nil && src.Location == "") {
				return nil, failed("clips[%d]: item %s was deleted or has no original", i, c.ItemID)
			}
			if err != nil {
				return nil, err
			}
			files, key, _, err := w.Sources.Original(ctx, r.TenantID, src.Location, src.StorageID)
			if err != nil {
				return nil, failed("clips[%d]: item %s's original cannot be read: %s", i, c.ItemID, oneLine(err.Error()))
			}
			if in, ok, err = sources.Input(ctx, files, key, blob.MaxPresignTTL); err != nil {
				return nil, err
			}
			if !ok {
				if in, err = sources.Local(ctx, files, key, dir, fmt.Sprintf("clip-%d", i)); err != nil {
					return nil, err
				}
			}
			seen[c.ItemID] = in
		}
		out[i] = render.Clip{Source: in, In: c.In, Out: c.Out}
	}
	return out, nil
}

// mediaTypes are the rendered files' types, by container.
var mediaTypes = map[string]string{"mp4": "video/mp4", "mov": "video/quicktime", "mxf": "application/mxf"}

// store puts the file under the target item's originals and switches it in.
func (w *Worker) store(ctx context.Context, r *store.RenderRequest, preset *loupe.Preset, path string) error {
	ext := preset.Output.Container
	name := "render-" + r.ID + "." + ext
	key := loupe.ItemFilesPrefix(r.TenantID, r.TargetItemID) + "original/render-" + r.ID + "/" + name
	obj, err := blob.PutFile(ctx, w.Files, key, path, mediaTypes[ext])
	if err != nil {
		return err
	}
	kept, err := w.Store.CompleteRender(ctx, r, store.Rendered{Key: key, FileName: name, MediaType: mediaTypes[ext],
		SHA256: obj.SHA256, Size: obj.Size})
	if err == nil && !kept {
		err = w.Files.Delete(context.WithoutCancel(ctx), key)
	}
	return err
}
