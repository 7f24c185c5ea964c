package worker

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// Person detection finds faces in the item's keyframes (a video's every
// media.KeyframeSeconds, an image's preview), groups the faces of one
// person (descriptors within the engine's SamePersonSimilarity), recognises
// the groups among the tenant's persons by the faces they are known by
// (store.PersonFaces), creates persons for the others when the item asks
// (createUnknownPersons), and writes the item's detectedPersons
// (store.SaveDetectedPersons). docs/analysis.md.

// personFrameBatch is how many keyframes go to the engine at once: a
// request to one of its kept helpers (a fraction of a second a frame,
// docs/performance.md), the progress written between two.
const personFrameBatch = 25

func (r *run) detectPersons(ctx context.Context) error {
	const kind = jobs.AnalyzePersonDetection
	engine := r.w.Engines.Faces
	if engine == nil {
		return &kindError{state: store.AnalysisNotConfigured, reason: "no face detection engine on this server (python3-opencv, opencv-data)"}
	}
	started := time.Now()
	cfg, err := r.config(ctx)
	if err != nil {
		return err
	}
	if err := r.claim(ctx, kind, engine.Name(), nil); err != nil {
		return err
	}
	frames, step, err := r.keyframes(ctx)
	if err != nil {
		return err
	}
	var seen []sighting
	for i := 0; i < len(frames); i += personFrameBatch {
		batch := frames[i:min(i+personFrameBatch, len(frames))]
		found, err := engine.DetectFaces(ctx, batch, cfg.FaceDetectionMinimumWidthRatio, cfg.ConfidenceLevel/100)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: %w", engine.Name(), err)
		}
		for j, faces := range found {
			for _, f := range faces {
				if len(f.Descriptor) > 0 {
					seen = append(seen, sighting{atMs: int64(i+j) * step.Milliseconds(), face: f})
				}
			}
		}
		r.progress(ctx, kind, math.Round(1000*float64(i+len(batch))/float64(len(frames)))/10)
	}
	same := engine.SamePersonSimilarity()
	groups := groupFaces(seen, same, step.Milliseconds())
	known, err := r.w.Store.PersonFaces(ctx, r.tenant, engine.Name())
	if err != nil {
		return err
	}
	persons, unknown := recognise(groups, known, same, r.target.CreateUnknownPersons)
	created := 0
	for _, p := range persons {
		if p.PersonID == "" {
			created++
		}
	}
	if err := r.w.Store.SaveDetectedPersons(ctx, store.DetectedPersonsWrite{TenantID: r.tenant, ItemID: r.item, RunKey: r.runKey,
		Engine: engine.Name(), Persons: persons, AddImages: cfg.AutoAddImagesToDetectedPersons}); err != nil {
		return err
	}
	return r.set(ctx, kind, false, map[string]any{"state": store.AnalysisComplete, "percent": 100,
		"finishedOn": time.Now().UTC(), "frames": len(frames), "faces": len(seen), "persons": len(persons),
		"personsCreated": created, "unknownFaces": unknown, "seconds": time.Since(started).Seconds()}, nil,
		&store.MediaOperation{Kind: store.OperationPersonDetection, Provider: engine.Name(), MediaSeconds: r.target.DurationSeconds,
			Outputs: len(persons)})
}

// sighting is a face seen in the keyframe at atMs.
type sighting struct {
	atMs int64
	face analysis.Face
}

// faceGroup is the faces taken for one person in the item.
type faceGroup struct {
	sum         []float64 // of the unit descriptors
	centroid    []float32 // sum's direction: the group's descriptor
	faces       int
	confidence  float64 // sum of the faces'
	appearances []store.Appearance
}

// add counts descriptor d (of length 1) in the group.
func (g *faceGroup) add(d []float64) {
	var n float64
	for i, v := range d {
		g.sum[i] += v
		n += g.sum[i] * g.sum[i]
	}
	n = math.Sqrt(n)
	for i, v := range g.sum {
		g.centroid[i] = float32(v / n)
	}
	g.faces++
}

// groupFaces puts each face, in time order, with the group whose centroid
// it is most like (at least same, cosine), or starts a group. Two faces of
// one keyframe are two persons. Appearances in consecutive keyframes (step
// apart) make one.
func groupFaces(seen []sighting, same float64, stepMs int64) []*faceGroup {
	var groups []*faceGroup
	for _, s := range seen {
		d := unit(s.face.Descriptor)
		if d == nil {
			continue
		}
		var best *faceGroup
		bestSim := same
		for _, g := range groups {
			if last := g.appearances[len(g.appearances)-1]; last.StartMs == s.atMs || (stepMs > 0 && last.EndMs > s.atMs) {
				continue // already seen in this keyframe
			}
			if sim := analysis.Similarity(s.face.Descriptor, g.centroid); sim >= bestSim {
				best, bestSim = g, sim
			}
		}
		if best == nil {
			best = &faceGroup{sum: make([]float64, len(d)), centroid: make([]float32, len(d))}
			groups = append(groups, best)
		}
		best.add(d)
		best.confidence += s.face.Confidence
		b := s.face.Box
		if n := len(best.appearances); n > 0 && stepMs > 0 && best.appearances[n-1].EndMs == s.atMs {
			best.appearances[n-1].EndMs = s.atMs + stepMs
		} else {
			best.appearances = append(best.appearances, store.Appearance{StartMs: s.atMs, EndMs: s.atMs + stepMs, X: b.X, Y: b.Y, W: b.W, H: b.H})
		}
	}
	return groups
}

// recognise names the groups: each is the known person whose faces it is
// most like (at least same), groups of one person joined; the others become
// new persons when createUnknown (named "Unknown person N"), else they are
// only counted.
func recognise(groups []*faceGroup, known []store.PersonFace, same float64, createUnknown bool) (persons []*store.DetectedPerson, unknown int) {
	byPerson := map[string]*store.DetectedPerson{}
	newPersons := 0
	for _, g := range groups {
		c := g.centroid
		conf := math.Round(100*g.confidence/float64(g.faces)) / 100
		var match *store.PersonFace
		bestSim := same
		for i := range known {
			if sim := analysis.Similarity(known[i].Descriptor, c); sim >= bestSim {
				match, bestSim = &known[i], sim
			}
		}
		switch {
		case match != nil:
			if p := byPerson[match.PersonID]; p != nil {
				p.Appearances = append(p.Appearances, g.appearances...)
				p.Confidence = max(p.Confidence, conf)
				continue
			}
			p := &store.DetectedPerson{PersonID: match.PersonID, Name: match.Name, Confidence: conf, Appearances: g.appearances, Descriptor: c}
			byPerson[match.PersonID] = p
			persons = append(persons, p)
		case createUnknown:
			newPersons++
			persons = append(persons, &store.DetectedPerson{Name: fmt.Sprintf("Unknown person %d", newPersons),
				Confidence: conf, Appearances: g.appearances, Descriptor: c})
		default:
			unknown++
		}
	}
	for _, p := range persons {
		slices.SortFunc(p.Appearances, func(a, b store.Appearance) int { return int(a.StartMs - b.StartMs) })
	}
	return persons, unknown
}

// unit is d scaled to length 1 (nil for a zero or empty vector).
func unit(d []float32) []float64 {
	var n float64
	for _, v := range d {
		n += float64(v) * float64(v)
	}
	if n == 0 {
		return nil
	}
	n = math.Sqrt(n)
	u := make([]float64, len(d))
	for i, v := range d {
		u[i] = float64(v) / n
	}
	return u
}
