package worker

import (
	"context"
	"fmt"
	"os"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/store"
)

// early shows what the first phase makes (pipeline.Early: a video's poster
// from its first keyframe) within a second or so of an upload, long before
// the proxy is made. It is provisional: the set, when switched in,
// replaces it with its own poster (a tenth into the video) and deletes it;
// an item that shows a set already keeps that one until then. Best effort:
// a failure only means the poster comes with the set.
func (r *run) early(ctx context.Context, input string, p *media.Probe, jobID int64) {
	if has, err := r.w.Store.HasGeneratedMedia(ctx, r.tenant, r.item); err != nil || has {
		return
	}
	dir, err := os.MkdirTemp(r.w.TempDir, "loupe-poster-")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	// Each a step of its own: a 4K HDR frame takes a second to decode and
	// tone map, which would otherwise show as a pause after "probe".
	outs, err := pipeline.Early(ctx, input, dir, p, func(step string) {
		r.progress(ctx, map[string]any{"step": step, "percent": 0}, true) //nolint:errcheck // shown or not either way
	})
	if err != nil {
		r.w.log().Info("no early poster", "tenant", r.tenant, "item", r.item, "err", err)
	}
	prefix := store.GeneratedPrefix(r.tenant, r.item) + fmt.Sprintf("early-%d/", jobID)
	for _, o := range outs {
		if o.Key != pipeline.OutPoster {
			continue
		}
		key := prefix + o.Name
		if _, err := r.put(ctx, key, o.Path, o.ContentType); err != nil {
			return
		}
		if shown, err := r.w.Store.ShowEarlyPoster(ctx, r.tenant, r.item, prefix, key, o.Width, o.Height); err != nil || !shown {
			r.drop(prefix)
		}
	}
}
