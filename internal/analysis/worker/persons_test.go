package worker

import (
	"reflect"
	"testing"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/store"
)

func face(x int, d ...float32) analysis.Face {
	return analysis.Face{Box: analysis.Box{X: x, Y: 10, W: 50, H: 50}, Confidence: 0.9, Descriptor: d}
}

func TestGroupFacesAndRecognise(t *testing.T) {
	const same, step = 0.9, 2000
	ann := []float32{1, 0, 0}
	bob := []float32{0, 1, 0}
	annToo := []float32{0.98, 0.1, 0} // within same of ann
	type want struct {
		name        string
		appearances []store.Appearance
	}
	at := func(start, end int64, x int) store.Appearance {
		return store.Appearance{StartMs: start, EndMs: end, X: x, Y: 10, W: 50, H: 50}
	}
	cases := []struct {
		name          string
		seen          []sighting
		stepMs        int64
		known         []store.PersonFace
		createUnknown bool
		want          []want
		unknown       int
	}{
		{name: "consecutive keyframes make one appearance; a gap another",
			seen: []sighting{{0, face(1, ann...)}, {2000, face(2, annToo...)}, {8000, face(3, ann...)}}, stepMs: step,
			createUnknown: true,
			want:          []want{{"Unknown person 1", []store.Appearance{at(0, 4000, 1), at(8000, 10000, 3)}}}},
		{name: "two faces of one keyframe are two persons, even alike",
			seen: []sighting{{0, face(1, ann...)}, {0, face(2, annToo...)}}, stepMs: step, createUnknown: true,
			want: []want{{"Unknown person 1", []store.Appearance{at(0, 2000, 1)}}, {"Unknown person 2", []store.Appearance{at(0, 2000, 2)}}}},
		{name: "a known face is recognised, the other counted",
			seen:  []sighting{{0, face(1, ann...)}, {0, face(2, bob...)}},
			known: []store.PersonFace{{PersonID: "p-ann", Name: "Ann", Descriptor: annToo}}, stepMs: step,
			want:    []want{{"Ann", []store.Appearance{at(0, 2000, 1)}}},
			unknown: 1},
		{name: "two groups of one known person join",
			seen: []sighting{{0, face(1, 1, 0.3, 0)}, {2000, face(1, 1, -0.3, 0)}}, stepMs: step,
			known: []store.PersonFace{{PersonID: "p-ann", Name: "Ann", Descriptor: ann}},
			want:  []want{{"Ann", []store.Appearance{at(0, 2000, 1), at(2000, 4000, 1)}}}},
		{name: "an image: every face its own, no duration",
			seen: []sighting{{0, face(1, ann...)}, {0, face(2, bob...)}}, stepMs: 0, createUnknown: true,
			want: []want{{"Unknown person 1", []store.Appearance{at(0, 0, 1)}}, {"Unknown person 2", []store.Appearance{at(0, 0, 2)}}}},
		{name: "faces without a descriptor are skipped", seen: []sighting{{0, face(1)}}, stepMs: step, createUnknown: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			persons, unknown := recognise(groupFaces(c.seen, same, c.stepMs), c.known, same, c.createUnknown)
			var got []want
			for _, p := range persons {
				got = append(got, want{p.Name, p.Appearances})
				if len(p.Descriptor) == 0 || p.Confidence != 0.9 {
					t.Errorf("%s: descriptor %v, confidence %v", p.Name, p.Descriptor, p.Confidence)
				}
			}
			if !reflect.DeepEqual(got, c.want) || unknown != c.unknown {
				t.Fatalf("got %+v and %d unknown, want %+v and %d", got, unknown, c.want, c.unknown)
			}
		})
	}
}
