package media

import (
	"bufio"
	"context"
	"image"
	_ "image/gif"  // ImageDims
	_ "image/jpeg" // ImageDims
	_ "image/png"  // ImageDims
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp" // ImageDims

	"github.com/loupe-mam/loupe/internal/tool"
)

// Image renditions are made by libvips (Debian's libvips-tools),
// orientation applied, where pure Go has no WebP encoder and is several
// times slower (docs/performance.md, "Numbers behind the code").

// Rendition sizes (the longer side, in pixels).
const (
	ImageThumbnailSize = 320
	ImagePreviewSize   = 1280
)

// renditionQuality is the renditions' JPEG and WebP quality.
const renditionQuality = 82

// Rendition writes a rendition of image in to out (its format from the
// extension: .webp, .jpg, .png), at most size pixels on its longer side
// (never enlarged), turned upright by its EXIF orientation, metadata
// stripped.
func Rendition(ctx context.Context, in, out string, size int) error {
	return tool.Run(ctx, tool.Cmd{Program: "vipsthumbnail", Args: renditionArgs(in, RenditionSpec{Path: out, Size: size})})
}

// renditionArgs are vipsthumbnail's arguments for o from in. A format
// without alpha (JPEG) is flattened on the checkerboard's light grey, not
// libvips' black (docs/processing.md, "Alpha").
func renditionArgs(in string, o RenditionSpec) []string {
	s := strconv.Itoa(o.Size)
	size := s + "x" + s
	if !o.Enlarge {
		size += ">"
	}
	opts := "[Q=" + strconv.Itoa(renditionQuality) + ",strip"
	if ext := strings.ToLower(filepath.Ext(o.Path)); ext == ".jpg" || ext == ".jpeg" {
		opts += ",background=" + strconv.Itoa(CheckerLight)
	}
	return []string{in, "--size", size, "-o", o.Path + opts + "]"}
}

// ImageDims reads an image's size from its header (JPEG, PNG, GIF, WebP)
// in Go: the outputs' sizes without starting a tool for each (a tool's
// start costs more than its work here: docs/performance.md).
func ImageDims(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	c, _, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		return 0, 0, err
	}
	return c.Width, c.Height, nil
}
