package media

import (
	"math"
	"testing"
)

// The decisions behind the measured facts, on made-up measurements.

func TestFieldOrderVerdict(t *testing.T) {
	for _, c := range []struct {
		name   string
		flag   string
		idet   *IdetCounts
		height int
		want   string
		source string
	}{
		{"flag tt, no idet", "tt", nil, 1080, FieldTFF, ScanByFlag},
		{"flag bt shows top first", "bt", nil, 1080, FieldTFF, ScanByFlag},
		{"flag tb shows bottom first", "tb", nil, 576, FieldBFF, ScanByFlag},
		{"idet beats a progressive flag", "progressive", &IdetCounts{TFF: 110, Progressive: 10}, 1080, FieldTFF, ScanByIdet},
		{"idet finds PsF flagged tt", "tt", &IdetCounts{Progressive: 118, TFF: 2}, 1080, FieldProgressive, ScanByIdet},
		{"bff", "", &IdetCounts{BFF: 90, TFF: 5, Progressive: 25}, 576, FieldBFF, ScanByIdet},
		{"combing in both orders: the flag", "progressive", &IdetCounts{TFF: 38, BFF: 25, Progressive: 12}, 576, FieldProgressive, ScanByFlag},
		{"static picture: the flag", "bb", &IdetCounts{Progressive: 5, Undetermined: 115}, 576, FieldBFF, ScanByFlag},
		{"no flag, static, SD: unknown", "", &IdetCounts{Undetermined: 120}, 576, FieldUnknown, ScanByFlag},
		{"no flag, 4K: progressive by format", "", nil, 2160, FieldProgressive, ScanByFormat},
		{"no flag, 720p: progressive by format", "unknown", nil, 720, FieldProgressive, ScanByFormat},
	} {
		s := &Stream{FieldOrder: c.flag, Width: c.height * 16 / 9, Height: c.height, AvgFrameRate: "25/1"}
		f := scanOf(s, c.idet)
		if f.FieldOrder != c.want || f.Source != c.source {
			t.Errorf("%s: %s by %s, want %s by %s", c.name, f.FieldOrder, f.Source, c.want, c.source)
		}
	}
	if mayBeInterlaced(&Stream{Width: 1920, Height: 1080, AvgFrameRate: "50/1"}) {
		t.Error("1080p50 got idet: interlaced video has at most 30 frames a second")
	}
}

// ts are presentation times of sections of frames at the given rates and
// lengths, rounded to a timebase (0: exact).
func ts(tb float64, sections ...[2]float64) []float64 {
	var out []float64
	at := 0.0
	for _, s := range sections {
		n := int(math.Round(s[0] * s[1]))
		for i := range n {
			out = append(out, at+float64(i)/s[0])
		}
		at += float64(n) / s[0]
	}
	if tb > 0 {
		for i := range out {
			out[i] = math.Round(out[i]/tb) * tb
		}
	}
	return out
}

func TestProxyRateFromSections(t *testing.T) {
	ntsc := 30000.0 / 1001
	with := func(pts []float64, edit func([]float64) []float64) []float64 { return edit(pts) }
	for _, c := range []struct {
		name     string
		pts      []float64
		want     string
		variable bool
		slowest  float64
	}{
		{"24/60/12, ms timebase", ts(0.001, [2]float64{24, 1}, [2]float64{60, 1}, [2]float64{12, 1}), "30", true, 12},
		{"24 then 12", ts(0, [2]float64{24, 2}, [2]float64{12, 2}), "24", true, 12},
		{"50 then 25: halved 50 meets 25", ts(0, [2]float64{50, 2}, [2]float64{25, 2}), "25", true, 25},
		{"50 then 29.97: never below a section", ts(0, [2]float64{50, 2}, [2]float64{ntsc, 2}), "30000/1001", true, 29.97},
		{"120 fps phone slow motion", ts(1.0/90000, [2]float64{120, 2}), "30", false, 120},
		{"100 fps", ts(0, [2]float64{100, 2}), "25", false, 100},
		{"59.94 CFR, 1/90000", ts(1.0/90000, [2]float64{60000.0 / 1001, 3}), "30000/1001", false, 59.94},
		{"23.976 CFR, ms", ts(0.001, [2]float64{24000.0 / 1001, 3}), "24000/1001", false, 23.976},
		{"one dropped frame is no section", with(ts(0, [2]float64{25, 3}), func(p []float64) []float64 {
			return append(p[:40:40], p[41:]...)
		}), "25", false, 25},
		{"2:3 cadence (24 in 30 with drops) averages 24", with(ts(0, [2]float64{30, 3}), func(p []float64) []float64 {
			var out []float64
			for i, v := range p {
				if i%5 != 4 {
					out = append(out, v)
				}
			}
			return out
		}), "24", true, 0},
		{"12.5 fps rounds up", ts(0, [2]float64{12.5, 2}), "13", false, 12.5},
	} {
		f := rateFacts(&Stream{RFrameRate: "25/1", AvgFrameRate: "25/1"}, c.pts)
		if f.Proxy != c.want || f.Variable != c.variable || math.Abs(f.Slowest-c.slowest) > 0.01 {
			t.Errorf("%s: proxy %s variable %v slowest %v (sections %+v), want %s %v %v",
				c.name, f.Proxy, f.Variable, f.Slowest, f.Sections, c.want, c.variable, c.slowest)
		}
	}
	// Windows of a long file: the gaps between them are not sections.
	long := append(ts(0, [2]float64{25, 5}), ts(0, [2]float64{25, 5})...)
	for i := 125; i < len(long); i++ {
		long[i] += 600
	}
	if f := rateFacts(&Stream{}, long); f.Proxy != "25" || f.Variable || len(f.Sections) != 2 || f.SampledSeconds > 10 {
		t.Errorf("windows: %+v", f)
	}
	// Without timestamps, the headers' rate under the cap.
	for rate, want := range map[string]string{"25/1": "25", "50/1": "25", "60000/1001": "30000/1001", "120/1": "30",
		"48/1": "24", "40/1": "30", "0/0": "25"} {
		if got := rateFacts(&Stream{AvgFrameRate: rate}, nil).Proxy; got != want {
			t.Errorf("headers %s: %s, want %s", rate, got, want)
		}
	}
}

func TestHDRPeak(t *testing.T) {
	cll := map[string]any{"side_data_type": "Content light level metadata", "max_content": 1000.0, "max_average": 400.0}
	master := map[string]any{"side_data_type": "Mastering display metadata", "max_luminance": "40000000/10000", "min_luminance": "50/10000"}
	zero := map[string]any{"side_data_type": "Content light level metadata", "max_content": 0.0}
	for _, c := range []struct {
		name   string
		trc    string
		stream []map[string]any
		frame  []map[string]any
		peak   float64
		source string
	}{
		{"MaxCLL first", "smpte2084", []map[string]any{master}, []map[string]any{cll}, 1000, PeakFromMaxCLL},
		{"mastering peak", "smpte2084", nil, []map[string]any{master}, 4000, PeakFromMastering},
		{"MaxCLL 0 is unsaid", "smpte2084", []map[string]any{zero}, nil, DefaultPQPeakNits, PeakFromDefault},
		{"HLG is relative", "arib-std-b67", []map[string]any{cll}, nil, HLGPeakNits, PeakFromHLG},
	} {
		l := lightOf(&Stream{ColorTransfer: c.trc, SideData: c.stream}, c.frame)
		if l.PeakNits != c.peak || l.PeakSource != c.source {
			t.Errorf("%s: %v from %s, want %v from %s", c.name, l.PeakNits, l.PeakSource, c.peak, c.source)
		}
	}
	if needsFirstFrame(&Stream{ColorTransfer: "smpte2084", SideData: []map[string]any{cll}}) ||
		!needsFirstFrame(&Stream{ColorTransfer: "smpte2084"}) || needsFirstFrame(&Stream{ColorTransfer: "arib-std-b67"}) {
		t.Error("the first frame is read only for PQ whose headers name no peak")
	}
}
