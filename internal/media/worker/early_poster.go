package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/store"
)

// earlyPoster shows a poster on a new video within a second or so of its
// upload, long before its proxy is made: the original's first keyframe,
// from the probe phase. It is provisional: the set, when switched in,
// replaces it with its own poster (a tenth into the video) and deletes
// it; an item that shows a set already keeps that one until then. Best
// effort: a failure only means the poster comes with the set.
func (r *run) earlyPoster(ctx context.Context, input string, p *media.Probe, jobID int64) {
	if has, err := r.w.Store.HasGeneratedMedia(ctx, r.tenant, r.item); err != nil || has {
		return
	}
	// A step of its own: a 4K HDR frame takes a second to decode and tone
	// map, which would otherwise show as a pause after "probe".
	r.progress(ctx, map[string]any{"step": "poster", "percent": 0}, true) //nolint:errcheck // the poster is shown or not either way
	dir, err := os.MkdirTemp(r.w.TempDir, "loupe-poster-")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "poster.jpg")
	if err := media.Run(ctx, media.Command{Args: media.EarlyPosterArgs(input, out, p)}); err != nil {
		r.w.log().Info("no early poster", "tenant", r.tenant, "item", r.item, "err", err)
		return
	}
	if _, err := os.Stat(out); err != nil {
		return
	}
	prefix := store.GeneratedPrefix(r.tenant, r.item) + fmt.Sprintf("early-%d/", jobID)
	key := prefix + "poster.jpg"
	if _, err := r.put(ctx, key, out, "image/jpeg"); err != nil {
		return
	}
	w, h := pipeline.ImageSize(ctx, out)
	if shown, err := r.w.Store.ShowEarlyPoster(ctx, r.tenant, r.item, prefix, key, w, h); err != nil || !shown {
		r.drop(prefix)
	}
}
