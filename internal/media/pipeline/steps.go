// Package pipeline turns an original into what Loupe serves: it probes the
// file and, by what the streams say, runs the steps of the step table
// (Table) into a work directory — a web proxy, audio proxies, thumbnails, a
// poster, a strip, a waveform, image renditions — checking each output.
// Storage, items and jobs are the caller's (internal/media/worker): this
// package only knows media steps, their order and their progress; ffmpeg's
// arguments and what the tools answer are internal/media's.
package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loupe-mam/loupe/internal/media"
)

// Step is one row of the step table: all there is to know of a step.
type Step struct {
	// Name is how progress names it (progressInfo.step).
	Name string
	// Media are the kinds it applies to (media.KindVideo…).
	Media []string
	// Asked is the name POST /api/v1/process asks for it by ("": it is
	// made whenever its media is, or, with Needs, whenever that step is).
	Asked string
	// Needs names a step whose output it reads: asking for this one makes
	// that one too.
	Needs string
	// First: made by the first phase (the probe's job) from the original,
	// a provisional output shown until the run's set replaces it.
	First bool
	// Lane orders the run: lane 0's steps one after the other, then the
	// steps of the other lanes, each lane in table order, the lanes side
	// by side.
	Lane int
	// Weight is its share of the run's percent.
	Weight float64
	// Verifies: it checks another step's output; its failure is the
	// reason given, whatever else failed.
	Verifies bool
	// Metering is how its outputs count in the tenant's usage.
	Metering Metering
	// Run makes its outputs into w.Dir, reporting its own progress in
	// [0, 1]. Nil for the probe, which the runner does itself.
	Run func(ctx context.Context, w *Work, report func(float64)) ([]Output, error)
	// Bare is the commands it runs, as a shell would run them (the
	// benchmark's reference); nil when it runs none.
	Bare func(w *Work) [][]string
}

// Metering is how a step's outputs count (spec 2.25 operations).
type Metering int

const (
	NotMetered Metering = iota
	// MeteredOutput counts each output.
	MeteredOutput
	// MeteredMediaTime counts each output with the media's duration.
	MeteredMediaTime
)

// Output names: the keys of an item's generated media (store.GeneratedMedia),
// answered as the item's media fields. Thumbnails are the item's position
// thumbnails, kept as rows of their own.
const (
	OutProxy         = "proxy"       // the web proxy (MP4; audio: M4A)
	OutAudioTracks   = "audioTracks" // a video's further audio tracks' proxies
	OutPoster        = "poster"
	OutThumbnails    = "thumbnails"
	OutStrip         = "strip" // the strip's WebVTT map (its sheets are beside it)
	OutWaveform      = "waveform"
	OutWaveformImage = "waveformImage"
	OutPreview       = "preview"
)

// Step names.
const (
	StepProbe = "probe"
	StepProxy = "proxy"
)

var (
	video  = []string{media.KindVideo}
	audio  = []string{media.KindAudio}
	images = []string{media.KindImage}
	// stillsAndOther: an image's probe, and a file's that is not media
	// (its only row).
	stillsAndOther = []string{media.KindImage, media.KindOther}
)

// Table is the step table. Lanes, percentages, the names POST
// /api/v1/process accepts and the benchmark's bare commands derive from
// it; docs/adding-a-step.md says how to add a row.
var Table = []Step{
	// Weights are each step's share of its kind's run, measured
	// (2026-11-28, this 2-core VM; docs/processing.md "Progress"): a 60 s
	// 1080p clip, 5 minutes of stereo audio, a 12 MP PNG. The lanes after
	// a video's proxy run side by side: their weights share the time the
	// longer lane takes.
	{Name: StepProbe, Media: video, Weight: 0.5, Bare: bareProbe},
	{Name: StepProbe, Media: audio, Weight: 1.5, Bare: bareProbe},
	{Name: StepProbe, Media: stillsAndOther, Weight: 30, Bare: bareProbe},

	// Video: the proxy first (the keyframe steps read it), then two lanes
	// at once — steps of a fraction of a second each, mostly on one core.
	{Name: StepProxy, Media: video, Asked: StepProxy, Weight: 95.8, Metering: MeteredMediaTime, Run: makeProxy, Bare: bareProxy},
	{Name: "check", Media: video, Needs: StepProxy, Lane: 1, Weight: 0.3, Verifies: true, Run: checkProxy, Bare: bareCheck},
	{Name: "thumbnails", Media: video, Asked: "thumbnails", Needs: StepProxy, Lane: 1, Weight: 1.5, Run: thumbnails, Bare: bareThumbnails},
	{Name: "audioProxies", Media: video, Asked: StepProxy, Lane: 2, Weight: 0.5, Metering: MeteredMediaTime, Run: audioProxies, Bare: bareAudioProxies},
	{Name: "strip", Media: video, Asked: "strip", Needs: StepProxy, Lane: 2, Weight: 0.8, Run: strip, Bare: bareStrip},
	{Name: "waveform", Media: video, Asked: "waveform", Lane: 2, Weight: 0.6, Run: waveform, Bare: bareWaveform},
	{Name: "poster", Media: video, First: true, Run: earlyPoster},

	// Audio.
	{Name: StepProxy, Media: audio, Asked: StepProxy, Weight: 92, Metering: MeteredMediaTime, Run: audioProxy, Bare: bareAudioProxy},
	{Name: "waveform", Media: audio, Asked: "waveform", Lane: 2, Weight: 6.5, Run: waveform, Bare: bareWaveform},

	// Images: their embedded metadata, then the renditions (the first
	// frame of an animation), then an animation's proxy (nothing for a
	// still: its weight is a still's last few percent at once).
	{Name: "photo", Media: images, Weight: 20, Run: readPhoto},
	{Name: "renditions", Media: images, Weight: 45, Metering: MeteredOutput, Run: renditions},
	{Name: "animation", Media: images, Weight: 5, Metering: MeteredOutput, Run: animationProxy},
}

// Steps are the names a run was asked for (POST /api/v1/process steps).
type Steps map[string]bool

// AllSteps asks for every step: the default.
var AllSteps = func() Steps {
	s := Steps{}
	for _, n := range Names() {
		s[n] = true
	}
	return s
}()

// Names are the names steps are asked for by, in table order.
func Names() []string {
	var names []string
	for _, st := range Table {
		if st.Asked != "" && !slices.Contains(names, st.Asked) {
			names = append(names, st.Asked)
		}
	}
	return names
}

// StepsOf is the steps named (none: all), or an error naming the first
// name that asks for no step.
func StepsOf(names []string) (Steps, error) {
	if len(names) == 0 {
		return AllSteps, nil
	}
	known := Names()
	s := Steps{}
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("%q is not a step (%s)", n, strings.Join(known, ", "))
		}
		s[n] = true
	}
	return s, nil
}

// made is which of the rows of kind a run asked for s makes: those asked
// for (or always made), what they need, and what follows what is made.
func (s Steps) made(rows []*Step) map[*Step]bool {
	made := map[*Step]bool{}
	byName := map[string]*Step{}
	for _, st := range rows {
		byName[st.Name] = st
		if (st.Asked == "" && st.Needs == "") || s[st.Asked] {
			made[st] = true
		}
	}
	for _, st := range rows {
		if made[st] && st.Needs != "" && byName[st.Needs] != nil {
			made[byName[st.Needs]] = true
		}
	}
	for _, st := range rows {
		if st.Asked == "" && st.Needs != "" && made[byName[st.Needs]] {
			made[st] = true
		}
	}
	return made
}

// rowsOf are the table's rows for media kind (first: the first phase's,
// else the run's), in table order.
func rowsOf(kind string, first bool) []*Step {
	var rows []*Step
	for i := range Table {
		if st := &Table[i]; st.First == first && slices.Contains(st.Media, kind) {
			rows = append(rows, st)
		}
	}
	return rows
}
