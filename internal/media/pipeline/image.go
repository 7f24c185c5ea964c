package pipeline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/loupe-mam/loupe/internal/media"
)

// readPhoto reads an image's embedded metadata; an unreadable one is said
// on the item (technicalMetadata.photoError), the run goes on.
func readPhoto(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	p, err := media.ReadPhoto(ctx, w.Input)
	if err != nil {
		w.PhotoError = err.Error()
	}
	w.Photo = p
	return nil, nil
}

// renditions makes an image's preview from the original, then its
// thumbnail (WebP) from the preview — a fifth of the pixels to read, and
// the preview is upright already with its metadata stripped. They read
// files only: the worker gives an image's run a local path. The preview
// is a JPEG, or a WebP where the image has alpha (kept: docs/processing.md,
// "Alpha"); a vector image (SVG, a PDF's first page) is drawn at the
// renditions' sizes, enlarged if it declares itself smaller.
func renditions(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	name, ctype := "preview.jpg", "image/jpeg"
	var s *media.Stream
	if len(w.Probe.Streams) > 0 {
		s = &w.Probe.Streams[0]
	}
	if s != nil && media.HasAlpha(s.PixFmt) {
		name, ctype = "preview.webp", "image/webp"
	}
	vector := s != nil && media.VectorCodecs[s.CodecName]
	preview, thumb := filepath.Join(w.Dir, name), filepath.Join(w.Dir, "thumbnail.webp")
	sizes, err := media.Renditions(ctx, w.Input, []media.RenditionSpec{
		{Path: preview, Size: media.ImagePreviewSize, Enlarge: vector}, {Path: thumb, Size: media.ImageThumbnailSize}})
	if err != nil {
		return nil, fmt.Errorf("the image renditions could not be made: %w", err)
	}
	return []Output{
		{Key: OutPreview, Path: preview, Name: name, ContentType: ctype, Width: sizes[0][0], Height: sizes[0][1]},
		{Key: OutPoster, Path: thumb, Name: "thumbnail.webp", ContentType: "image/webp", Width: sizes[1][0], Height: sizes[1][1]},
	}, nil
}

// animationProxy makes an animated image's proxy (none for a still): its
// frames as they play, for a player to loop.
func animationProxy(ctx context.Context, w *Work, report func(float64)) ([]Output, error) {
	s := w.Probe.Animation()
	if s == nil {
		return nil, nil
	}
	in := w.Input
	if media.AnimationNeedsVips(w.Probe) {
		in = filepath.Join(w.Dir, "animation.gif")
		if err := media.AnimationToGIF(ctx, w.Input, in); err != nil {
			return nil, fmt.Errorf("the animation could not be read: %w", err)
		}
	}
	out := filepath.Join(w.Dir, "proxy.mp4")
	if err := timed(ctx, media.AnimationProxyArgs(in, out, s), min(w.Duration, media.AnimationMaxSeconds), report); err != nil {
		return nil, fmt.Errorf("the animation's proxy could not be made: %w", err)
	}
	return []Output{{Key: OutProxy, Path: out, Name: "proxy.mp4", ContentType: "video/mp4"}}, nil
}

// ImageSize is an image's size from its header, else by probing it (0, 0
// when unreadable).
func ImageSize(ctx context.Context, path string) (int, int) {
	if w, h, err := media.ImageDims(path); err == nil {
		return w, h
	}
	p, err := media.ProbeFile(ctx, path)
	if err != nil || len(p.Streams) == 0 {
		return 0, 0
	}
	return p.Streams[0].Width, p.Streams[0].Height
}
