package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loupe-mam/loupe/internal/media"
)

// audioProxy is an audio file's proxies: the main stereo (AAC in M4A) and,
// in the same run, the proxies of the tracks or channels it does not carry
// as they are (media.AudioLayoutOf).
func audioProxy(ctx context.Context, w *Work, report func(float64)) ([]Output, error) {
	out := filepath.Join(w.Dir, "proxy.m4a")
	l := media.AudioLayoutOf(w.Probe)
	tracks := trackProxyPaths(w, l)
	if err := timed(ctx, media.AudioProxiesArgs(w.Input, out, tracks, l), w.Duration, report); err != nil {
		return nil, fmt.Errorf("the audio proxy could not be made: %w", err)
	}
	return append([]Output{{Key: OutProxy, Path: out, Name: "proxy.m4a", ContentType: "audio/mp4"}},
		trackProxyOutputs(tracks)...), nil
}

// trackProxyPaths are where the track proxies of l are made: audio_1.m4a,
// audio_2.m4a, … in l.Proxies' order (technicalMetadata.audioProxies).
func trackProxyPaths(w *Work, l media.AudioLayout) []string {
	paths := make([]string, len(l.Proxies))
	for i := range l.Proxies {
		paths[i] = filepath.Join(w.Dir, fmt.Sprintf("audio_%d.m4a", i+1))
	}
	return paths
}

func trackProxyOutputs(paths []string) []Output {
	var outs []Output
	for _, p := range paths {
		outs = append(outs, Output{Key: OutAudioTracks, Many: true, Path: p, Name: filepath.Base(p), ContentType: "audio/mp4"})
	}
	return outs
}

// waveform makes the main programme's peaks, a channel each (JSON), and
// draws its picture from them (PNG); a video without audio has none.
func waveform(ctx context.Context, w *Work, _ func(float64)) ([]Output, error) {
	if w.Probe.Audio() == nil {
		return nil, nil
	}
	peaks, err := media.Peaks(ctx, w.Input, w.Probe)
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
	if err := media.DrawWaveform(peaks, png, media.WaveformImageWidth, media.WaveformImageHeight); err != nil {
		return nil, fmt.Errorf("the waveform image could not be made: %w", err)
	}
	return []Output{
		{Key: OutWaveform, Path: path, Name: "waveform.json", ContentType: "application/json"},
		{Key: OutWaveformImage, Path: png, Name: "waveform.png", ContentType: "image/png",
			Width: media.WaveformImageWidth, Height: media.WaveformImageHeight},
	}, nil
}
