package media

import (
	"fmt"
	"strconv"
	"strings"
)

// How a file's audio reaches a client (docs/processing.md, "Audio channels"):
// the main proxy carries one stereo programme, and every source channel the
// main proxy does not carry as it is stays reachable in a proxy of its own.

// Main mix rules: how the main proxy's stereo is made.
const (
	MixStereo     = "stereo"      // the first track's two channels as they are
	MixMono       = "mono"        // the first track (one channel) on both sides
	MixDownmix    = "downmix"     // the first track's surround, ITU-R BS.775 coefficients
	MixFirstPair  = "first-pair"  // the first track's channels 1 and 2 (no known surround layout)
	MixPairedMono = "paired-mono" // mono tracks 1 and 2 as left and right
)

// audioBitsPerChannel is the AAC rate a channel gets in every audio proxy
// (a stereo proxy 128 kb/s, as before; 5.1 384 kb/s).
const audioBitsPerChannel = 64_000

// maxWaveformChannels bounds the waveform's channels (a 16-channel
// broadcast stream keeps all of them; its JSON stays a few MB).
const maxWaveformChannels = 16

// AudioLayout is the plan for a file's audio.
type AudioLayout struct {
	// Main is how the main proxy's stereo is made (nil: no audio).
	Main *MainMix
	// Proxies are the audio proxies beside the main one
	// (proxyAudioTrackUrls), in order.
	Proxies []TrackProxy
	// Wave is what the waveform holds.
	Wave WaveSource
}

// MainMix is the main proxy's stereo.
type MainMix struct {
	Rule string
	// Tracks are the audio tracks it reads (0-based audio ordinals).
	Tracks []int
	// Left and Right say what each side holds, as a person reads it
	// ("0.414 FL + 0.293 FC + 0.293 SL" of track 1).
	Left, Right string
	graph       string // a filtergraph ending in [main]
}

// TrackProxy is one audio proxy of a source track, whole or a group of its
// channels.
type TrackProxy struct {
	// Track is the source's 0-based audio ordinal (technicalMetadata.audio[Track]).
	Track int
	// Channels are the source track's channels it holds, 0-based, in order.
	Channels []int
	// Layout is the proxy's channel layout (mono, stereo, 5.1, 7.1).
	Layout string
	// SourceLayout is the track's layout as ffprobe names it.
	SourceLayout string
	graph        string // a filtergraph ending in [out], or "" to map the track as it is
}

// Label names what a proxy holds as a person says it, 1-based like a
// mixing desk: "track 2", "track 1 channels 3-4", "track 1 channel 5".
func (t TrackProxy) Label() string {
	s := "track " + strconv.Itoa(t.Track+1)
	switch {
	case t.graph == "":
		return s
	case len(t.Channels) == 1:
		return fmt.Sprintf("%s channel %d", s, t.Channels[0]+1)
	default:
		return fmt.Sprintf("%s channels %d-%d", s, t.Channels[0]+1, t.Channels[len(t.Channels)-1]+1)
	}
}

// WaveSource is what the waveform is drawn of: the main programme's source
// channels (the first track's, or the paired mono tracks 1 and 2), each a
// channel of the waveform.
type WaveSource struct {
	// Labels name each channel ("track 1 FL", "track 2").
	Labels []string
	graph  string // a filtergraph ending in [wave]
}

// Channels is how many channels the waveform holds.
func (w WaveSource) Channels() int { return len(w.Labels) }

// surroundRoles are the channels of the surround layouts the main proxy
// downmixes, by ffmpeg's names, in their order.
var surroundRoles = map[string][]string{
	"5.0":            {"FL", "FR", "FC", "BL", "BR"},
	"5.0(side)":      {"FL", "FR", "FC", "SL", "SR"},
	"5.1":            {"FL", "FR", "FC", "LFE", "BL", "BR"},
	"5.1(side)":      {"FL", "FR", "FC", "LFE", "SL", "SR"},
	"6.0":            {"FL", "FR", "FC", "BC", "SL", "SR"},
	"6.1":            {"FL", "FR", "FC", "LFE", "BC", "SL", "SR"},
	"7.0":            {"FL", "FR", "FC", "BL", "BR", "SL", "SR"},
	"7.1":            {"FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"},
	"7.1(wide)":      {"FL", "FR", "FC", "LFE", "BL", "BR", "FLC", "FRC"},
	"7.1(wide-side)": {"FL", "FR", "FC", "LFE", "FLC", "FRC", "SL", "SR"},
}

// wholeLayouts are the layouts a track proxy keeps whole, as the AAC layout
// it is written in: the listening formats AAC carries without a program
// config element (a side pair is written as the back pair: a relabel, not
// a mix). Anything else is cut into pairs.
var wholeLayouts = map[string]string{
	"mono": "mono", "stereo": "stereo",
	"5.0": "5.0", "5.0(side)": "5.0", "5.1": "5.1", "5.1(side)": "5.1", "7.1": "7.1",
}

// AudioLayoutOf is the plan for p's audio.
func AudioLayoutOf(p *Probe) AudioLayout {
	tracks := p.AudioStreams()
	if len(tracks) == 0 {
		return AudioLayout{}
	}
	var l AudioLayout
	l.Main = mainMix(tracks)
	carried := map[int]bool{}
	switch l.Main.Rule {
	case MixStereo, MixMono:
		carried[0] = true
	case MixPairedMono:
		carried[0], carried[1] = true, true
	}
	for i, s := range tracks {
		if !carried[i] {
			l.Proxies = append(l.Proxies, trackProxies(i, s)...)
		}
	}
	l.Wave = waveSource(l.Main, tracks)
	return l
}

// mainMix chooses the main proxy's stereo from the tracks.
func mainMix(tracks []*Stream) *MainMix {
	first := tracks[0]
	in := "[0:a:0]"
	switch {
	case first.Channels == 1 && len(tracks) > 1 && tracks[1].Channels == 1:
		return &MainMix{Rule: MixPairedMono, Tracks: []int{0, 1}, Left: "track 1", Right: "track 2",
			graph: "[0:a:0]aresample=48000[l];[0:a:1]aresample=48000[r];" +
				"[l][r]join=inputs=2:channel_layout=stereo:map=0.0-FL|1.0-FR[main]"}
	case first.Channels == 1:
		return &MainMix{Rule: MixMono, Tracks: []int{0}, Left: "track 1", Right: "track 1",
			graph: in + "pan=stereo|c0=c0|c1=c0[main]"}
	case first.Channels == 2:
		return &MainMix{Rule: MixStereo, Tracks: []int{0}, Left: "track 1 channel 1", Right: "track 1 channel 2",
			graph: in + "pan=stereo|c0=c0|c1=c1[main]"}
	}
	if roles, ok := surroundRoles[first.ChannelLayout]; ok && len(roles) == first.Channels {
		left, right := downmix(roles)
		return &MainMix{Rule: MixDownmix, Tracks: []int{0}, Left: "track 1: " + left, Right: "track 1: " + right,
			graph: in + "pan=stereo|FL=" + left + "|FR=" + right + "[main]"}
	}
	return &MainMix{Rule: MixFirstPair, Tracks: []int{0}, Left: "track 1 channel 1", Right: "track 1 channel 2",
		graph: in + "pan=stereo|c0=c0|c1=c1[main]"}
}

// downmix is the two sides of ITU-R BS.775's stereo downmix of a surround
// layout, as pan expressions: the front pair at 1, every other channel at
// 0.7071 (-3 dB) to its side or, centred, to both; the LFE dropped. Each
// side is divided by the sum of its coefficients, so that no source can
// clip it (5.1: L 0.4142, C and Ls 0.2929; 7.1: L 0.3204, the others 0.2265).
func downmix(roles []string) (left, right string) {
	const minus3dB = 0.7071
	type term struct {
		ch string
		g  float64
	}
	var l, r []term
	for _, ch := range roles {
		switch {
		case ch == "FL":
			l = append(l, term{ch, 1})
		case ch == "FR":
			r = append(r, term{ch, 1})
		case ch == "LFE":
		case strings.HasSuffix(ch, "C") && ch != "FLC" && ch != "FRC": // FC, BC
			l, r = append(l, term{ch, minus3dB}), append(r, term{ch, minus3dB})
		case strings.HasSuffix(ch, "L") || ch == "FLC":
			l = append(l, term{ch, minus3dB})
		default: // the right side's
			r = append(r, term{ch, minus3dB})
		}
	}
	side := func(ts []term) string {
		sum := 0.0
		for _, t := range ts {
			sum += t.g
		}
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = strconv.FormatFloat(t.g/sum, 'f', 4, 64) + "*" + t.ch
		}
		return strings.Join(parts, "+")
	}
	return side(l), side(r)
}

// trackProxies are the proxies of audio track i: whole when its layout is
// a listening format AAC carries (wholeLayouts), else cut into stereo pairs
// of its channels (1-2, 3-4, …; an odd last one mono), as AES pairs are —
// discrete channels (a camera's four microphones, a server's 16-channel
// embed) each stay untouched.
func trackProxies(i int, s *Stream) []TrackProxy {
	in := "[0:a:" + strconv.Itoa(i) + "]"
	if s.Channels == 1 {
		return []TrackProxy{{Track: i, Channels: []int{0}, Layout: "mono", SourceLayout: s.ChannelLayout}}
	}
	if aac, ok := wholeLayouts[s.ChannelLayout]; ok {
		t := TrackProxy{Track: i, Channels: seq(0, s.Channels), Layout: aac, SourceLayout: s.ChannelLayout}
		if aac != s.ChannelLayout {
			t.graph = in + "aformat=channel_layouts=" + aac + "[out]"
		}
		return []TrackProxy{t}
	}
	var out []TrackProxy
	for c := 0; c < s.Channels; c += 2 {
		t := TrackProxy{Track: i, SourceLayout: s.ChannelLayout}
		if c+1 < s.Channels {
			t.Channels, t.Layout = []int{c, c + 1}, "stereo"
			t.graph = fmt.Sprintf("%span=stereo|c0=c%d|c1=c%d[out]", in, c, c+1)
		} else {
			t.Channels, t.Layout = []int{c}, "mono"
			t.graph = fmt.Sprintf("%span=mono|c0=c%d[out]", in, c)
		}
		out = append(out, t)
	}
	return out
}

// waveSource is the main programme's source channels: the paired mono
// tracks, else the first track's channels (at most maxWaveformChannels).
func waveSource(m *MainMix, tracks []*Stream) WaveSource {
	if m.Rule == MixPairedMono {
		return WaveSource{Labels: []string{"track 1", "track 2"},
			graph: "[0:a:0]aresample=8000[l];[0:a:1]aresample=8000[r];" +
				"[l][r]join=inputs=2:channel_layout=stereo:map=0.0-FL|1.0-FR[wave]"}
	}
	n := min(tracks[0].Channels, maxWaveformChannels)
	roles := surroundRoles[tracks[0].ChannelLayout]
	labels := make([]string, n)
	pan := make([]string, n)
	for c := range n {
		labels[c] = fmt.Sprintf("track 1 channel %d", c+1)
		if len(roles) == tracks[0].Channels {
			labels[c] += " (" + roles[c] + ")"
		} else if tracks[0].ChannelLayout == "stereo" {
			labels[c] += " (" + []string{"FL", "FR"}[c] + ")"
		}
		pan[c] = fmt.Sprintf("c%d=c%d", c, c)
	}
	// pan to "Nc" keeps the channels as they are, in order, whatever their
	// layout (none, or one swresample would remix on resampling).
	return WaveSource{Labels: labels,
		graph: "[0:a:0]pan=" + strconv.Itoa(n) + "c|" + strings.Join(pan, "|") + ",aresample=" + strconv.Itoa(waveformRate) + "[wave]"}
}

// proxyAudioArgs are the web proxy's audio arguments: the main mix, AAC
// stereo at 48 kHz (none without audio).
func proxyAudioArgs(p *Probe) []string {
	m := AudioLayoutOf(p).Main
	if m == nil {
		return nil
	}
	return mainMixArgs(m)
}

func mainMixArgs(m *MainMix) []string {
	return []string{"-filter_complex", m.graph, "-map", "[main]",
		"-c:a", "aac", "-b:a", strconv.Itoa(2 * audioBitsPerChannel), "-ar", "48000"}
}

// AudioProxiesArgs are ffmpeg's arguments for an audio file's main proxy
// (main; "" for none, as a video's is in its web proxy) and the track
// proxies of l (tracks[i]: l.Proxies[i]'s path), each AAC in M4A at
// 48 kHz, faststart, in one run: the source is read and decoded once.
// Nil when there is nothing to make.
func AudioProxiesArgs(in, main string, tracks []string, l AudioLayout) []string {
	if (main == "" || l.Main == nil) && len(tracks) == 0 {
		return nil
	}
	args := []string{"-i", in}
	m4a := []string{"-vn", "-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4"}
	if main != "" && l.Main != nil {
		args = append(append(append(args, mainMixArgs(l.Main)...), m4a...), main)
	}
	for i, t := range l.Proxies {
		if i >= len(tracks) {
			break
		}
		if t.graph == "" {
			args = append(args, "-map", "0:a:"+strconv.Itoa(t.Track))
		} else {
			label := "[out" + strconv.Itoa(i) + "]"
			args = append(args, "-filter_complex", strings.TrimSuffix(t.graph, "[out]")+label, "-map", label)
		}
		args = append(append(args, "-c:a", "aac", "-b:a", strconv.Itoa(len(t.Channels)*audioBitsPerChannel), "-ar", "48000"), m4a...)
		args = append(args, tracks[i])
	}
	return args
}

func seq(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}
