package media

import "context"

// PeaksOfLavfi is Peaks of a mono lavfi source (graph) of duration
// seconds: a long input without a long file.
func PeaksOfLavfi(ctx context.Context, graph string, duration float64) (*Waveform, error) {
	p := &Probe{Streams: []Stream{{CodecType: "audio", Channels: 1, ChannelLayout: "mono"}}}
	return peaks(ctx, []string{"-f", "lavfi", "-i", graph}, AudioLayoutOf(p).Wave, duration)
}
