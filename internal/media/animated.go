package media

import (
	"context"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/tool"
)

// An animated image (GIF, APNG, animated WebP, an AVIF sequence) is an
// image: its first frame makes the thumbnail and preview, and a short
// H.264 proxy plays its frames (docs/processing.md, "Images and
// documents").

// AnimationMaxSeconds bounds an animation's proxy: the animation once
// from its start, at most this long (players loop it; a GIF's own loop
// count is not repeated into the file).
const AnimationMaxSeconds = 30

// Animation is the animated image stream of an image-kind probe (nil for a
// still): more than one frame, or a format whose demuxer only takes
// animations (apng).
func (p *Probe) Animation() *Stream {
	if p.Kind() != KindImage {
		return nil
	}
	for i := range p.Streams {
		s := &p.Streams[i]
		if s.CodecType != "video" || s.Disposition["attached_pic"] == 1 {
			continue
		}
		if n, _ := strconv.Atoi(s.NbFrames); n > 1 || p.Format.FormatName == "apng" {
			return s
		}
	}
	return nil
}

// AnimationNeedsVips reports whether ffmpeg cannot decode the animation
// (an animated WebP: ffmpeg's decoder skips the ANIM chunks), so libvips
// first writes it as a GIF (AnimationToGIF).
func AnimationNeedsVips(p *Probe) bool {
	s := p.Animation()
	return s != nil && s.CodecName == "webp"
}

// AnimationToGIF writes the animation at in as a GIF with libvips (every
// page, a palette per frame, the delays kept to the centisecond): what
// ffmpeg then reads.
func AnimationToGIF(ctx context.Context, in, out string) error {
	return tool.Run(ctx, tool.Cmd{Program: "vips", Args: []string{"copy", in + "[n=-1]", out}})
}

// AnimationProxyArgs are ffmpeg's arguments for an animation's proxy: H.264
// High in MP4 (faststart), every frame at its own time (no frame added or
// dropped: the proxy's frames are the animation's), transparency on the
// checkerboard, the short side at most ProxyMaxSide, even sides, at most
// AnimationMaxSeconds, no audio.
func AnimationProxyArgs(in, out string, s *Stream) []string {
	filters := append(alphaFilters(s), proxyScale(s.DisplaySize()), "format=yuv420p", "setsar=1")
	return []string{"-i", in, "-map", "0:v:0", "-an", "-t", strconv.Itoa(AnimationMaxSeconds),
		"-vf", strings.Join(filters, ","), "-fps_mode", "passthrough",
		"-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-profile:v", "high",
		"-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4", out}
}
