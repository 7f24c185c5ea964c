package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loupe-mam/loupe/internal/media"
)

// audioProxy is an audio file's proxy: AAC in M4A.
func audioProxy(ctx context.Context, w *Work, report func(float64)) ([]Output, error) {
	out := filepath.Join(w.Dir, "proxy.m4a")
	if err := timed(ctx, media.AudioProxyArgs(w.Input, out, 0), w.Duration, report); err != nil {
		return nil, fmt.Errorf("the audio proxy could not be made: %w", err)
	}
	return []Output{{Key: OutProxy, Path: out, Name: "proxy.m4a", ContentType: "audio/mp4"}}, nil
}

// waveform makes the first audio track's peaks (JSON) and picture (PNG); a
// video without audio has none.
func waveform(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	if w.Probe.Audio() == nil {
		return nil, nil
	}
	peaks, err := media.Peaks(ctx, w.Input, 0, w.Duration)
	if err != nil {
		return nil, fmt.Errorf("the waveform could not be made: %w", err)
	}
	b, err := json.Marshal(peaks)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(w.Dir, "waveform.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, err
	}
	png := filepath.Join(w.Dir, "waveform.png")
	if err := media.Run(ctx, media.Command{Args: media.WaveformImageArgs(w.Input, png, 0)}); err != nil {
		return nil, fmt.Errorf("the waveform image could not be made: %w", err)
	}
	return []Output{
		{Key: OutWaveform, Path: path, Name: "waveform.json", ContentType: "application/json"},
		{Key: OutWaveformImage, Path: png, Name: "waveform.png", ContentType: "image/png", Width: 1800, Height: 280},
	}, nil
}
