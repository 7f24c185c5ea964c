// Package render renders a sequence — clips of source media, each cut at
// an in and an out frame — into one file of a preset's output profile,
// frame-exact, with one ffmpeg command (docs/render-engine.md). It builds
// the command and reads what ffprobe says of the sources; internal/media
// and internal/tool run the programs. It knows neither items nor the
// store: its callers give it paths or URLs.
package render

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Rational is a frame rate like 30000/1001.
type Rational struct{ Num, Den int }

// String is the rate as ffmpeg and ffprobe write it: "25", "30000/1001".
func (r Rational) String() string {
	r = r.reduced()
	if r.Den == 1 {
		return strconv.Itoa(r.Num)
	}
	return strconv.Itoa(r.Num) + "/" + strconv.Itoa(r.Den)
}

// Float is the rate in frames a second (0 for an invalid rate).
func (r Rational) Float() float64 {
	if r.Num <= 0 || r.Den <= 0 {
		return 0
	}
	return float64(r.Num) / float64(r.Den)
}

func (r Rational) valid() bool { return r.Num > 0 && r.Den > 0 }

func (r Rational) reduced() Rational {
	if !r.valid() {
		return r
	}
	g := gcd(r.Num, r.Den)
	return Rational{r.Num / g, r.Den / g}
}

// rat is r as an exact number.
func (r Rational) rat() *big.Rat { return big.NewRat(int64(r.Num), int64(r.Den)) }

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Video is the output's picture.
type Video struct {
	// Codec: "h264" (libx264), "hevc" (libx265), "prores" (prores_ks),
	// "dnxhr" (dnxhd with a dnxhr_* profile), "mpeg2" (mpeg2video).
	Codec string
	// Profile is the codec's profile: prores proxy|lt|standard|hq|4444;
	// dnxhr lb|sq|hq|hqx|444; h264 baseline|main|high; hevc main; ""
	// the codec's default (prores hq, dnxhr hq, h264 high, hevc main).
	Profile string
	// Width and Height are the output frame size (even): sources are
	// scaled to fit, their display aspect kept, padded black, square
	// pixels.
	Width, Height int
	// FrameRate is the output frame rate; sources are conformed to it.
	FrameRate Rational
	// BitrateKbps is the average video bit rate; 0: the codec's quality
	// default (x264 crf 20, x265 crf 23, mpeg2 about 0.25 bit a pixel).
	// ProRes and DNxHR take their rate from the profile: it must be 0.
	BitrateKbps int
}

// Audio is the output's sound.
type Audio struct {
	// Codec: "aac", "pcm_s16le", "pcm_s24le".
	Codec string
	// SampleRate is 48000 or 44100.
	SampleRate int
	// BitrateKbps is AAC's bit rate; 0: 64 a channel (128 for stereo).
	BitrateKbps int
	// Mapping has a row for each output channel r: [stream, channel,
	// gainDb, flags].
	//   - stream: -1 the row is unused; 0..15 the source's n-th audio
	//     stream (its order among the audio streams);
	//   - channel: 0..63, the channel of that stream;
	//   - gainDb: -96..+24, whole dB applied to it;
	//   - flags: bit 0 (1) mute (the channel is there, silent); bit 1
	//     (2) invert the polarity.
	// The output has as many channels as the last used row's index + 1;
	// unused rows below it are silent, as is a row whose stream or
	// channel a clip's source lacks (never an error). No used row: no
	// audio in the output.
	Mapping [16][4]int
}

// Mapping flags.
const (
	FlagMute   = 1
	FlagInvert = 2
)

// NoMapping is a mapping with no row used; start from it.
func NoMapping() [16][4]int {
	var m [16][4]int
	for r := range m {
		m[r][0] = -1
	}
	return m
}

// Channels is the number of output channels the mapping makes.
func (a *Audio) Channels() int {
	if a == nil {
		return 0
	}
	n := 0
	for r, row := range a.Mapping {
		if row[0] >= 0 {
			n = r + 1
		}
	}
	return n
}

// Profile is an output: the container and its streams.
type Profile struct {
	// Container: "mp4", "mov", "mxf".
	Container string
	// Video is the picture (nil: no video).
	Video *Video
	// Audio is the sound (nil, or no mapping row used: no audio).
	Audio *Audio
	// EditRate is the rate a clip counts its In and Out at when its
	// source has no video and the profile has none either (with video,
	// such a clip counts at Video.FrameRate). Unused otherwise.
	EditRate Rational
}

// hasAudio reports whether the output has sound.
func (p Profile) hasAudio() bool { return p.Audio.Channels() > 0 }

// Limits of a profile.
const (
	MinSide      = 16
	MaxWidth     = 7680
	MaxHeight    = 4320
	MaxFrameRate = 240
)

var (
	containers   = []string{"mp4", "mov", "mxf"}
	videoCodecs  = []string{"h264", "hevc", "prores", "dnxhr", "mpeg2"}
	audioCodecs  = []string{"aac", "pcm_s16le", "pcm_s24le"}
	sampleRates  = []int{48000, 44100}
	codecProfile = map[string][]string{
		"h264":   {"baseline", "main", "high"},
		"hevc":   {"main"},
		"prores": {"proxy", "lt", "standard", "hq", "4444"},
		"dnxhr":  {"lb", "sq", "hq", "hqx", "444"},
		"mpeg2":  {"main"},
	}
)

// Validate checks p's names and ranges; each problem names its field.
// Whether the container takes the codecs is for DryRun to find out.
func Validate(p Profile) error {
	var bad []string
	add := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	if !slices.Contains(containers, p.Container) {
		add("container must be one of %s, not %q", strings.Join(containers, ", "), p.Container)
	}
	if v := p.Video; v != nil {
		if !slices.Contains(videoCodecs, v.Codec) {
			add("video.codec must be one of %s, not %q", strings.Join(videoCodecs, ", "), v.Codec)
		} else if v.Profile != "" && !slices.Contains(codecProfile[v.Codec], v.Profile) {
			add("video.profile of %s must be empty or one of %s, not %q", v.Codec, strings.Join(codecProfile[v.Codec], ", "), v.Profile)
		}
		if v.Width%2 != 0 || v.Width < MinSide || v.Width > MaxWidth {
			add("video.width must be even, %d..%d, not %d", MinSide, MaxWidth, v.Width)
		}
		if v.Height%2 != 0 || v.Height < MinSide || v.Height > MaxHeight {
			add("video.height must be even, %d..%d, not %d", MinSide, MaxHeight, v.Height)
		}
		if msg := checkRate(v.FrameRate); msg != "" {
			add("video.frameRate %s", msg)
		}
		switch {
		case v.BitrateKbps < 0 || v.BitrateKbps > 2_000_000:
			add("video.bitrateKbps must be 0..2000000, not %d", v.BitrateKbps)
		case v.BitrateKbps != 0 && (v.Codec == "prores" || v.Codec == "dnxhr"):
			add("video.bitrateKbps must be 0 for %s: its profile sets the rate", v.Codec)
		}
	}
	if a := p.Audio; a != nil {
		if !slices.Contains(audioCodecs, a.Codec) {
			add("audio.codec must be one of %s, not %q", strings.Join(audioCodecs, ", "), a.Codec)
		}
		if !slices.Contains(sampleRates, a.SampleRate) {
			add("audio.sampleRate must be 48000 or 44100, not %d", a.SampleRate)
		}
		switch {
		case a.BitrateKbps < 0 || a.BitrateKbps > 2048:
			add("audio.bitrateKbps must be 0..2048, not %d", a.BitrateKbps)
		case a.BitrateKbps != 0 && a.Codec != "aac":
			add("audio.bitrateKbps must be 0 for %s", a.Codec)
		}
		for r, row := range a.Mapping {
			stream, ch, gain, flags := row[0], row[1], row[2], row[3]
			if stream == -1 {
				continue
			}
			if stream < 0 || stream > 15 {
				add("audio.mapping[%d] stream must be -1 (unused) or 0..15, not %d", r, stream)
			}
			if ch < 0 || ch > 63 {
				add("audio.mapping[%d] channel must be 0..63, not %d", r, ch)
			}
			if gain < -96 || gain > 24 {
				add("audio.mapping[%d] gainDb must be -96..24, not %d", r, gain)
			}
			if flags&^(FlagMute|FlagInvert) != 0 {
				add("audio.mapping[%d] flags must be 0..3 (1 mute, 2 invert), not %d", r, flags)
			}
		}
	}
	if p.EditRate != (Rational{}) {
		if msg := checkRate(p.EditRate); msg != "" {
			add("editRate %s", msg)
		}
	}
	if p.Video == nil && !p.hasAudio() && len(bad) == 0 {
		add("the profile has neither video nor audio (video is null and no audio.mapping row is used)")
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// checkRate is what is wrong with a frame rate ("" if nothing).
func checkRate(r Rational) string {
	if !r.valid() || r.Num > 1_000_000 || r.Den > 1_000_000 || r.Float() < 1 || r.Float() > MaxFrameRate {
		return fmt.Sprintf("must be num/den, 1..%d frames a second, not %d/%d", MaxFrameRate, r.Num, r.Den)
	}
	return ""
}
