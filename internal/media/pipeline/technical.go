package pipeline

import (
	"math"
	"strconv"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
)

// Technical is the item's technicalMetadata: what the probe found, in
// Loupe's own shape (docs/processing.md) rather than ffprobe's.
func Technical(p *media.Probe) map[string]any {
	t := map[string]any{
		"container":       p.Format.FormatName,
		"containerName":   p.Format.LongName,
		"durationSeconds": round3(p.Duration()),
		"sizeBytes":       atoi(p.Format.Size),
		"bitRate":         atoi(p.Format.BitRate),
		"kind":            p.Kind(),
	}
	if len(p.Warnings) > 0 {
		// Values ffprobe reported that could not be true, dropped.
		t["warnings"] = p.Warnings
	}
	if tc := timecode(p); tc != "" {
		t["timecode"] = tc
	}
	if tc, ok := p.StartTimecode(); ok {
		// The label of the first frame, its numbering and the frame it
		// names: a client converts a position with them (docs/processing.md).
		v := p.Video()
		t["startTimecode"] = map[string]any{"timecode": tc.String(), "dropFrame": tc.DropFrame,
			"frameRate": v.RFrameRate, "nominalRate": tc.Nominal, "frameNumber": tc.FrameNumber()}
	}
	if v := p.Video(); v != nil {
		dw, dh := v.DisplaySize()
		t["video"] = map[string]any{
			"codec": v.CodecName, "profile": v.Profile, "width": v.Width, "height": v.Height,
			"displayWidth": dw, "displayHeight": dh, "frameRate": round3(v.FrameRate()), "variableFrameRate": v.VFR(),
			"rotation": v.Rotation(), "pixelFormat": v.PixFmt, "colorSpace": v.ColorSpace,
			"colorTransfer": v.ColorTransfer, "colorPrimaries": v.ColorPrims, "colorRange": v.ColorRange, "hdr": v.HDR(),
			"bitRate": atoi(v.BitRate),
		}
		videoFacts(t["video"].(map[string]any), v)
	} else if p.Kind() == media.KindImage && len(p.Streams) > 0 {
		s := p.Streams[0]
		t["image"] = map[string]any{"codec": s.CodecName, "width": s.Width, "height": s.Height, "pixelFormat": s.PixFmt}
	}
	audio := []map[string]any{}
	for _, a := range p.AudioStreams() {
		audio = append(audio, map[string]any{"codec": a.CodecName, "channels": a.Channels,
			"channelLayout": a.ChannelLayout, "sampleRate": atoi(a.SampleRate), "language": a.Tags["language"],
			"bitRate": atoi(a.BitRate)})
	}
	t["audio"] = audio
	return t
}

// videoFacts adds what was measured of v (or its headers say, where it was
// not measured) to its technical metadata: field order and how it was
// found; the frame rates of its sections and the proxy's; HDR light
// levels and the peak the tone mapping used.
func videoFacts(m map[string]any, v *media.Stream) {
	scan := v.Scan()
	m["fieldOrder"], m["fieldOrderSource"], m["interlaced"] = scan.FieldOrder, scan.Source, scan.Interlaced()
	if scan.Idet != nil {
		m["idet"] = scan.Idet
	}
	r := v.Rates()
	m["frameRateNominal"], m["proxyFrameRate"], m["frameRateSource"] = r.Nominal, r.Proxy, r.Source
	if r.Source == "timestamps" {
		m["variableFrameRate"] = r.Variable
		m["frameRateDominant"], m["frameRateSlowest"], m["frameRateFastest"] = round3(r.Dominant), round3(r.Slowest), round3(r.Fastest)
		m["frameRateSections"] = r.Sections
	}
	if l := v.Light(); l != nil {
		m["hdrPeakNits"], m["hdrPeakSource"] = l.PeakNits, l.PeakSource
		if l.MaxCLL > 0 {
			m["maxCLL"], m["maxFALL"] = l.MaxCLL, l.MaxFALL
		}
		if l.MasteringMaxNits > 0 {
			m["masteringMaxNits"], m["masteringMinNits"] = l.MasteringMaxNits, l.MasteringMinNits
		}
	}
}

// audioMade says what the run's audio outputs hold (docs/processing.md,
// "Audio channels"): audioMix, how the main proxy's stereo was made;
// audioProxies, what each of proxyAudioTrackUrls holds, in its order;
// waveformChannels, what each channel of the waveform is. Each only when
// the run made that output.
func audioMade(t map[string]any, r *Result) {
	l := media.AudioLayoutOf(r.Probe)
	if l.Main == nil {
		return
	}
	made := map[string]bool{}
	for _, o := range r.Outputs {
		made[o.Key] = true
	}
	if made[OutProxy] {
		t["audioMix"] = map[string]any{"rule": l.Main.Rule, "tracks": l.Main.Tracks, "left": l.Main.Left, "right": l.Main.Right}
	}
	if made[OutAudioTracks] {
		proxies := []map[string]any{}
		for _, tp := range l.Proxies {
			proxies = append(proxies, map[string]any{"track": tp.Track, "channels": tp.Channels, "layout": tp.Layout,
				"sourceLayout": tp.SourceLayout, "label": tp.Label()})
		}
		t["audioProxies"] = proxies
	}
	if made[OutWaveform] {
		t["waveformChannels"] = l.Wave.Labels
	}
}

// Technical adds an image's embedded metadata to its technicalMetadata (under
// "photo"; "photoError" when it was unreadable).
func (r *Result) Technical() map[string]any {
	t := Technical(r.Probe)
	audioMade(t, r)
	if r.Photo != nil {
		t["photo"] = r.Photo
	}
	if r.PhotoError != "" {
		t["photoError"] = r.PhotoError
	}
	if r.NotMedia != nil {
		t["detectedType"], t["description"] = r.NotMedia.Type, r.NotMedia.Description
	}
	return t
}

// Where is where the media was recorded: an image's GPS, else a video's
// ISO 6709 location (nil when neither says).
func (r *Result) Where() *media.GeoPoint {
	if r.Photo != nil && r.Photo.Where != nil {
		return r.Photo.Where
	}
	return r.Probe.Where()
}

// CreatedOn is when the media was recorded: an image's DateTimeOriginal,
// else the container's creation time.
func (r *Result) CreatedOn() *time.Time {
	if r.Photo != nil && r.Photo.TakenOn != nil {
		return r.Photo.TakenOn
	}
	return CreatedOn(r.Probe)
}

// FrameCount is the video's frame count: the stream's own, else duration ×
// rate (0 without video).
func FrameCount(p *media.Probe) int64 {
	v := p.Video()
	if v == nil {
		return 0
	}
	if n := atoi(v.NbFrames); n > 0 {
		return n
	}
	return int64(math.Round(p.Duration() * v.FrameRate()))
}

// CreatedOn is when the media was recorded, from the container's or a
// stream's creation_time (nil when none is given).
func CreatedOn(p *media.Probe) *time.Time {
	tags := []map[string]string{p.Format.Tags}
	for _, s := range p.Streams {
		tags = append(tags, s.Tags)
	}
	for _, tg := range tags {
		if v := tg["creation_time"]; v != "" {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.Year() > 1970 {
				return &t
			}
		}
	}
	return nil
}

// timecode is the start timecode (a tmcd track's or the container's tag).
func timecode(p *media.Probe) string {
	if tc := p.Format.Tags["timecode"]; tc != "" {
		return tc
	}
	for _, s := range p.Streams {
		if tc := s.Tags["timecode"]; tc != "" {
			return tc
		}
	}
	return ""
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
