package media_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"

	"github.com/loupe-mam/loupe/internal/media"
)

// lavfi's sine is at 1/8 of full scale.
const sineLevel = 0.125

// levels measures, on each channel of audio stream ordinal of path, the
// amplitude (of full scale) of each frequency: a Goertzel filter over one
// second of the decoded PCM, half a second in (past the encoder's priming).
func levels(t *testing.T, path string, ordinal int, freqs []float64) [][]float64 {
	t.Helper()
	const rate = 48000
	wav, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-i", path, "-map", fmt.Sprintf("0:a:%d", ordinal),
		"-ss", "0.5", "-t", "1", "-ar", fmt.Sprint(rate), "-f", "wav", "-acodec", "pcm_s16le", "-").Output()
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	// The channel count is the fmt chunk's (ffmpeg writes it first); the
	// samples follow the data chunk's header.
	ch := int(binary.LittleEndian.Uint16(wav[22:]))
	at := bytes.Index(wav, []byte("data"))
	if ch < 1 || at < 0 {
		t.Fatalf("decoding %s: not a WAV ffmpeg writes", path)
	}
	out := wav[at+8:]
	n := len(out) / (2 * ch)
	got := make([][]float64, ch)
	for c := range ch {
		for _, f := range freqs {
			coeff := 2 * math.Cos(2*math.Pi*f/rate)
			var s1, s2 float64
			for i := range n {
				x := float64(int16(binary.LittleEndian.Uint16(out[(i*ch+c)*2:]))) / 32768
				s1, s2 = x+coeff*s1-s2, s1
			}
			power := s1*s1 + s2*s2 - coeff*s1*s2
			got[c] = append(got[c], 2*math.Sqrt(math.Max(power, 0))/float64(n))
		}
	}
	return got
}

// tone asserts channel c of got (levels over freqs) carries freq at want ×
// sineLevel (±15 %) and every other frequency below -40 dB of a sine.
func tone(t *testing.T, what string, got [][]float64, freqs []float64, c int, freq, want float64) {
	t.Helper()
	for i, f := range freqs {
		a := got[c][i] / sineLevel
		switch {
		case f == freq && math.Abs(a-want) > 0.15*want:
			t.Errorf("%s channel %d: %v Hz at %.3f of a sine, want %.3f", what, c+1, f, a, want)
		case f != freq && a > 0.01:
			t.Errorf("%s channel %d: %v Hz at %.3f of a sine, want none (carries %v Hz)", what, c+1, f, a, freq)
		}
	}
}

// sines are lavfi inputs: one sine per frequency (0: silence), 2 s.
func sines(freqs ...float64) []string {
	var args []string
	for _, f := range freqs {
		src := fmt.Sprintf("sine=frequency=%v:sample_rate=48000:duration=2", f)
		if f == 0 {
			src = "anullsrc=channel_layout=mono:sample_rate=48000:duration=2"
		}
		args = append(args, "-f", "lavfi", "-i", src)
	}
	return args
}

// joined is a filtergraph putting the inputs, in order, on the channels
// named (a layout of ffmpeg's, in its order).
func joined(layout string, names ...string) string {
	in, m := "", []string{}
	for i, n := range names {
		in += fmt.Sprintf("[%d]", i)
		m = append(m, fmt.Sprintf("%d.0-%s", i, n))
	}
	return fmt.Sprintf("%sjoin=inputs=%d:channel_layout=%s:map=%s", in, len(names), layout, strings.Join(m, "|"))
}

// proxies makes the main proxy and the track proxies of src (audio only,
// as an audio file's run does) and answers their paths.
func proxies(t *testing.T, src string) (main string, tracks []string, l media.AudioLayout) {
	t.Helper()
	dir := t.TempDir()
	l = media.AudioLayoutOf(probe(t, src))
	main = filepath.Join(dir, "proxy.m4a")
	for i := range l.Proxies {
		tracks = append(tracks, filepath.Join(dir, fmt.Sprintf("audio_%d.m4a", i+1)))
	}
	run(t, media.AudioProxiesArgs(src, main, tracks, l), nil)
	return main, tracks, l
}

// Every source channel stays reachable: the main proxy is a proper stereo
// (which tone on which side, at which level), each track proxy carries its
// channels untouched (which tone on which channel).
func TestAudioChannelsKept(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "ffprobe")
	freqs := []float64{60, 300, 500, 700, 900, 1100, 1300}

	// Four discrete channels (ffmpeg names four channels 4.0), the third
	// silent: channels 1 and 2 are the main stereo, pairs 1-2 and 3-4 the
	// track proxies.
	four := lavfi(t, "four.mov", append(sines(300, 500, 0, 900), "-filter_complex", joined("4.0", "FL", "FR", "FC", "BC"), "-c:a", "pcm_s16le")...)
	main, tracks, l := proxies(t, four)
	if l.Main.Rule != media.MixFirstPair || len(tracks) != 2 {
		t.Fatalf("4 channels: %+v", l)
	}
	m := levels(t, main, 0, freqs)
	if len(m) != 2 {
		t.Fatalf("4 channels: main proxy has %d channels", len(m))
	}
	tone(t, "4ch main", m, freqs, 0, 300, 1)
	tone(t, "4ch main", m, freqs, 1, 500, 1)
	for i, want := range [][]float64{{300, 500}, {0, 900}} {
		got := levels(t, tracks[i], 0, freqs)
		if len(got) != 2 || l.Proxies[i].Layout != "stereo" || !slices.Equal(l.Proxies[i].Channels, []int{2 * i, 2*i + 1}) {
			t.Fatalf("4ch proxy %d: %d channels, %+v", i+1, len(got), l.Proxies[i])
		}
		for c, f := range want {
			tone(t, fmt.Sprintf("4ch proxy %d", i+1), got, freqs, c, f, 1)
		}
	}

	// 5.1 (side), a tone per channel (the LFE's a low one): the main proxy
	// is BS.775's downmix without the LFE, normalised; the track proxy is
	// the whole 5.1, every tone on its channel.
	s51 := lavfi(t, "51.mov", append(sines(300, 500, 700, 60, 1100, 1300), "-filter_complex", joined("5.1(side)", "FL", "FR", "FC", "LFE", "SL", "SR"), "-c:a", "pcm_s16le")...)
	main, tracks, l = proxies(t, s51)
	if l.Main.Rule != media.MixDownmix || len(tracks) != 1 || l.Proxies[0].Layout != "5.1" {
		t.Fatalf("5.1: %+v", l)
	}
	m = levels(t, main, 0, freqs)
	front, other := 1/(1+2*0.7071), 0.7071/(1+2*0.7071)
	for c, side := range [][]float64{{300, 700, 1100}, {500, 700, 1300}} {
		for i, f := range freqs {
			want := 0.0
			switch {
			case f == side[0]:
				want = front
			case slices.Contains(side, f):
				want = other
			}
			if a := m[c][i] / sineLevel; math.Abs(a-want) > 0.15*math.Max(want, 0.1) {
				t.Errorf("5.1 main %s: %v Hz at %.3f of a sine, want %.3f", []string{"left", "right"}[c], f, a, want)
			}
		}
	}
	whole := levels(t, tracks[0], 0, freqs)
	if len(whole) != 6 {
		t.Fatalf("5.1 proxy: %d channels", len(whole))
	}
	for c, f := range []float64{300, 500, 700, 60, 1100, 1300} {
		tone(t, "5.1 proxy", whole, freqs, c, f, 1)
	}

	// Three mono tracks in MXF (one a channel, as broadcast MXF has them):
	// tracks 1 and 2 are the main stereo's left and right, track 3 its own
	// mono proxy.
	mxf := lavfi(t, "mono.mxf", append(append([]string{"-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2"}, sines(300, 500, 700)...),
		"-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "mpeg2video", "-c:a", "pcm_s16le", "-f", "mxf")...)
	p := probe(t, mxf)
	args, err := media.ProxyArgs(mxf, filepath.Join(t.TempDir(), "proxy.mp4"), p)
	if err != nil {
		t.Fatal(err)
	}
	webProxy := args[len(args)-1]
	run(t, args, nil)
	m = levels(t, webProxy, 0, freqs)
	if len(m) != 2 {
		t.Fatalf("MXF web proxy: %d channels", len(m))
	}
	tone(t, "MXF main", m, freqs, 0, 300, 1)
	tone(t, "MXF main", m, freqs, 1, 500, 1)
	l = media.AudioLayoutOf(p)
	track3 := filepath.Join(t.TempDir(), "audio_1.m4a")
	run(t, media.AudioProxiesArgs(mxf, "", []string{track3}, l), nil)
	if l.Main.Rule != media.MixPairedMono || len(l.Proxies) != 1 || l.Proxies[0].Track != 2 || l.Proxies[0].Label() != "track 3" {
		t.Fatalf("MXF: %+v", l)
	}
	got := levels(t, track3, 0, freqs)
	if len(got) != 1 {
		t.Fatalf("MXF track 3 proxy: %d channels", len(got))
	}
	tone(t, "MXF track 3", got, freqs, 0, 700, 1)

	// A mono file: on both sides, at its own level.
	mono := lavfi(t, "mono.wav", sines(700)...)
	main, tracks, _ = proxies(t, mono)
	m = levels(t, main, 0, freqs)
	if len(tracks) != 0 || len(m) != 2 {
		t.Fatalf("mono: %d track proxies, %d channels", len(tracks), len(m))
	}
	tone(t, "mono main", m, freqs, 0, 700, 1)
	tone(t, "mono main", m, freqs, 1, 700, 1)
}

// The rules, on what ffprobe says of files not made here: which main mix,
// which proxies.
func TestAudioLayoutRules(t *testing.T) {
	track := func(ch int, layout string) media.Stream {
		return media.Stream{CodecType: "audio", Channels: ch, ChannelLayout: layout}
	}
	cases := []struct {
		name    string
		tracks  []media.Stream
		rule    string
		proxies []string // label/layout
		wave    int
	}{
		{"stereo", []media.Stream{track(2, "stereo")}, media.MixStereo, nil, 2},
		{"stereo and a commentary", []media.Stream{track(2, "stereo"), track(2, "stereo")}, media.MixStereo, []string{"track 2/stereo"}, 2},
		{"mono", []media.Stream{track(1, "mono")}, media.MixMono, nil, 1},
		{"5.1", []media.Stream{track(6, "5.1")}, media.MixDownmix, []string{"track 1/5.1"}, 6},
		{"7.1", []media.Stream{track(8, "7.1")}, media.MixDownmix, []string{"track 1/7.1"}, 8},
		{"7.0 has no AAC layout", []media.Stream{track(7, "7.0")}, media.MixDownmix,
			[]string{"track 1 channels 1-2/stereo", "track 1 channels 3-4/stereo", "track 1 channels 5-6/stereo", "track 1 channel 7/mono"}, 7},
		{"quad", []media.Stream{track(4, "quad")}, media.MixFirstPair,
			[]string{"track 1 channels 1-2/stereo", "track 1 channels 3-4/stereo"}, 4},
		{"6 unnamed channels", []media.Stream{track(6, "")}, media.MixFirstPair,
			[]string{"track 1 channels 1-2/stereo", "track 1 channels 3-4/stereo", "track 1 channels 5-6/stereo"}, 6},
		{"16-channel embed", []media.Stream{track(16, "")}, media.MixFirstPair, []string{
			"track 1 channels 1-2/stereo", "track 1 channels 3-4/stereo", "track 1 channels 5-6/stereo", "track 1 channels 7-8/stereo",
			"track 1 channels 9-10/stereo", "track 1 channels 11-12/stereo", "track 1 channels 13-14/stereo", "track 1 channels 15-16/stereo"}, 16},
		{"24 channels: the waveform keeps 16", []media.Stream{track(24, "")}, media.MixFirstPair, nil, 16},
		{"four mono tracks", []media.Stream{track(1, ""), track(1, ""), track(1, ""), track(1, "")}, media.MixPairedMono,
			[]string{"track 3/mono", "track 4/mono"}, 2},
		{"mono then stereo", []media.Stream{track(1, "mono"), track(2, "stereo")}, media.MixMono, []string{"track 2/stereo"}, 1},
	}
	for _, c := range cases {
		p := &media.Probe{Streams: c.tracks}
		l := media.AudioLayoutOf(p)
		var got []string
		for _, tp := range l.Proxies {
			got = append(got, tp.Label()+"/"+tp.Layout)
		}
		if l.Main.Rule != c.rule || (c.proxies != nil && !slices.Equal(got, c.proxies)) || l.Wave.Channels() != c.wave {
			t.Errorf("%s: rule %s, proxies %q, waveform %d channels; want %s, %q, %d", c.name, l.Main.Rule, got, l.Wave.Channels(),
				c.rule, c.proxies, c.wave)
		}
		// Every source channel is in the main mix as it is or in a proxy.
		reach := map[[2]int]bool{}
		for _, tp := range l.Proxies {
			for _, ch := range tp.Channels {
				reach[[2]int{tp.Track, ch}] = true
			}
		}
		for i, s := range c.tracks {
			for ch := range s.Channels {
				carried := (l.Main.Rule == media.MixStereo || l.Main.Rule == media.MixMono) && i == 0 ||
					l.Main.Rule == media.MixPairedMono && i < 2
				if !carried && !reach[[2]int{i, ch}] {
					t.Errorf("%s: track %d channel %d is reachable nowhere", c.name, i+1, ch+1)
				}
			}
		}
	}
	if l := media.AudioLayoutOf(&media.Probe{}); l.Main != nil || l.Proxies != nil {
		t.Errorf("no audio: %+v", l)
	}
}
