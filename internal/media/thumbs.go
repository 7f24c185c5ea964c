package media

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Thumbnails, the poster and the strip are decoded from the proxy's
// keyframes only (-skip_frame nokey: a twentieth of the time of decoding
// the original, docs/performance.md), so they exist every KeyframeSeconds.

// ThumbnailWidth is the width of position thumbnails and strip tiles.
const (
	ThumbnailWidth = 320
	TileWidth      = 160
	// StripColumns × StripRows tiles make one sprite sheet.
	StripColumns = 10
	StripRows    = 10
	// PosterWidth bounds the poster (the proxy's own size when smaller).
	PosterWidth = 1280
)

// ThumbnailsArgs are ffmpeg's arguments for one JPEG per keyframe of the
// proxy, written as pattern (e.g. dir/%05d.jpg; number n shows the
// position (n-1) × KeyframeSeconds).
func ThumbnailsArgs(proxy, pattern string) []string {
	return []string{"-skip_frame", "nokey", "-i", proxy, "-map", "0:v:0", "-an",
		"-vf", fmt.Sprintf("scale=%d:-2", ThumbnailWidth), "-fps_mode", "passthrough", "-q:v", "4",
		"-f", "image2", pattern}
}

// KeyframesArgs are ffmpeg's arguments for every keyframe of the proxy at
// its own size, as PNG (lossless: what OCR reads), written as pattern
// (number n shows the position (n-1) × KeyframeSeconds).
func KeyframesArgs(proxy, pattern string) []string {
	return []string{"-skip_frame", "nokey", "-i", proxy, "-map", "0:v:0", "-an", "-fps_mode", "passthrough",
		"-f", "image2", pattern}
}

// PosterArgs are ffmpeg's arguments for the poster: the keyframe nearest
// at, at most PosterWidth wide.
func PosterArgs(proxy, out string, at float64) []string {
	return []string{"-skip_frame", "nokey", "-ss", strconv.FormatFloat(at, 'f', 3, 64), "-i", proxy,
		"-map", "0:v:0", "-an", "-frames:v", "1",
		"-vf", fmt.Sprintf("scale='min(%d,iw)':-2", PosterWidth), "-q:v", "3", "-f", "image2", out}
}

// EarlyPosterArgs are ffmpeg's arguments for a poster taken from the
// original before its proxy exists: its first keyframe, decoded at once
// whatever the original's GOP (a seek to the poster's position can land
// past an original's only keyframe, and costs seconds on 4K HEVC to find
// none), at most PosterWidth wide, HDR tone-mapped, transparency on the
// checkerboard (the later thumbnails are the proxy's, composited already).
func EarlyPosterArgs(in, out string, p *Probe) []string {
	v := p.Video()
	filters := append(alphaFilters(v), fmt.Sprintf("scale='min(%d,iw)':-2", PosterWidth))
	if v != nil && v.HDR() {
		filters = append(filters, toneMap...)
	}
	return append(alphaDecoder(v), "-skip_frame", "nokey", "-i", in, "-map", "0:v:0", "-an", "-frames:v", "1",
		"-vf", strings.Join(append(filters, "format=yuvj420p"), ","), "-q:v", "3", "-f", "image2", out)
}

// PosterPosition is where the poster is taken: a tenth in (past black
// openings and slates), at most 10 s, 0 for short clips.
func PosterPosition(duration float64) float64 {
	if duration < 2*KeyframeSeconds {
		return 0
	}
	return math.Min(duration/10, 10)
}

// StripArgs are ffmpeg's arguments for the thumbnail strip: sprite sheets
// of StripColumns × StripRows keyframe tiles, written as pattern (e.g.
// dir/strip_%03d.jpg).
func StripArgs(proxy, pattern string) []string {
	return []string{"-skip_frame", "nokey", "-i", proxy, "-map", "0:v:0", "-an",
		"-vf", fmt.Sprintf("scale=%d:-2,tile=%dx%d", TileWidth, StripColumns, StripRows),
		"-fps_mode", "passthrough", "-q:v", "5", "-f", "image2", pattern}
}

// StripVTT is the WebVTT map of a strip: tile i covers [i, i+1) ×
// KeyframeSeconds of the video (the last ends at duration), at its place in
// sheet i / (StripColumns × StripRows). sheetURL names sheet n (from 1).
func StripVTT(duration float64, tileW, tileH int, sheetURL func(n int) string) string {
	var b strings.Builder
	b.WriteString("WEBVTT\n")
	per := StripColumns * StripRows
	tiles := int(math.Ceil(duration / KeyframeSeconds))
	for i := range tiles {
		start := float64(i * KeyframeSeconds)
		end := math.Min(float64((i+1)*KeyframeSeconds), duration)
		cell := i % per
		fmt.Fprintf(&b, "\n%s --> %s\n%s#xywh=%d,%d,%d,%d\n", vttTime(start), vttTime(end), sheetURL(i/per+1),
			(cell%StripColumns)*tileW, (cell/StripColumns)*tileH, tileW, tileH)
	}
	return b.String()
}

// vttTime is seconds as WebVTT's hh:mm:ss.ttt.
func vttTime(s float64) string {
	ms := int64(math.Round(s * 1000))
	return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}
