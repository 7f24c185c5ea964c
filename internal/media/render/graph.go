package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// build makes the command of a render of items into out (an absolute
// path) with p (docs/render-engine.md, "The command"); with cp the video
// is copied from the sources ("Stream copy") and the graph makes the
// sound only.
func build(items []placed, p Profile, out string, cp *copyPlan) (*Job, error) {
	frames, samples := boundaries(items, p)
	n := len(items)
	j := &Job{Output: out, Frames: frames[n], Samples: samples[n], Channels: p.Audio.Channels()}
	hasVideo, hasAudio := p.Video != nil, p.hasAudio()
	copying := hasVideo && cp != nil
	j.StreamCopy = copying
	var fo Rational
	if hasVideo {
		fo = p.Video.FrameRate.reduced()
		j.FrameRate = fo
		j.Duration = ratDuration(frames[n]*int64(fo.Den), int64(fo.Num))
	}
	if hasAudio {
		j.SampleRate = p.Audio.SampleRate
		if !hasVideo {
			j.Duration = ratDuration(samples[n], int64(p.Audio.SampleRate))
		}
	}

	// -copyts: the graph cuts at the file's own timestamps, which ffmpeg
	// would otherwise shift by the seek point rounded to the stream's
	// time base (a frame, in MXF).
	args := []string{"-copyts"}
	var g graph
	segments := 0
	for i, it := range items {
		c := Cut{Clip: it.index, Frame: frames[i], Frames: frames[i+1] - frames[i],
			Sample: samples[i], Samples: samples[i+1] - samples[i]}
		if c.Frames == 0 && c.Samples == 0 {
			continue // too short to make a frame (or a sample) of the output
		}
		if hasVideo {
			c.Start = ratDuration(c.Frame*int64(fo.Den), int64(fo.Num))
		} else {
			c.Start = ratDuration(c.Sample, int64(p.Audio.SampleRate))
		}
		j.Cuts = append(j.Cuts, c)

		// The clip's first frame's time, as the file has it (-copyts:
		// the graph sees the file's own timestamps), and the point before
		// it the input is seeked to (counted from the container's start).
		k := segments
		segments++
		if copying && !hasAudio {
			continue // the clip's input would be for its sound only
		}
		at := it.src.origin + float64(it.clip.In)*float64(it.rate.Den)/float64(it.rate.Num)
		if seek := at - it.src.start - seekMargin; it.src.seekable && seek > 0 {
			args = append(args, "-ss", seconds(math.Floor(seek*1000)/1000))
		}
		args = append(args, it.src.input...)
		if hasVideo && !copying {
			g.video(k, it, p.Video, at, c.Frames)
		}
		if hasAudio {
			g.audio(k, it, p.Audio, at, c.Samples)
		}
	}
	if segments == 0 {
		return nil, fmt.Errorf("the sequence is too short to make a frame of the output")
	}

	// The copied video: the concat demuxer's script, after the clips'
	// inputs (their numbers are the graph's).
	copyInput := 0
	if copying {
		if len(cp.clips) != segments {
			return nil, fmt.Errorf("render: %d clips to copy for %d segments", len(cp.clips), segments)
		}
		script := cp.script(frames, fo)
		if len(script) > maxGraph {
			return nil, fmt.Errorf("the sequence's concat script is %d kB, over the %d kB one command takes: render it in parts",
				len(script)>>10, maxGraph>>10)
		}
		if hasAudio {
			copyInput = segments // after the clips' inputs
		}
		args = append(args, "-f", "concat", "-safe", "0", "-auto_convert", "0", "-i", script)
	}
	graphVideo := hasVideo && !copying

	// Concatenate, then number the frames and samples afresh from 0.
	var ins strings.Builder
	for k := range segments {
		if graphVideo {
			fmt.Fprintf(&ins, "[v%d]", k)
		}
		for r := range j.Channels {
			fmt.Fprintf(&ins, "[a%d_%d]", k, r)
		}
	}
	var outs strings.Builder
	if graphVideo {
		outs.WriteString("[vcat]")
	}
	for r := range j.Channels {
		fmt.Fprintf(&outs, "[acat%d]", r)
	}
	if graphVideo || hasAudio {
		g.add("%sconcat=n=%d:v=%d:a=%d%s", ins.String(), segments, b2i(graphVideo), j.Channels, outs.String())
	}
	if graphVideo {
		g.add("[vcat]settb=%d/%d,setpts=N[vout]", fo.Den, fo.Num)
	}
	if hasAudio {
		g.add("%s", mergeChannels(j.Channels, p.Audio.SampleRate))
	}
	j.Graph = strings.Join(g, ";")
	if len(j.Graph) > maxGraph {
		return nil, fmt.Errorf("the sequence's filter graph is %d kB, over the %d kB one command takes: render it in parts",
			len(j.Graph)>>10, maxGraph>>10)
	}

	if j.Graph != "" {
		args = append(args, "-filter_complex", j.Graph)
	}
	switch {
	case copying:
		args = append(args, "-map", strconv.Itoa(copyInput)+":"+strconv.Itoa(cp.stream), "-c:v", "copy")
		if p.Video.Codec == "hevc" && p.Container != "mxf" {
			args = append(args, "-tag:v", "hvc1")
		}
	case hasVideo:
		args = append(args, "-map", "[vout]")
		args = append(args, videoArgs(p.Video, p.Container)...)
	}
	if hasAudio {
		args = append(args, "-map", "[aout]")
		args = append(args, audioArgs(p.Audio, j.Channels)...)
	}
	args = append(args, "-map_metadata", "-1", "-map_chapters", "-1", "-max_muxing_queue_size", "4096")
	if p.Container == "mp4" || p.Container == "mov" {
		args = append(args, "-movflags", "+faststart")
	}
	j.Args = append(args, "-f", p.Container, "file:"+out)
	return j, nil
}

// graph is a filter graph being built, a chain an element.
type graph []string

func (g *graph) add(format string, a ...any) { *g = append(*g, fmt.Sprintf(format, a...)) }

// video adds segment k's picture, [v<k>]: exactly frames frames of the
// profile's size, rate and pixel format, the first the source's frame In
// (the nearest at or after its time when the rates differ).
func (g *graph) video(k int, it placed, v *Video, at float64, frames int64) {
	fo := v.FrameRate.reduced()
	pix := pixelFormat(v)
	if it.src.video == nil {
		g.add("color=c=black:s=%dx%d:r=%s,format=%s,trim=end_frame=%d[v%d]", v.Width, v.Height, fo, pix, frames, k)
		return
	}
	// Cut by timestamp, a quarter of a frame before the frames' own
	// times: the frames In..Out-1 whatever the timestamps' rounding (a
	// millisecond time base), and clear of trim's own rounding to the
	// time base (a frame's duration in MXF), which half a frame is not.
	fs := it.rate
	margin := 0.25 * float64(fs.Den) / float64(fs.Num)
	start := at - margin
	end := at + float64(it.clip.Out-it.clip.In)*float64(fs.Den)/float64(fs.Num) - margin
	trim := "trim=start=" + seconds(start) + ":end=" + seconds(end)
	w, h := fit(it.src.video.width, it.src.video.height, v.Width, v.Height)
	// To BT.709: swscale's plain path shifts luma by ~1 % converting
	// matrices; its accurate one (twice the time) is exact, and is only
	// needed for SD (BT.601) sources, which are small.
	flags := "bicubic"
	if it.src.video.matrix != "bt709" {
		flags = "bicubic+accurate_rnd+full_chroma_int"
	}
	g.add("[%d:v:%d]%s,setpts=PTS-STARTPTS,fps=%s,"+
		"scale=%d:%d:flags=%s:in_color_matrix=%s:out_color_matrix=bt709:out_range=tv,setsar=1,"+
		"pad=%d:%d:(ow-iw)/2:(oh-ih)/2:black,format=%s,"+
		"tpad=stop_mode=clone:stop=%d,trim=end_frame=%d[v%d]",
		k, it.src.video.ordinal, trim, fo,
		w, h, flags, it.src.video.matrix,
		v.Width, v.Height, pix,
		frames, frames, k)
}

// audio adds segment k's sound, a mono stream an output channel
// ([a<k>_<r>]): exactly samples samples at the profile's rate, from the
// time of the source's frame In (at), silence where the source has
// nothing.
func (g *graph) audio(k int, it placed, a *Audio, at float64, samples int64) {
	channels := a.Channels()
	// The rows this source can play, by the stream they read.
	rows := map[int][]int{}
	var streams []int
	var played [16]bool
	for r := range channels {
		row := a.Mapping[r]
		s, ch := row[0], row[1]
		if s < 0 || row[3]&FlagMute != 0 || s >= len(it.src.audio) || ch >= it.src.audio[s].channels {
			continue
		}
		if _, ok := rows[s]; !ok {
			streams = append(streams, s)
		}
		rows[s] = append(rows[s], r)
		played[r] = true
	}
	sr := a.SampleRate
	for _, s := range streams {
		// Cut at the frame's time (sample-exact), make that time 0, fill
		// from 0 with silence where the stream starts later, resample,
		// pad where it ends early, and cut to length.
		chain := fmt.Sprintf("[%d:a:%d]atrim=start=%s:end=%s,asetpts=PTS-%s/TB,"+
			"aresample=%d:min_comp=0.001:min_hard_comp=0.001:first_pts=0,apad=whole_len=%d,atrim=end_sample=%d",
			k, s, seconds(at), seconds(at+float64(samples)/float64(sr)+0.1), seconds(at), sr, samples, samples)
		if len(rows[s]) > 1 {
			chain += fmt.Sprintf(",asplit=%d", len(rows[s]))
		}
		for _, r := range rows[s] {
			chain += fmt.Sprintf("[s%d_%d]", k, r)
		}
		g.add("%s", chain)
		for _, r := range rows[s] {
			g.add("[s%d_%d]pan=mono|c0=%sc%d[a%d_%d]", k, r, gain(a.Mapping[r]), a.Mapping[r][1], k, r)
		}
	}
	for r := range channels {
		if !played[r] {
			g.add("anullsrc=r=%d:cl=mono,atrim=end_sample=%d[a%d_%d]", sr, samples, k, r)
		}
	}
}

// gain is a row's gain as pan's factor ("" for 1, "-0.501187*" for -6 dB
// inverted).
func gain(row [4]int) string {
	g := math.Pow(10, float64(row[2])/20)
	if row[3]&FlagInvert != 0 {
		g = -g
	}
	if g == 1 {
		return ""
	}
	return strconv.FormatFloat(g, 'f', 6, 64) + "*"
}

// mergeChannels makes [aout] of the concatenated mono channels
// [acat0].. : one stream in ffmpeg's layout for the count (3.0 rather
// than 2.1 for three), its samples numbered from 0.
func mergeChannels(channels, sr int) string {
	var b strings.Builder
	for r := range channels {
		fmt.Fprintf(&b, "[acat%d]aformat=sample_fmts=flt:channel_layouts=mono[m%d];", r, r)
	}
	for r := range channels {
		fmt.Fprintf(&b, "[m%d]", r)
	}
	switch channels {
	case 1:
		b.WriteString("anull")
	case 3:
		b.WriteString("amerge=inputs=3,channelmap=map=0|1|2:channel_layout=3.0")
	default:
		fmt.Fprintf(&b, "amerge=inputs=%d", channels)
	}
	fmt.Fprintf(&b, ",asettb=1/%d,asetpts=N[aout]", sr)
	return b.String()
}

// fit is the size a picture shown at w×h takes in a W×H frame: as large
// as fits, its aspect kept, both sides even.
func fit(w, h, W, H int) (int, int) {
	if w*H > W*h { // wider than the frame
		return W, even(float64(W) * float64(h) / float64(w))
	}
	return even(float64(H) * float64(w) / float64(h)), H
}

func even(x float64) int { return max(2, 2*int(math.Round(x/2))) }

// pixelFormat is the codec's (and profile's) pixel format.
func pixelFormat(v *Video) string {
	switch v.Codec {
	case "prores":
		if v.Profile == "4444" {
			return "yuv444p10le"
		}
		return "yuv422p10le"
	case "dnxhr":
		switch v.Profile {
		case "hqx":
			return "yuv422p10le"
		case "444":
			return "yuv444p10le"
		}
		return "yuv422p"
	}
	return "yuv420p"
}

// videoArgs are the video encoder's arguments.
func videoArgs(v *Video, container string) []string {
	fo := v.FrameRate.reduced()
	var a []string
	switch v.Codec {
	case "h264":
		a = []string{"-c:v", "libx264", "-profile:v", or(v.Profile, "high")}
		a = append(a, rateArgs(v.BitrateKbps, "20")...)
	case "hevc":
		a = []string{"-c:v", "libx265", "-profile:v", or(v.Profile, "main"), "-x265-params", "log-level=error"}
		a = append(a, rateArgs(v.BitrateKbps, "23")...)
		if container != "mxf" {
			a = append(a, "-tag:v", "hvc1")
		}
	case "prores":
		profiles := map[string]string{"proxy": "0", "lt": "1", "standard": "2", "hq": "3", "4444": "4"}
		a = []string{"-c:v", "prores_ks", "-profile:v", profiles[or(v.Profile, "hq")], "-vendor", "apl0"}
	case "dnxhr":
		a = []string{"-c:v", "dnxhd", "-profile:v", "dnxhr_" + or(v.Profile, "hq")}
	case "mpeg2":
		kbps := v.BitrateKbps
		if kbps == 0 {
			kbps = int(math.Round(float64(v.Width*v.Height) * fo.Float() * 0.25 / 1000))
			kbps = min(max(kbps, 1500), 50000)
		}
		a = []string{"-c:v", "mpeg2video", "-b:v", strconv.Itoa(kbps) + "k",
			"-maxrate", strconv.Itoa(kbps*3/2) + "k", "-bufsize", strconv.Itoa(min(kbps*1000, 9781248))}
	}
	a = append(a, "-pix_fmt", pixelFormat(v), "-r", fo.String(),
		"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv")
	return a
}

func rateArgs(kbps int, crf string) []string {
	if kbps > 0 {
		return []string{"-b:v", strconv.Itoa(kbps) + "k"}
	}
	return []string{"-crf", crf}
}

// audioArgs are the audio encoder's arguments.
func audioArgs(a *Audio, channels int) []string {
	args := []string{"-c:a", a.Codec}
	if a.Codec == "aac" {
		kbps := a.BitrateKbps
		if kbps == 0 {
			kbps = 64 * channels
		}
		args = append(args, "-b:a", strconv.Itoa(kbps)+"k")
	}
	return append(args, "-ar", strconv.Itoa(a.SampleRate))
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// seconds is t for ffmpeg, to the microsecond.
func seconds(t float64) string { return strconv.FormatFloat(t, 'f', 6, 64) }

// ratDuration is num/den seconds.
func ratDuration(num, den int64) time.Duration {
	return time.Duration(math.Round(float64(num) / float64(den) * float64(time.Second)))
}
