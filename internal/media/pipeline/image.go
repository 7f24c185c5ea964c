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

// renditions makes an image's preview (JPEG) from the original, then its
// thumbnail (WebP) from the preview — a fifth of the pixels to read, and
// the preview is upright already with its metadata stripped. They read
// files only: the worker gives an image's run a local path.
func renditions(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	preview, thumb := filepath.Join(w.Dir, "preview.jpg"), filepath.Join(w.Dir, "thumbnail.webp")
	sizes, err := media.Renditions(ctx, w.Input, []media.RenditionSpec{
		{Path: preview, Size: media.ImagePreviewSize}, {Path: thumb, Size: media.ImageThumbnailSize}})
	if err != nil {
		return nil, fmt.Errorf("the image renditions could not be made: %w", err)
	}
	return []Output{
		{Key: OutPreview, Path: preview, Name: "preview.jpg", ContentType: "image/jpeg", Width: sizes[0][0], Height: sizes[0][1]},
		{Key: OutPoster, Path: thumb, Name: "thumbnail.webp", ContentType: "image/webp", Width: sizes[1][0], Height: sizes[1][1]},
	}, nil
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
