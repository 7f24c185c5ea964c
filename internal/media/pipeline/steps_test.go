package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/media"
)

// What a run makes follows from the rows: asked, needed, following.
func TestStepsMade(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		asked []string
		want  []string // nil: every row of the kind
	}{
		{media.KindVideo, nil, nil},
		// Thumbnails read the proxy: it is made (and checked) for them,
		// but not the audio proxies, which only "proxy" asks for.
		{media.KindVideo, []string{"thumbnails"}, []string{"probe", "proxy", "check", "thumbnails"}},
		{media.KindVideo, []string{"waveform"}, []string{"probe", "waveform"}},
		{media.KindAudio, []string{"thumbnails"}, []string{"probe"}},
		{media.KindAudio, nil, nil},
		// A still's renditions are made whatever is asked.
		{media.KindImage, []string{"strip"}, []string{"probe", "photo", "renditions", "animation"}},
	} {
		steps, err := StepsOf(tc.asked)
		if err != nil {
			t.Fatal(err)
		}
		rows := rowsOf(tc.kind, false)
		made := steps.made(rows)
		var got, all []string
		for _, st := range rows {
			all = append(all, st.Name)
			if made[st] {
				got = append(got, st.Name)
			}
		}
		if tc.want == nil {
			tc.want = all
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s asked %v: made %v, want %v", tc.kind, tc.asked, got, tc.want)
		}
	}
}

// Every kind's run shares its percent by the weights (the runner scales
// them to 100): the probe first, and a video's proxy nearly all of it, as
// measured.
func TestWeights(t *testing.T) {
	for _, kind := range []string{media.KindVideo, media.KindAudio, media.KindImage} {
		rows := rowsOf(kind, false)
		var sum float64
		for _, st := range rows {
			if st.Weight < 0 {
				t.Errorf("%s: step %s weighs %v", kind, st.Name, st.Weight)
			}
			sum += st.Weight
		}
		if sum <= 0 || rows[0].Name != StepProbe {
			t.Errorf("%s: weights add up to %v, first row %s", kind, sum, rows[0].Name)
		}
		if kind == media.KindVideo && rows[1].Weight/sum < 0.75 {
			t.Errorf("a video's proxy weighs %v of %v", rows[1].Weight, sum)
		}
	}
	for _, st := range Table {
		if st.Run == nil && st.Name != StepProbe {
			t.Errorf("step %s runs nothing", st.Name)
		}
	}
}

func TestStepsOf(t *testing.T) {
	// The error names the steps there are.
	if _, err := StepsOf([]string{"proxy", "x"}); err == nil ||
		err.Error() != `"x" is not a step (`+strings.Join(Names(), ", ")+")" {
		t.Errorf("unknown step: %v", err)
	}
	s, err := StepsOf([]string{"strip"})
	if err != nil || !s["strip"] || s[StepProxy] || len(s) != 1 {
		t.Errorf("strip: %v %v", s, err)
	}
	if all, _ := StepsOf(nil); len(all) != len(Names()) {
		t.Errorf("none asked: %v", all)
	}
}
