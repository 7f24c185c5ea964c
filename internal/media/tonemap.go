package media

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// HDR to SDR: the proxy is SDR BT.709 (what every browser shows the same).
// PQ and HLG are brought to linear light with HDR reference white (BT.2408's
// 203 cd/m²) at 1.0, the SDR's white before the curve, then a Reinhard curve
// with its peak at the content's own brightest (MaxCLL, else the mastering
// display's peak) rolls off what is above it: reference white lands at
// ~81 % of the SDR range, 100 cd/m² at ~68 %, and highlights up to the peak
// stay apart instead of clipping (docs/processing.md, "HDR"). The curve is
// applied to the brightest of R, G, B (ffmpeg's tonemap keeps hue) and
// desaturates above twice reference white.

// Luminances of the tone mapping, in cd/m².
const (
	// RefWhiteNits is HDR reference white (BT.2408): 1.0 in linear light.
	RefWhiteNits = 203
	// DefaultPQPeakNits is a PQ stream's peak when it says none: the
	// brighter of the two common mastering displays (1000 and 4000), so
	// that no highlight of either clips.
	DefaultPQPeakNits = 4000
	// HLGPeakNits is HLG's nominal display peak (BT.2100's reference
	// display): HLG is relative, zimg renders it for this display.
	HLGPeakNits = 1000
)

// Where an HDR stream's peak comes from.
const (
	PeakFromMaxCLL    = "maxCLL"
	PeakFromMastering = "mastering"
	PeakFromHLG       = "hlg"
	PeakFromDefault   = "default"
)

// LightFacts are an HDR stream's light levels as its metadata says them.
type LightFacts struct {
	Transfer string `json:"transfer"`
	// MaxCLL and MaxFALL are the content light levels (cd/m², 0: unsaid).
	MaxCLL  float64 `json:"maxCLL,omitempty"`
	MaxFALL float64 `json:"maxFALL,omitempty"`
	// MasteringMaxNits and MasteringMinNits are the mastering display's.
	MasteringMaxNits float64 `json:"masteringMaxNits,omitempty"`
	MasteringMinNits float64 `json:"masteringMinNits,omitempty"`
	// PeakNits is the peak the curve maps to SDR white; PeakSource says
	// which of the above it is.
	PeakNits   float64 `json:"peakNits"`
	PeakSource string  `json:"peakSource"`
}

// lightOf reads s's light levels from its own side data and frameSideData
// (its first frame's: HEVC carries them in SEI messages, which only a
// decode shows). A level outside 100–10,000 cd/m² is a mistake, not a
// peak, and is ignored.
func lightOf(s *Stream, frameSideData []map[string]any) *LightFacts {
	f := &LightFacts{Transfer: s.ColorTransfer}
	for _, sd := range append(slices.Clone(s.SideData), frameSideData...) {
		switch sd["side_data_type"] {
		case "Content light level metadata":
			if v := number(sd["max_content"]); v > 0 && f.MaxCLL == 0 {
				f.MaxCLL, f.MaxFALL = v, number(sd["max_average"])
			}
		case "Mastering display metadata":
			if v := number(sd["max_luminance"]); v > 0 && f.MasteringMaxNits == 0 {
				f.MasteringMaxNits, f.MasteringMinNits = v, number(sd["min_luminance"])
			}
		}
	}
	plausible := func(n float64) bool { return n >= 100 && n <= 10000 }
	switch {
	case s.ColorTransfer == "arib-std-b67":
		f.PeakNits, f.PeakSource = HLGPeakNits, PeakFromHLG
	case plausible(f.MaxCLL):
		f.PeakNits, f.PeakSource = f.MaxCLL, PeakFromMaxCLL
	case plausible(f.MasteringMaxNits):
		f.PeakNits, f.PeakSource = f.MasteringMaxNits, PeakFromMastering
	default:
		f.PeakNits, f.PeakSource = DefaultPQPeakNits, PeakFromDefault
	}
	return f
}

// number is a side data value: a JSON number or ffprobe's "num/den".
func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		if num, den, ok := ratio(x); ok && den > 0 {
			return float64(num) / float64(den)
		}
		return parseFloat(x)
	}
	return 0
}

// needsFirstFrame reports whether s's light levels are only in its frames:
// a PQ stream whose headers say neither MaxCLL nor a mastering peak (HLG
// needs neither).
func needsFirstFrame(s *Stream) bool {
	if s.ColorTransfer != "smpte2084" {
		return false
	}
	f := lightOf(s, nil)
	return f.PeakSource == PeakFromDefault
}

// FirstFrameArgv is the ffprobe command that reads the side data of video
// stream ordinal's first frame (one decode).
func FirstFrameArgv(in string, ordinal int) []string {
	return []string{"ffprobe", "-v", "error", "-select_streams", "v:" + strconv.Itoa(ordinal),
		"-read_intervals", "%+#1", "-show_frames", "-show_entries", "frame=side_data_list", "-of", "json", "--", in}
}

// parseFirstFrame is the side data of the first frame in ffprobe's answer.
func parseFirstFrame(b []byte) []map[string]any {
	var out struct {
		Frames []struct {
			SideData []map[string]any `json:"side_data_list"`
		} `json:"frames"`
	}
	if json.Unmarshal(b, &out) != nil || len(out.Frames) == 0 {
		return nil
	}
	return out.Frames[0].SideData
}

// Light is the stream's light levels (nil for SDR): as measured, else from
// its headers.
func (s *Stream) Light() *LightFacts {
	if !s.HDR() {
		return nil
	}
	if s.Facts != nil && s.Facts.Light != nil {
		return s.Facts.Light
	}
	return lightOf(s, nil)
}

// toneMap is the filter chain from s's HDR to SDR BT.709 (none for SDR):
// linear light at reference white 1.0, BT.709 primaries, the Reinhard
// curve with the content's peak, then BT.709's transfer in TV range.
func toneMap(s *Stream) []string {
	l := s.Light()
	if l == nil {
		return nil
	}
	peak := math.Max(l.PeakNits/RefWhiteNits, 1)
	return []string{fmt.Sprintf("zscale=t=linear:npl=%d", RefWhiteNits), "format=gbrpf32le", "zscale=p=bt709",
		"tonemap=tonemap=reinhard:desat=2:peak=" + strconv.FormatFloat(peak, 'f', 3, 64),
		"zscale=t=bt709:m=bt709:r=tv"}
}
