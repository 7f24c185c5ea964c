package render

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/loupe-mam/loupe/internal/tool"
)

// The stream copy (docs/render-engine.md, "Stream copy"): where every
// clip's source video is already what the profile makes and every cut is
// on a keyframe that no frame is reordered across, the video is copied
// packet for packet through ffmpeg's concat demuxer (a script of
// file/inpoint/outpoint/duration entries, given inline as a data: URL),
// and only the sound goes through the filter graph.

// copyPlan is a sequence's video copied: an entry a clip, in order.
type copyPlan struct {
	// stream is the video's index in every source, and so in the concat
	// demuxer's output.
	stream int
	clips  []copyClip
}

// copyClip is a clip's entry in the concat script.
type copyClip struct {
	url    string
	remote bool
	// inpoint is the In keyframe's time (µs, rounded up: the demuxer
	// seeks to the keyframe at or before it); outpoint the Out
	// keyframe's decoding time (µs, rounded down: the demuxer stops at the
	// first packet at or after it), -1 when the clip runs to the source's
	// end.
	inpoint, outpoint int64
}

// script is the concat demuxer's script for cp as a data: URL, each
// clip's duration its exact share of the output's frames (boundaries
// frames at rate fo) so that the timestamps never drift.
func (cp *copyPlan) script(frames []int64, fo Rational) string {
	var b strings.Builder
	b.WriteString("ffconcat version 1.0\n")
	at := func(frame int64) int64 { // µs, rounded
		return roundRat(big.NewRat(frame*int64(fo.Den)*1_000_000, int64(fo.Num)))
	}
	for i, c := range cp.clips {
		fmt.Fprintf(&b, "file %s\n", quoteConcat(c.url))
		if c.remote {
			b.WriteString("option reconnect 1\n")
		}
		fmt.Fprintf(&b, "inpoint %s\n", microseconds(c.inpoint))
		if c.outpoint >= 0 {
			fmt.Fprintf(&b, "outpoint %s\n", microseconds(c.outpoint))
		}
		fmt.Fprintf(&b, "duration %s\n", microseconds(at(frames[i+1])-at(frames[i])))
	}
	return "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(b.String()))
}

// quoteConcat quotes s for a concat script (av_get_token: single quotes,
// a quote itself as '\”).
func quoteConcat(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// microseconds is us µs in seconds, exactly ("-0.000040", "2.920000").
func microseconds(us int64) string {
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	return fmt.Sprintf("%s%d.%06d", sign, us/1_000_000, us%1_000_000)
}

// copyCodecs are ffprobe's names of the profile's codecs.
var copyCodecs = map[string]string{"h264": "h264", "hevc": "hevc", "prores": "prores", "dnxhr": "dnxhd", "mpeg2": "mpeg2video"}

// copyProfiles are ffprobe's names of the codec profile v makes.
func copyProfiles(v *Video) []string {
	switch v.Codec {
	case "h264":
		return map[string][]string{"baseline": {"Baseline", "Constrained Baseline"}, "main": {"Main"}, "high": {"High"}}[or(v.Profile, "high")]
	case "hevc":
		return []string{"Main"}
	case "prores":
		return []string{map[string]string{"proxy": "Proxy", "lt": "LT", "standard": "Standard", "hq": "HQ", "4444": "4444"}[or(v.Profile, "hq")]}
	case "dnxhr":
		return []string{"DNXHR " + strings.ToUpper(or(v.Profile, "hq"))}
	case "mpeg2":
		return []string{"Main"}
	}
	return nil
}

// copyPixFmts are the pixel formats ffprobe says of what the engine makes
// for v: its pixel format, and for ProRes 4444 the 12 bits this ffmpeg's
// decoder answers (no alpha: the engine makes none).
func copyPixFmts(v *Video) []string {
	pix := pixelFormat(v)
	if v.Codec == "prores" && pix == "yuv444p10le" {
		return []string{pix, "yuv444p12le"}
	}
	return []string{pix}
}

// copyContainers are the outputs the copy is made and checked for; the
// sources' too (an index the concat demuxer's seek lands on the keyframe
// from, timestamps ffprobe and the demuxer read alike).
var copyContainers = []string{"mp4", "mov"}

// isMOV reports whether an ffprobe format name is the MOV/MP4 demuxer's.
func isMOV(format string) bool { return slices.Contains(strings.Split(format, ","), "mov") }

// copyVeto is why s's video cannot be copied into p ("" if it can, as far
// as its headers say).
func copyVeto(s *source, p Profile) string {
	v := p.Video
	if s.video == nil {
		return "the source has no video"
	}
	if !isMOV(s.format) {
		return fmt.Sprintf("the source's container (%s) is not MOV/MP4", s.format)
	}
	st := &s.video.probed
	if want := copyCodecs[v.Codec]; st.CodecName != want {
		return fmt.Sprintf("the source's video is %s, not %s", st.CodecName, want)
	}
	if want := copyProfiles(v); !slices.Contains(want, st.Profile) {
		return fmt.Sprintf("the source's %s profile is %q, not %q", st.CodecName, st.Profile, want[0])
	}
	if st.Width != v.Width || st.Height != v.Height {
		return fmt.Sprintf("the source's picture is %dx%d, not %dx%d", st.Width, st.Height, v.Width, v.Height)
	}
	if sar := st.SampleAspect; sar != "" && sar != "1:1" && sar != "0:1" && sar != "N/A" {
		return fmt.Sprintf("the source's pixels are not square (%s)", sar)
	}
	if r := st.Rotation(); r != 0 {
		return fmt.Sprintf("the source's picture is rotated %d°", r)
	}
	fo := v.FrameRate.reduced()
	r, rok := parseRational(st.RFrameRate)
	a, aok := parseRational(st.AvgFrameRate)
	if !rok || !aok || r != fo || a != fo {
		return fmt.Sprintf("the source's frame rate is %s (average %s), not %s", st.RFrameRate, st.AvgFrameRate, fo)
	}
	if want := copyPixFmts(v); !slices.Contains(want, st.PixFmt) {
		return fmt.Sprintf("the source's pixel format is %s, not %s", st.PixFmt, want[0])
	}
	switch {
	case st.FieldOrder != "progressive" && st.FieldOrder != "" && st.FieldOrder != "unknown":
		return fmt.Sprintf("the source is interlaced (%s)", st.FieldOrder)
	case st.FieldOrder != "progressive" && s.video.interlaced:
		return "the source is interlaced"
	}
	// The colour the engine makes: BT.709, limited range.
	untagged := func(x string) bool { return x == "" || x == "unknown" }
	switch {
	case s.video.matrix != "bt709":
		return fmt.Sprintf("the source's colour matrix is %s (%q), not BT.709", s.video.matrix, st.ColorSpace)
	case !untagged(st.ColorRange) && st.ColorRange != "tv":
		return fmt.Sprintf("the source's colour range is %s, not limited", st.ColorRange)
	case !untagged(st.ColorTransfer) && st.ColorTransfer != "bt709":
		return fmt.Sprintf("the source's transfer is %s, not BT.709", st.ColorTransfer)
	case !untagged(st.ColorPrims) && st.ColorPrims != "bt709":
		return fmt.Sprintf("the source's primaries are %s, not BT.709", st.ColorPrims)
	}
	return ""
}

// planCopy decides whether items' video is copied into p: a plan, or nil
// and why not. Its error is only ctx's: a probe that fails means the
// video is re-encoded.
func planCopy(ctx context.Context, items []placed, p Profile) (*copyPlan, string, error) {
	if p.Video == nil {
		return nil, "the profile has no video", nil
	}
	if !slices.Contains(copyContainers, p.Container) {
		return nil, fmt.Sprintf("the output is %s: the copy is made into MP4 and MOV only", p.Container), nil
	}
	// What the headers say.
	var sources []*source
	seen := map[*source]bool{}
	for i, it := range items {
		if why := copyVeto(it.src, p); why != "" {
			return nil, fmt.Sprintf("clips[%d]: %s", i, why), nil
		}
		if !seen[it.src] {
			seen[it.src] = true
			sources = append(sources, it.src)
		}
	}
	first := items[0].src.video
	for i, it := range items {
		if it.src.video.index != first.index {
			return nil, fmt.Sprintf("clips[%d]: the source's video is stream %d, clips[0]'s stream %d", i, it.src.video.index, first.index), nil
		}
	}

	// What the streams hold: the same time base, tag and codec
	// configuration (SPS/PPS) in every source — the concat demuxer keeps
	// the first's.
	facts := make([]*copyStream, len(sources))
	cuts := make([]copyClip, len(items))
	whys := make([]string, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(probeAtOnce)
	for n, s := range sources {
		g.Go(func() error {
			f, err := probeCopyStream(gctx, s)
			if err != nil {
				return err
			}
			facts[n] = f
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "the sources' video could not be probed: " + err.Error(), nil
	}
	for n, f := range facts {
		if *f != *facts[0] {
			i := slices.IndexFunc(items, func(it placed) bool { return it.src == sources[n] })
			return nil, fmt.Sprintf("clips[%d]: the source's video is coded unlike clips[0]'s (time base %s, tag %s, configuration %s; clips[0]: %s, %s, %s)",
				i, f.TimeBase, f.Tag, f.Extradata, facts[0].TimeBase, facts[0].Tag, facts[0].Extradata), nil
		}
	}

	// The cuts: each In a keyframe, each Out a keyframe or the end. The
	// first clip that fails stops the others' probes.
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(probeAtOnce)
	for i, it := range items {
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			c, why, err := checkClip(gctx, it)
			if err != nil && gctx.Err() != nil {
				return nil // stopped
			}
			if err != nil {
				why = "its keyframes could not be probed: " + err.Error()
			}
			cuts[i], whys[i] = c, why
			if why != "" {
				return errVeto
			}
			return nil
		})
	}
	g.Wait() //nolint:errcheck // errVeto, said in whys
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	for i, why := range whys {
		if why != "" {
			return nil, fmt.Sprintf("clips[%d]: %s", i, why), nil
		}
	}
	return &copyPlan{stream: first.index, clips: cuts}, "", nil
}

// errVeto stops the checks of a sequence that cannot be copied.
var errVeto = errors.New("render: not copied")

// copyStream is what must be the same in every source copied.
type copyStream struct {
	TimeBase  string `json:"time_base"`
	Tag       string `json:"codec_tag_string"`
	Extradata string `json:"extradata_hash"`
}

// probeCopyStream reads s's video stream's time base, tag and codec
// configuration's hash.
func probeCopyStream(ctx context.Context, s *source) (*copyStream, error) {
	var out bytes.Buffer
	args := []string{"-v", "error", "-print_format", "json", "-show_data_hash", "md5",
		"-show_entries", "stream=time_base,codec_tag_string,extradata_hash", "-select_streams", strconv.Itoa(s.video.index), "--", s.url}
	if err := tool.Run(ctx, tool.Cmd{Program: "ffprobe", Args: args, Stdout: &out}); err != nil {
		return nil, err
	}
	var r struct{ Streams []copyStream }
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Streams) != 1 {
		return nil, errors.New("ffprobe: unreadable answer")
	}
	return &r.Streams[0], nil
}

// checkClip checks it's In and Out and answers its concat entry, or why
// it cannot be copied.
func checkClip(ctx context.Context, it placed) (copyClip, string, error) {
	c := copyClip{url: it.src.url, remote: it.src.remote, outpoint: -1}
	in, why, err := checkCut(ctx, it.src, it.clip.In, cutIn)
	if why != "" || err != nil {
		return c, why, err
	}
	c.inpoint = in
	kind := cutOut
	if it.clip.Out == it.src.frames {
		kind = cutEnd
	}
	out, why, err := checkCut(ctx, it.src, it.clip.Out, kind)
	if why != "" || err != nil {
		return c, why, err
	}
	if kind == cutOut {
		c.outpoint = out
	}
	return c, "", nil
}

type cutKind int

const (
	cutIn  cutKind = iota // the clip's first frame
	cutOut                // the frame after its last
	cutEnd                // the source's end (Out = its frame count)
)

// packet is a packet as ffprobe reads it: stream, timestamps (seconds,
// exact; nil unknown), keyframe.
type packet struct {
	stream   int
	pts, dts *big.Rat
	key      bool
}

// checkCut reads the packets around frame n of s (a bounded read) and
// checks that a clip can be cut there by the concat demuxer without
// decoding; it answers the inpoint (cutIn) or outpoint (cutOut) in µs,
// or why not.
//
//   - In and Out: frame n's packet is a keyframe at the frame's time, on
//     a grid of whole frames with no frame missing or doubled around it,
//     and the cut is closed: every packet before it in decoding order
//     shows before it, every packet from it on at or after it. Then the
//     packets from In's up to Out's, in decoding order, are exactly the
//     frames In..Out-1.
//   - In: the next keyframe decodes after the inpoint (the demuxer's seek
//     lands on In's).
//   - Out: the demuxer stops at the first packet of any stream whose
//     decoding time is at or after the outpoint; none may come before the
//     clip's last video packet in the file.
//   - End: the source's last frame is Out-1.
func checkCut(ctx context.Context, s *source, n int64, kind cutKind) (int64, string, error) {
	fs := s.rate
	frame := 1 / fs.Float()
	t := s.origin + float64(n)*frame
	margin := math.Max(2, 30*frame)
	from := math.Max(s.start, t-margin)
	interval := seconds(from) + "%"
	if kind != cutEnd {
		interval += seconds(t + margin)
	}
	pkts, err := probePackets(ctx, s.url, interval)
	if err != nil {
		return 0, "", err
	}
	point, why := judgeCut(pkts, s, n, kind)
	return point, why, nil
}

// judgeCut is checkCut's verdict on the packets read around frame n of s
// (all streams, in the demuxer's order).
func judgeCut(pkts []packet, s *source, n int64, kind cutKind) (int64, string) {
	fs := s.rate
	what := map[cutKind]string{cutIn: "in", cutOut: "out", cutEnd: "out"}[kind]
	// The video's packets, in decoding order, with their frame numbers.
	var video []int // positions in pkts
	var nums []int64
	at := -1 // frame n's, in video
	for i, p := range pkts {
		if p.stream != s.video.index || p.pts == nil {
			continue
		}
		pts, _ := p.pts.Float64()
		x := (pts - s.origin) * fs.Float()
		num := int64(math.Round(x))
		if math.Abs(x-float64(num)) > 0.25 {
			return 0, fmt.Sprintf("the source's frame at %.6f s is off its %s frame grid (near %s %d)", pts, fs, what, n)
		}
		if num == n {
			at = len(video)
		}
		video = append(video, i)
		nums = append(nums, num)
	}
	sorted := slices.Clone(nums)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return 0, fmt.Sprintf("the source has two frames at frame %d (near %s %d)", sorted[i], what, n)
		}
	}
	// No frame missing around the cut (the window's ends may lack the
	// frames reordered past them).
	lo, hi := max(0, n-10), n+10
	if s.frames > 0 {
		hi = min(hi, s.frames-1)
	}
	if kind == cutEnd {
		lo, hi = max(0, n-10), n-1
		if len(sorted) == 0 || sorted[len(sorted)-1] != n-1 {
			return 0, fmt.Sprintf("out %d is the source's frame count, but its last frame is not frame %d", n, n-1)
		}
	}
	for f := lo; f <= hi; f++ {
		if _, ok := slices.BinarySearch(sorted, f); !ok {
			return 0, fmt.Sprintf("the source lacks frame %d (near %s %d)", f, what, n)
		}
	}
	if kind == cutEnd {
		return -1, ""
	}
	if at < 0 {
		return 0, fmt.Sprintf("%s %d: no such frame in the source", what, n)
	}
	k := pkts[video[at]]
	if !k.key {
		return 0, fmt.Sprintf("%s %d is not on a keyframe", what, n)
	}
	for j, num := range nums {
		if (j < at) != (num < n) {
			return 0, fmt.Sprintf("%s %d: frames are reordered across its keyframe (an open GOP)", what, n)
		}
	}
	if k.dts == nil {
		return 0, fmt.Sprintf("%s %d: the keyframe has no decoding time", what, n)
	}
	if kind == cutIn {
		in := ceilMicro(k.pts)
		for _, i := range video[at+1:] {
			if p := pkts[i]; p.key && (p.dts == nil || p.dts.Cmp(big.NewRat(in, 1_000_000)) <= 0) {
				return 0, fmt.Sprintf("in %d: the next keyframe decodes too early for a seek to land on it", n)
			}
		}
		return in, ""
	}
	out := floorMicro(k.dts)
	if at == 0 {
		return 0, fmt.Sprintf("out %d: nothing of the clip read before it", n)
	}
	limit := big.NewRat(out, 1_000_000)
	if pkts[video[at-1]].dts == nil || pkts[video[at-1]].dts.Cmp(limit) >= 0 {
		return 0, fmt.Sprintf("out %d: the clip's last frame decodes too late", n)
	}
	for _, p := range pkts[:video[at-1]] {
		if p.dts != nil && p.dts.Cmp(limit) >= 0 {
			return 0, fmt.Sprintf("out %d: stream %d is stored ahead of the picture there (the concat demuxer would stop early)", n, p.stream)
		}
	}
	return out, ""
}

// ceilMicro and floorMicro are x seconds in whole µs, rounded up and
// down.
func ceilMicro(x *big.Rat) int64 {
	us := new(big.Rat).Mul(x, big.NewRat(1_000_000, 1))
	q := new(big.Int).Div(us.Num(), us.Denom()) // floor (Euclidean, denominator > 0)
	if !us.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

func floorMicro(x *big.Rat) int64 {
	us := new(big.Rat).Mul(x, big.NewRat(1_000_000, 1))
	return new(big.Int).Div(us.Num(), us.Denom()).Int64()
}

// probePackets reads the packets of every stream in interval (ffprobe's
// -read_intervals), in the order the demuxer gives them.
func probePackets(ctx context.Context, in, interval string) ([]packet, error) {
	var out bytes.Buffer
	args := []string{"-v", "error", "-print_format", "json", "-show_entries", "packet=stream_index,pts,dts,flags:stream=index,time_base",
		"-read_intervals", interval, "--", in}
	if err := tool.Run(ctx, tool.Cmd{Program: "ffprobe", Args: args, Stdout: &out}); err != nil {
		return nil, err
	}
	var r struct {
		Packets []struct {
			Stream int             `json:"stream_index"`
			PTS    json.RawMessage `json:"pts"`
			DTS    json.RawMessage `json:"dts"`
			Flags  string          `json:"flags"`
		} `json:"packets"`
		Streams []struct {
			Index    int    `json:"index"`
			TimeBase string `json:"time_base"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("ffprobe: unreadable answer: %w", err)
	}
	tb := map[int]*big.Rat{}
	for _, s := range r.Streams {
		if q, ok := parseRational(s.TimeBase); ok {
			tb[s.Index] = q.rat()
		}
	}
	ts := func(raw json.RawMessage, base *big.Rat) *big.Rat {
		v, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || base == nil {
			return nil
		}
		return new(big.Rat).Mul(big.NewRat(v, 1), base)
	}
	pkts := make([]packet, len(r.Packets))
	for i, p := range r.Packets {
		pkts[i] = packet{stream: p.Stream, pts: ts(p.PTS, tb[p.Stream]), dts: ts(p.DTS, tb[p.Stream]), key: strings.HasPrefix(p.Flags, "K")}
	}
	return pkts, nil
}
