package ingest

import "testing"

// An ingested object's type and item type come from its extension.
func TestMediaTypeOf(t *testing.T) {
	for _, c := range []struct{ key, mt, item string }{
		{"a/b/clip.MXF", "application/mxf", "video"},
		{"clip.ts", "video/mp2t", "video"},
		{"00001.m2ts", "video/mp2t", "video"},
		{"clip.mts", "video/mp2t", "video"},
		{"IMG_0001.HEIC", "image/heic", "image"},
		{"photo.heif", "image/heif", "image"},
		{"photo.avif", "image/avif", "image"},
		{"logo.svg", "image/svg+xml", "image"},
		{"anim.apng", "image/apng", "image"},
		{"photo.jxl", "image/jxl", "image"},
		{"scan.jp2", "image/jp2", "image"},
		{"brief.pdf", "application/pdf", "file"},
		{"song.flac", "audio/flac", "audio"},
		{"noext", "application/octet-stream", "file"},
	} {
		if mt, item := mediaTypeOf(c.key); mt != c.mt || item != c.item {
			t.Errorf("%s: %s %s, want %s %s", c.key, mt, item, c.mt, c.item)
		}
	}
}
