package media

import (
	"fmt"
	"strings"
)

// Alpha (docs/processing.md, "Alpha"): stills keep it in the renditions
// whose format carries it (WebP); what cannot carry it — the H.264 proxy,
// JPEG posters, thumbnails and the strip — shows the transparent parts on a
// neutral grey checkerboard, as editing tools show transparency, rather
// than on black (ffmpeg's and libvips' default: a dark subject on black
// vanishes).

// Checkerboard greys (sRGB, 0–255) and its squares' size in the proxy.
const (
	CheckerLight = 204
	CheckerDark  = 153
	// checkerSquares is how many squares span the picture's shorter side.
	checkerSquares = 24
)

// alphaPixFmts are the prefixes and names of ffmpeg's pixel formats with an
// alpha channel (pal8: a GIF's or PNG's palette may hold transparency).
var alphaPixFmts = []string{"yuva", "gbrap", "ya8", "ya16", "rgba", "bgra", "argb", "abgr", "rgba64", "bgra64", "pal8"}

// HasAlpha reports whether frames of pixel format pixFmt carry alpha.
func HasAlpha(pixFmt string) bool {
	for _, a := range alphaPixFmts {
		if strings.HasPrefix(pixFmt, a) {
			return true
		}
	}
	return false
}

// hasAlpha reports whether s's frames carry alpha: its pixel format, or a
// VP8/VP9 stream flagged as carrying an alpha plane (WebM).
func (s *Stream) hasAlpha() bool {
	return HasAlpha(s.PixFmt) || s.Tags["alpha_mode"] == "1" || s.Tags["ALPHA_MODE"] == "1"
}

// alphaFilters composite v's frames on the checkerboard (none when v has no
// alpha): part of a -vf graph, the frame split into the picture and a
// checkerboard of its size (drawn on a frame of one pixel a square, then
// enlarged without smoothing: the expression runs on a few hundred pixels,
// not millions), the picture laid over it.
func alphaFilters(v *Stream) []string {
	if v == nil || !v.hasAlpha() {
		return nil
	}
	w, h := v.DisplaySize()
	sq := max(4, min(w, h)/checkerSquares)
	// One element: the graph's chains are joined by ';', and ProxyArgs
	// joins its filters by ','.
	return []string{strings.Join([]string{
		"split[alpha_fg][alpha_in]",
		fmt.Sprintf("[alpha_in]scale=w='ceil(iw/%d)':h='ceil(ih/%d)':flags=neighbor,format=gray,"+
			"geq=lum='if(mod(X+Y\\,2)\\,%d\\,%d)'[alpha_small]", sq, sq, CheckerDark, CheckerLight),
		"[alpha_small][alpha_fg]scale2ref=flags=neighbor[alpha_bg][alpha_ref]",
		"[alpha_bg][alpha_ref]overlay=format=yuv444",
	}, ";")}
}

// alphaDecoder is the input option that decodes a VP8/VP9 stream's alpha
// plane (ffmpeg's own decoders drop it; libvpx's keeps it).
func alphaDecoder(v *Stream) []string {
	if v == nil || (v.Tags["alpha_mode"] != "1" && v.Tags["ALPHA_MODE"] != "1") {
		return nil
	}
	switch v.CodecName {
	case "vp9":
		return []string{"-c:v", "libvpx-vp9"}
	case "vp8":
		return []string{"-c:v", "libvpx"}
	}
	return nil
}
