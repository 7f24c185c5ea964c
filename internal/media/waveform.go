package media

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"

	"github.com/loupe-mam/loupe/internal/tool"
)

// Waveform is the main programme's peaks in the JSON format of BBC's
// audiowaveform (version 2), which players such as peaks.js and wavesurfer
// draw: for each pixel and each channel in turn, the lowest and highest
// sample of its samples, in Bits (ch0 min, ch0 max, ch1 min, ch1 max, …).
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

// Waveform sampling: 8 kHz is plenty for a drawing; at least 100 pixels a
// second, at most MaxWaveformPixels pixels (a 3-hour file stays a small
// JSON).
const (
	waveformRate      = 8000
	MaxWaveformPixels = 20000
)

// The waveform picture: one lane per channel, top to bottom.
const (
	WaveformImageWidth  = 1800
	WaveformImageHeight = 280
)

// waveformColour is the picture's ink (on transparent).
var waveformColour = color.NRGBA{R: 0x3a, G: 0x7b, B: 0xd5, A: 0xff}

// Peaks decodes the main programme's source channels of in (p: its probe;
// AudioLayoutOf says which) and answers their waveform. Memory stays
// constant whatever the duration: the samples stream through a pipe and
// only the pixels are kept (at most MaxWaveformPixels per channel).
func Peaks(ctx context.Context, in string, p *Probe) (*Waveform, error) {
	src := AudioLayoutOf(p).Wave
	if src.Channels() == 0 {
		return nil, ErrNoStreams
	}
	return peaks(ctx, []string{"-i", in}, src, p.Duration())
}

// PeaksArgs are ffmpeg's arguments for the samples Peaks reads of in: the
// waveform's channels as 8 kHz 16-bit PCM, interleaved, written to out.
func PeaksArgs(in string, p *Probe, out string) []string {
	return peaksArgs([]string{"-i", in}, AudioLayoutOf(p).Wave, out)
}

func peaksArgs(input []string, src WaveSource, out string) []string {
	return append(input, "-filter_complex", src.graph, "-map", "[wave]", "-vn",
		"-f", "s16le", "-acodec", "pcm_s16le", out)
}

// peaks runs ffmpeg on input (its input arguments) for src's channels and
// folds the samples into pixels as they come.
func peaks(ctx context.Context, input []string, src WaveSource, duration float64) (*Waveform, error) {
	spp := waveformRate / 100
	if px := duration * 100; px > MaxWaveformPixels {
		spp = int(math.Ceil(duration * waveformRate / MaxWaveformPixels))
	}
	proc, err := tool.Start(ctx, tool.Cmd{Program: "ffmpeg", Args: append([]string{"-nostdin", "-hide_banner", "-loglevel", "error"},
		peaksArgs(input, src, "pipe:1")...)})
	if err != nil {
		return nil, err
	}
	ch := src.Channels()
	f := newPeakFolder(ch, spp)
	samples, err := f.read(proc.Stdout)
	if err != nil {
		proc.Wait() //nolint:errcheck // the read error is the answer
		return nil, err
	}
	if err := proc.Wait(); err != nil {
		return nil, err
	}
	return &Waveform{Version: 2, Channels: ch, SampleRate: waveformRate, SamplesPerPixel: spp, Bits: 8,
		Data: f.data, Length: len(f.data) / (2 * ch), Duration: float64(samples) / waveformRate}, nil
}

// peakFolder folds interleaved 16-bit frames into each channel's lowest
// and highest sample per pixel of spp frames.
type peakFolder struct {
	ch, spp int
	data    []int8
}

func newPeakFolder(ch, spp int) *peakFolder {
	return &peakFolder{ch: min(ch, maxWaveformChannels), spp: spp, data: []int8{}}
}

// read folds all of r and answers the frames read. The running pixel is
// kept in local arrays: the loop runs once a sample (288 million for 10
// hours), so it touches no shared memory but the bytes read.
func (f *peakFolder) read(r io.Reader) (frames int64, err error) {
	ch, spp := f.ch, f.spp
	frame := 2 * ch
	buf := make([]byte, frame*16384)
	var lo, hi [maxWaveformChannels]int16
	reset := func() {
		for c := range ch {
			lo[c], hi[c] = math.MaxInt16, math.MinInt16
		}
	}
	flush := func() {
		for c := range ch {
			f.data = append(f.data, int8(lo[c]>>8), int8(hi[c]>>8))
		}
		reset()
	}
	reset()
	n := 0 // frames in the pixel so far
	for {
		got, rerr := io.ReadFull(r, buf)
		got -= got % frame // a torn last frame is dropped
		for i := 0; i < got; i += frame {
			for c := range ch {
				s := int16(uint16(buf[i+2*c]) | uint16(buf[i+2*c+1])<<8)
				lo[c], hi[c] = min(lo[c], s), max(hi[c], s)
			}
			if n++; n == spp {
				flush()
				n = 0
			}
		}
		frames += int64(got / frame)
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return frames, rerr
		}
	}
	if n > 0 {
		flush()
	}
	return frames, nil
}

// DrawWaveform writes w as a PNG of width × height to out: one lane per
// channel, top to bottom, each pixel column the span of the peaks it covers
// (a silent stretch a one-pixel line). It reads only w: the picture costs
// its own pixels, not the audio's length.
func DrawWaveform(w *Waveform, out string, width, height int) error {
	if w.Channels < 1 || w.Length < 1 {
		return fmt.Errorf("waveform: nothing to draw (%d channels, %d pixels)", w.Channels, w.Length)
	}
	img := image.NewNRGBA(image.Rect(0, 0, width, height))
	lane := height / w.Channels
	for c := range w.Channels {
		top := c * lane
		mid, half := top+lane/2, max(lane/2-1, 1)
		for x := range width {
			from := x * w.Length / width
			to := max((x+1)*w.Length/width, from+1)
			lo, hi := int8(math.MaxInt8), int8(math.MinInt8)
			for px := from; px < to && px < w.Length; px++ {
				i := (px*w.Channels + c) * 2
				lo, hi = min(lo, w.Data[i]), max(hi, w.Data[i+1])
			}
			yTop := mid - int(hi)*half/128
			yBottom := mid - int(lo)*half/128
			for y := min(yTop, mid); y <= max(yBottom, mid); y++ {
				if y >= top && y < top+lane {
					img.SetNRGBA(x, y, waveformColour)
				}
			}
		}
	}
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := png.Encode(file, img); err != nil {
		file.Close() //nolint:errcheck // the encode error is the answer
		return err
	}
	return file.Close()
}
