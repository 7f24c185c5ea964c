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
// + AAC stereo in MP4 with the index up front (faststart), its short side at
// most ProxyMaxSide, square pixels, rotation applied (ffmpeg's autorotate),
// a constant frame rate (VFR sources otherwise play and seek badly), a
// keyframe every KeyframeSeconds, HDR tone-mapped to SDR after downscaling
// (4× fewer pixels through the expensive filters).
func ProxyArgs(in, out string, p *Probe) ([]string, error) {
	v := p.Video()
	if v == nil {
		return nil, ErrNoStreams
	}
	fps := proxyFPS(v)
	w, h := v.DisplaySize()
	filters := []string{}
	if num, den, ok := ratio(v.SampleAspect); ok && num > 0 && den > 0 && num != den {
		filters = append(filters, "scale=trunc(iw*sar/2)*2:ih", "setsar=1")
	}
	filters = append(filters, alphaFilters(v)...) // transparency on the checkerboard (alpha.go)
	if min(w, h) > ProxyMaxSide {
		if w >= h {
			filters = append(filters, fmt.Sprintf("scale=-2:%d:flags=bicubic", ProxyMaxSide))
		} else {
			filters = append(filters, fmt.Sprintf("scale=%d:-2:flags=bicubic", ProxyMaxSide))
		}
	} else {
		filters = append(filters, "scale=trunc(iw/2)*2:trunc(ih/2)*2")
	}
	if v.HDR() {
		filters = append(filters, toneMap...)
	}
	filters = append(filters, "fps="+fps, "format=yuv420p", "setsar=1")
	gop := strconv.Itoa(int(math.Round(fpsValue(fps) * KeyframeSeconds)))
	args := []string{"-i", in, "-map", "0:v:" + strconv.Itoa(videoOrdinal(p, v)),
		"-vf", strings.Join(filters, ","),
		"-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-profile:v", "high", "-level:v", "4.0",
		"-g", gop, "-keyint_min", gop, "-sc_threshold", "0"}
	// The audio: the main stereo mix (audio_layout.go).
	args = append(args, proxyAudioArgs(p)...)
	// The source's start timecode, as a tmcd track (timecode.go).
	args = append(args, TimecodeArgs(p, fps)...)
	args = append(args, "-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4", out)
	return append(alphaDecoder(v), args...), nil // a WebM's alpha plane decoded (alpha.go)
}

// toneMap turns HDR (PQ or HLG, BT.2020) into SDR BT.709.
var toneMap = []string{"zscale=t=linear:npl=100", "format=gbrpf32le", "zscale=p=bt709",
	"tonemap=tonemap=hable:desat=0", "zscale=t=bt709:m=bt709:r=tv"}

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

// proxyFPS is the proxy's constant frame rate: the source's, as an exact
// NTSC ratio where it is one, at most ProxyMaxFPS (halved from 50/60).
func proxyFPS(v *Stream) string {
	f := v.FrameRate()
	switch {
	case f <= 0:
		return "25"
	case f > ProxyMaxFPS+0.5:
		f /= 2
	}
	for _, ntsc := range []float64{24000.0 / 1001, 30000.0 / 1001} {
		if math.Abs(f-ntsc) < 0.01 {
			return fmt.Sprintf("%d/1001", int(math.Round(ntsc*1001)))
		}
	}
	f = min(math.Round(f), ProxyMaxFPS)
	return strconv.Itoa(max(int(f), 1))
}

func fpsValue(fps string) float64 {
	if num, den, ok := ratio(fps); ok && den > 0 {
		return float64(num) / float64(den)
	}
	return parseFloat(fps)
}
