package worker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// finish stores the outputs under the run's prefix and switches them onto
// the item; the outputs they replace are deleted after.
func (r *run) finish(ctx context.Context, res *pipeline.Result) error {
	prefix := store.GeneratedPrefix(r.tenant, r.item) + strings.ReplaceAll(r.runKey, ".", "-") + "/"
	g := store.GeneratedMedia{Prefix: prefix, Kind: res.Kind, MadeOn: time.Now().UTC()}
	out := &store.ProcessingResult{Fields: map[string]any{"mediaKind": res.Kind}}
	r.progress(ctx, map[string]any{"step": "storing", "percent": 99}, true) //nolint:errcheck
	out.Work = store.MediaOperation{Kind: store.OperationTranscoding, Provider: Service}
	for _, o := range res.Outputs {
		key := prefix + o.Name
		obj, err := r.put(ctx, key, o.Path, o.ContentType)
		if err != nil {
			r.drop(prefix)
			return err
		}
		out.StoredBytes += obj.Size
		out.StoredFiles++
		switch o.Metering {
		case pipeline.MeteredMediaTime:
			out.Work.Outputs++
			out.Work.MediaSeconds += res.Duration
		case pipeline.MeteredOutput:
			out.Work.Outputs++
		}
		switch o.Key {
		case "":
		case pipeline.OutThumbnails:
			// The item's position thumbnails are rows of their own.
			out.Thumbnails = append(out.Thumbnails, store.GeneratedThumbnail{PositionMs: o.Position.Milliseconds(), Key: key})
			out.ThumbW, out.ThumbH = o.Width, o.Height
		default:
			g.Add(o.Key, key, o.Many)
		}
		// The spec's fields that describe an output.
		switch o.Key {
		case pipeline.OutProxy:
			out.Fields["proxySize"] = obj.Size
		case pipeline.OutPoster:
			out.Fields["thumbnailInfo"] = map[string]any{"width": o.Width, "height": o.Height, "chosenBy": "processing",
				"positionSeconds": posterPosition(res)}
		}
	}
	out.Generated = g
	tech, err := json.Marshal(res.Technical())
	if err != nil {
		return err
	}
	out.Technical = tech
	if fc := pipeline.FrameCount(res.Probe); fc > 0 {
		out.FrameCount = &fc
	}
	out.MediaCreatedOn = res.CreatedOn()
	if g := res.Where(); g != nil {
		out.GeoLocation = loupe.JSONOf(g)
	}
	out.Analyze, out.AnalyzeForce, out.Queue, out.DurationSeconds = r.analyze, r.analyzeForce, r.queue, res.Duration
	out.NewMedia = r.steps[pipeline.StepProxy]
	out.Progress = map[string]any{"step": "done", "percent": 100, "attempt": r.attempt, "startedOn": r.started,
		"finishedOn": time.Now().UTC()}
	if s := res.Segments; s != nil {
		out.Progress["proxySegments"] = segmentsProgress(s.Count, s.Reused)
	}
	if res.NotMedia != nil {
		// Not media (a document, an archive): nothing was made, and the
		// item says so (docs/processing.md, "Files that are not media").
		out.State, out.Work = store.TranscodingSkipped, store.MediaOperation{}
		out.Progress["message"] = "not media: " + res.NotMedia.Description + "; nothing to make, the original is kept as it is"
	}
	old, err := r.w.Store.FinishProcessing(ctx, r.tenant, r.item, r.runKey, out)
	if err != nil {
		r.drop(prefix)
		return err
	}
	if old != "" {
		r.drop(old)
	}
	return nil
}

func posterPosition(res *pipeline.Result) float64 {
	if res.Kind != media.KindVideo {
		return 0
	}
	return media.PosterPosition(res.Duration)
}

// put stores one output file.
func (r *run) put(ctx context.Context, key, path, contentType string) (blob.Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return blob.Object{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return blob.Object{}, err
	}
	return r.w.Files.Put(ctx, key, f, blob.WithContentType(contentType), blob.WithSize(st.Size()))
}

// drop deletes what is under prefix (a run's outputs), best effort: a
// leftover is invisible (no item points at it).
func (r *run) drop(prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	after := ""
	for {
		objs, more, err := r.w.Files.List(ctx, prefix, after, 1000)
		if err != nil {
			r.w.log().Warn("outputs left behind", "prefix", prefix, "err", err)
			return
		}
		for _, o := range objs {
			if err := r.w.Files.Delete(ctx, o.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
				r.w.log().Warn("output left behind", "key", o.Key, "err", err)
			}
		}
		if !more || len(objs) == 0 {
			return
		}
		after = objs[len(objs)-1].Key
	}
}
