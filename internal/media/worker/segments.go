package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// segmentKeeper keeps a run's proxy segments (pipeline.Keeper) where every
// node finds them: each in the server's file store, under the job's
// segments prefix in a directory of the attempt's own, then a row of the
// job's checkpoint (store.KeepProxySegment) naming it, its size and its
// SHA-256 — written only while the attempt holds the item. So an earlier
// attempt that comes back (a node cut off, not dead) can neither record a
// segment once a newer one has claimed the item, nor change one the newer
// attempt uses: those are read back and checked against the row, and one
// that differs is encoded again.
type segmentKeeper struct{ r *run }

func (k segmentKeeper) prefix() string {
	return store.ProxySegmentsPrefix(k.r.tenant, k.r.item, k.r.jobID)
}

// Kept fetches the job's kept segments of plan into dir, from the first,
// up to the first missing, different or of another plan.
func (k segmentKeeper) Kept(ctx context.Context, plan, dir string) ([]string, bool, error) {
	segs, err := k.r.w.Store.ProxySegments(ctx, k.r.tenant, k.r.item, k.r.jobID)
	if err != nil {
		return nil, false, err
	}
	var paths []string
	for i, s := range segs {
		if s.Segment != i || s.Plan != plan {
			break
		}
		path := filepath.Join(dir, "kept-"+media.SegmentName(i))
		ok, err := k.fetch(ctx, s, path)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			k.r.w.log().Warn("a kept proxy segment is not what was kept: made again", "tenant", k.r.tenant, "item", k.r.item,
				"segment", i, "key", s.Key)
			break
		}
		paths = append(paths, path)
		if s.Last {
			return paths, true, nil
		}
	}
	return paths, false, nil
}

// fetch copies s's blob to path, answering whether it is what was kept.
func (k segmentKeeper) fetch(ctx context.Context, s store.ProxySegment, path string) (bool, error) {
	rc, _, _, err := k.r.w.Files.Open(ctx, s.Key)
	if errors.Is(err, blob.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), rc)
	if err != nil {
		return false, err
	}
	return n == s.Size && hex.EncodeToString(h.Sum(nil)) == s.SHA256, f.Close()
}

// Keep stores segment i under the attempt's own directory, then records
// it. A stale attempt's blob is deleted again (no row names it).
func (k segmentKeeper) Keep(ctx context.Context, plan string, i int, path string, last bool) error {
	key := k.prefix() + strconv.Itoa(k.r.attempt) + "/" + media.SegmentName(i)
	obj, err := k.r.put(ctx, key, path, "video/mp4")
	if err != nil {
		return err
	}
	err = k.r.w.Store.KeepProxySegment(ctx, k.r.tenant, k.r.item, k.r.jobID, k.r.runKey, store.ProxySegment{
		Segment: i, Plan: plan, Key: key, Size: obj.Size, SHA256: obj.SHA256, Last: last})
	if errors.Is(err, store.ErrStaleRun) {
		k.r.w.Files.Delete(context.WithoutCancel(ctx), key) //nolint:errcheck // best effort: nothing names it
	}
	if err == nil && k.r.w.keptHook != nil {
		k.r.w.keptHook(k.r.runKey, i)
	}
	return err
}

// dropSegments forgets the job's segments and deletes their blobs (every
// attempt's), once the job is done or failed for good. Best effort: a
// leftover is invisible, and an attempt cut off that writes one more
// after this leaves it behind.
func (r *run) dropSegments(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := r.w.Store.DropProxySegments(ctx, r.tenant, r.item, r.jobID); err != nil {
		r.w.log().Warn("proxy segments left behind", "tenant", r.tenant, "item", r.item, "err", err)
		return
	}
	r.drop(store.ProxySegmentsPrefix(r.tenant, r.item, r.jobID))
}

// segmentsProgress is what the run's last progress says of the proxy's
// segments (nil: none, the proxy was one run).
func segmentsProgress(count, reused int) map[string]any {
	if count == 0 {
		return nil
	}
	return map[string]any{"count": count, "reused": reused}
}
