package media

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A long video's proxy is encoded in segments, so that a run taken over
// from a dead node (or retried) encodes only what its earlier attempts did
// not finish (internal/media/pipeline, segments.go; docs/scaling.md). The
// segments are the same frames as ProxyArgs' one run: the picture's
// filters and encoder are the same (proxyVideo), every segment starts on a
// keyframe (a whole number of GOPs) and is cut on the proxy's own frame
// grid; then they are joined without re-encoding, with the audio and the
// timecode, into the same faststart MP4.

// SegmentSeconds is a proxy segment's length: what a taken-over run loses
// at most. Five GOPs: a segment's fixed costs (an ffmpeg start, a seek,
// a store write, a checkpoint row) stay under 1 % of its encode.
const SegmentSeconds = 5 * KeyframeSeconds

// segmentPreroll is how much of the original before a resumed run's first
// frame it decodes: the deinterlacer's and the frame-rate conversion's
// context (the source frame the first proxy frame shows may lie before
// it), and room for a demuxer whose seek lands a little late.
const segmentPreroll = 2 * KeyframeSeconds

// ProxySegments is how a video's proxy is cut.
type ProxySegments struct {
	// FPS is the proxy's frame rate (a ratio such as 30000/1001).
	FPS string
	// Frames is a segment's length in frames, a whole number of GOPs (the
	// last segment may be shorter).
	Frames int
	// Count is how many segments the original's duration makes (the
	// encode's end decides: an estimate, for progress).
	Count int
}

// PlanProxySegments cuts p's proxy into segments of about seconds (a
// multiple of KeyframeSeconds; 0: SegmentSeconds) for an original of
// duration seconds. False when it makes one segment or less: such a video
// is one run (ProxyArgs), as there is nothing to resume from.
func PlanProxySegments(p *Probe, duration float64, seconds int) (ProxySegments, bool) {
	if seconds <= 0 {
		seconds = SegmentSeconds
	}
	pv, err := proxyVideoOf(p)
	if err != nil || pv.gop <= 0 || duration <= 0 {
		return ProxySegments{}, false
	}
	gops := max(1, seconds/KeyframeSeconds)
	s := ProxySegments{FPS: pv.fps, Frames: gops * pv.gop}
	frames := duration * fpsValue(pv.fps)
	s.Count = int(math.Ceil(frames/float64(s.Frames) - 1e-9))
	return s, s.Count > 1
}

// Start is the time of segment i's first frame, in seconds from the
// original's start.
func (s ProxySegments) Start(i int) float64 {
	num, den, ok := ratio(s.FPS)
	if !ok || num <= 0 {
		return float64(i*s.Frames) / fpsValue(s.FPS)
	}
	return float64(int64(i)*int64(s.Frames)*int64(den)) / float64(num)
}

// ProxySegmentArgs are ffmpeg's arguments for the proxy's picture from
// segment from to the end: one run, writing segment i to dir/%05d.mp4 (a
// plain MP4, its timestamps from 0) and adding its line to list (CSV: the
// file's name first) once it is complete.
//
// Timestamps are the original's own from its start (-copyts
// -start_at_zero: the same arithmetic as ProxyArgs' run, where a seek's
// offset would round differently), the frame-rate conversion starts on
// segment from's first frame of the proxy's grid (fps start_time), so the
// same source frame fills each proxy frame as in one run, and the
// keyframes fall on segment starts (whole GOPs from there).
func ProxySegmentArgs(in, dir, list string, p *Probe, s ProxySegments, from int) ([]string, error) {
	pv, err := proxyVideoOf(p)
	if err != nil {
		return nil, err
	}
	start := s.Start(from)
	args := []string{"-copyts", "-start_at_zero"}
	if from > 0 {
		args = append(args, "-ss", seconds(max(0, start-segmentPreroll)))
	}
	args = append(args, "-i", in, "-map", pv.mapping, "-vf", strings.Join(append(pv.filters,
		"fps="+pv.fps+":start_time="+seconds(start), "setpts=PTS-STARTPTS", "format=yuv420p", "setsar=1"), ","))
	args = append(args, pv.encode...)
	// Where to cut: every Frames frames of this run (a list a little
	// longer than the estimate; what is left after it is one segment).
	cuts := make([]string, 0, s.Count-from+2)
	for n := 1; n <= s.Count-from+2; n++ {
		cuts = append(cuts, strconv.Itoa(n*s.Frames))
	}
	args = append(args, "-map_metadata", "-1", "-avoid_negative_ts", "disabled",
		"-f", "segment", "-segment_format", "mp4", "-segment_frames", strings.Join(cuts, ","),
		"-segment_start_number", strconv.Itoa(from), "-reset_timestamps", "1",
		"-segment_list", list, "-segment_list_type", "csv", dir+"/%05d.mp4")
	return append(alphaDecoder(pv.stream), args...), nil
}

// SegmentName is segment i's file name in the directory ProxySegmentArgs
// writes to.
func SegmentName(i int) string { return fmt.Sprintf("%05d.mp4", i) }

// ProxyJoinArgs are ffmpeg's arguments joining the segments that concat
// lists (an ffconcat file) into the proxy ProxyArgs makes: the picture
// copied as it is, the audio (the main stereo mix) and the timecode track
// from the original in, the index up front.
func ProxyJoinArgs(in, concat, out string, p *Probe) ([]string, error) {
	pv, err := proxyVideoOf(p)
	if err != nil {
		return nil, err
	}
	// The original is input 0: the audio's filter graph names its
	// streams so (audio_layout.go).
	args := []string{"-i", in, "-f", "concat", "-safe", "0", "-i", concat, "-map", "1:v", "-c:v", "copy"}
	args = append(args, proxyAudioArgs(p)...)
	args = append(args, TimecodeArgs(p, pv.fps)...)
	return append(args, "-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4", out), nil
}

// Fingerprint names what s's segments of p are: the encode's arguments
// (paths aside). Segments kept under another fingerprint (another release's
// encoder settings, another measure of the original) are not joined with
// these.
func (s ProxySegments) Fingerprint(p *Probe) string {
	args, err := ProxySegmentArgs("in", "dir", "list", p, s, 0)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	return hex.EncodeToString(sum[:12])
}

func seconds(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }
