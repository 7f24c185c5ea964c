package media

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The web proxy: what every browser plays.
const (
	// ProxyMaxSide bounds the proxy's short side (720p for landscape).
	ProxyMaxSide = 720
	// ProxyMaxFPS bounds its frame rate.
	ProxyMaxFPS = 30
	// KeyframeSeconds is the proxy's keyframe interval: thumbnails, the
	// poster and the strip are decoded from keyframes only.
	KeyframeSeconds = 2
)

// ProxyArgs are ffmpeg's arguments for the web proxy of a video: H.264 High
// + AAC stereo in MP4 with the index up front (faststart), interlaced
// pictures deinterlaced first (interlace.go), its short side at most
// ProxyMaxSide, square pixels, rotation applied (ffmpeg's autorotate), a
// constant frame rate chosen from the stream's sections (framerate.go; VFR
// sources otherwise play and seek badly), a keyframe every KeyframeSeconds,
// HDR tone-mapped to SDR by its light levels after downscaling (4× fewer
// pixels through the expensive filters; tonemap.go). What MeasureVideo
// found on p's video decides; without it, the headers.
func ProxyArgs(in, out string, p *Probe) ([]string, error) {
	pv, err := proxyVideoOf(p)
	if err != nil {
		return nil, err
	}
	args := []string{"-i", in, "-map", pv.mapping,
		"-vf", strings.Join(append(pv.filters, "fps="+pv.fps, "format=yuv420p", "setsar=1"), ",")}
	args = append(args, pv.encode...)
	// The audio: the main stereo mix (audio_layout.go).
	args = append(args, proxyAudioArgs(p)...)
	// The source's start timecode, as a tmcd track (timecode.go).
	args = append(args, TimecodeArgs(p, pv.fps)...)
	args = append(args, "-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4", out)
	return append(alphaDecoder(pv.stream), args...), nil // a WebM's alpha plane decoded (alpha.go)
}

// proxyVideo is the proxy's picture, shared by the one run (ProxyArgs) and
// the segments of a long video's (proxy_segments.go), so that both make
// the same frames.
type proxyVideo struct {
	stream  *Stream
	mapping string   // the -map of its stream
	filters []string // up to its frame rate (excluded)
	fps     string
	gop     int      // frames between keyframes
	encode  []string // the encoder's arguments
}

func proxyVideoOf(p *Probe) (proxyVideo, error) {
	v := p.Video()
	if v == nil {
		return proxyVideo{}, ErrNoStreams
	}
	fps := proxyFPS(v)
	w, h := v.DisplaySize()
	filters := deinterlace(v)
	if num, den, ok := ratio(v.SampleAspect); ok && num > 0 && den > 0 && num != den {
		filters = append(filters, "scale=trunc(iw*sar/2)*2:ih", "setsar=1")
	}
	filters = append(filters, alphaFilters(v)...) // transparency on the checkerboard (alpha.go)
	filters = append(filters, proxyScale(w, h))
	filters = append(filters, toneMap(v)...)
	gop := int(math.Round(fpsValue(fps) * KeyframeSeconds))
	g := strconv.Itoa(gop)
	return proxyVideo{stream: v, mapping: "0:v:" + strconv.Itoa(videoOrdinal(p, v)), filters: filters, fps: fps, gop: gop,
		encode: []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-profile:v", "high", "-level:v", "4.0",
			"-g", g, "-keyint_min", g, "-sc_threshold", "0"}}, nil
}

// proxyScale is the proxy's scale filter for a picture shown at w×h: its
// short side down to ProxyMaxSide, else both sides even (H.264 4:2:0).
func proxyScale(w, h int) string {
	switch {
	case min(w, h) <= ProxyMaxSide:
		return "scale=trunc(iw/2)*2:trunc(ih/2)*2"
	case w >= h:
		return fmt.Sprintf("scale=-2:%d:flags=bicubic", ProxyMaxSide)
	}
	return fmt.Sprintf("scale=%d:-2:flags=bicubic", ProxyMaxSide)
}

// videoOrdinal is v's position among the file's video streams (the -map
// index).
func videoOrdinal(p *Probe, v *Stream) int {
	n := 0
	for i := range p.Streams {
		if &p.Streams[i] == v {
			return n
		}
		if p.Streams[i].CodecType == "video" {
			n++
		}
	}
	return 0
}

// proxyFPS is the proxy's constant frame rate: the measured sections'
// choice (framerate.go), else the headers' rate under the cap.
func proxyFPS(v *Stream) string {
	return v.Rates().Proxy
}

func fpsValue(fps string) float64 {
	if num, den, ok := ratio(fps); ok && den > 0 {
		return float64(num) / float64(den)
	}
	return parseFloat(fps)
}
