package media

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/loupe-mam/loupe/internal/tool"
)

// Waveform is an audio track's peaks in the JSON format of BBC's
// audiowaveform, which players such as peaks.js and wavesurfer draw: for
// each pixel, the lowest and highest sample of its samples, in Bits.
type Waveform struct {
	Version         int     `json:"version"`
	Channels        int     `json:"channels"`
	SampleRate      int     `json:"sample_rate"`
	SamplesPerPixel int     `json:"samples_per_pixel"`
	Bits            int     `json:"bits"`
	Length          int     `json:"length"`
	Data            []int8  `json:"data"`
	Duration        float64 `json:"duration"`
}

// Waveform sampling: 8 kHz mono is plenty for a drawing; at least 100
// pixels a second, at most MaxWaveformPixels pixels (a 3-hour file stays a
// small JSON).
const (
	waveformRate      = 8000
	MaxWaveformPixels = 20000
)

// Peaks decodes audio stream ordinal of in and answers its waveform
// (duration: the probe's, to choose the resolution).
func Peaks(ctx context.Context, in string, ordinal int, duration float64) (*Waveform, error) {
	spp := waveformRate / 100
	if px := duration * 100; px > MaxWaveformPixels {
		spp = int(math.Ceil(duration * waveformRate / MaxWaveformPixels))
	}
	p, err := tool.Start(ctx, tool.Cmd{Program: "ffmpeg", Args: append([]string{"-nostdin", "-hide_banner", "-loglevel", "error"},
		PeaksArgs(in, ordinal, "pipe:1")...)})
	if err != nil {
		return nil, err
	}
	w := &Waveform{Version: 2, Channels: 1, SampleRate: waveformRate, SamplesPerPixel: spp, Bits: 8, Data: []int8{}}
	r := bufio.NewReaderSize(p.Stdout, 64<<10)
	var lo, hi int16 = math.MaxInt16, math.MinInt16
	n, samples := 0, 0
	buf := make([]byte, 2)
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				p.Wait() //nolint:errcheck // the read error is the answer
				return nil, err
			}
			break
		}
		s := int16(binary.LittleEndian.Uint16(buf))
		lo, hi = min(lo, s), max(hi, s)
		n++
		samples++
		if n == spp {
			w.Data = append(w.Data, int8(lo>>8), int8(hi>>8))
			lo, hi, n = math.MaxInt16, math.MinInt16, 0
		}
	}
	if n > 0 {
		w.Data = append(w.Data, int8(lo>>8), int8(hi>>8))
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	w.Length = len(w.Data) / 2
	w.Duration = float64(samples) / waveformRate
	return w, nil
}

// PeaksArgs are ffmpeg's arguments for the samples Peaks reads: audio
// stream ordinal of in as 8 kHz mono 16-bit PCM, written to out.
func PeaksArgs(in string, ordinal int, out string) []string {
	return []string{"-i", in, "-map", "0:a:" + strconv.Itoa(ordinal), "-vn", "-ac", "1", "-ar", strconv.Itoa(waveformRate),
		"-f", "s16le", "-acodec", "pcm_s16le", out}
}

// WaveformImageArgs are ffmpeg's arguments for a PNG drawing of audio
// stream ordinal's waveform.
func WaveformImageArgs(in, out string, ordinal int) []string {
	return []string{"-i", in,
		"-filter_complex", "[0:a:" + strconv.Itoa(ordinal) + "]aformat=channel_layouts=mono,showwavespic=s=1800x280:colors=#3a7bd5",
		"-frames:v", "1", "-f", "image2", out}
}
