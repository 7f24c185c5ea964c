package worker

import (
	"context"
	"fmt"
	"image"
	_ "image/png" // keyframes
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/store"
)

// Detected text is written as the item's timed metadata in the
// default_detected_text form: one entry per span where the same text
// shows, its id starting with detectedTextPrefix so that a re-run
// replaces its own entries and leaves a person's.
const (
	detectedTextForm   = "default_detected_text"
	detectedTextPrefix = "detected-text-"
	// sameSceneDiff is the mean difference (0–255) of two keyframes'
	// thumbnails under which they are one scene: the text read from the
	// first is taken for the second without reading it again.
	sameSceneDiff = 3.0
)

// detectText reads the text shown in the video: the proxy's keyframes
// (every media.KeyframeSeconds), each read when its scene changed;
// consecutive keyframes showing the same text make one entry. An image
// is read once, from its preview.
func (r *run) detectText(ctx context.Context) error {
	const kind = jobs.AnalyzeTextDetection
	engine := r.w.Engines.Text
	if engine == nil {
		return &kindError{state: store.AnalysisNotConfigured, reason: "no text detection engine on this server (tesseract-ocr)"}
	}
	started := time.Now()
	if err := r.claim(ctx, kind, engine.Name(), nil); err != nil {
		return err
	}
	frames, step, err := r.keyframes(ctx)
	if err != nil {
		return err
	}
	langs := []string{r.target.LanguageCode}
	var (
		spans   []textSpan
		prevSig []float64
		prev    []analysis.TextLine
		read    int
	)
	for i, f := range frames {
		sig := signature(f)
		lines := prev
		if sig == nil || prevSig == nil || sceneDiff(sig, prevSig) >= sameSceneDiff {
			if lines, err = engine.DetectText(ctx, f, langs); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("%s: %w", engine.Name(), err)
			}
			read++
		}
		prevSig, prev = sig, lines
		at := int64(i) * step.Milliseconds()
		text, conf := joinLines(lines)
		switch {
		case text == "":
		case len(spans) > 0 && spans[len(spans)-1].text == text && spans[len(spans)-1].endMs == at:
			spans[len(spans)-1].endMs = at + step.Milliseconds()
		default:
			spans = append(spans, textSpan{startMs: at, endMs: at + step.Milliseconds(), text: text, confidence: conf})
		}
		r.progress(ctx, kind, math.Round(1000*float64(i+1)/float64(len(frames)))/10)
	}
	if d := int64(r.target.DurationSeconds * 1000); d > 0 {
		for i := range spans {
			spans[i].endMs = min(spans[i].endMs, d)
			spans[i].startMs = min(spans[i].startMs, spans[i].endMs)
		}
	}
	if err := r.writeDetectedText(ctx, spans); err != nil {
		return err
	}
	return r.set(ctx, kind, false, map[string]any{"state": store.AnalysisComplete, "percent": 100,
		"finishedOn": time.Now().UTC(), "frames": len(frames), "framesRead": read, "entries": len(spans),
		"seconds": time.Since(started).Seconds()}, nil,
		&store.MediaOperation{Kind: store.OperationTextDetection, Provider: engine.Name(), MediaSeconds: r.target.DurationSeconds,
			Outputs: len(spans)})
}

// textSpan is text shown from startMs to endMs.
type textSpan struct {
	startMs, endMs int64
	text           string
	confidence     float64
}

// keyframes are the frames read, a local PNG each, and the time between
// them: the proxy's keyframes, or an image's preview.
func (r *run) keyframes(ctx context.Context) ([]string, time.Duration, error) {
	dir := filepath.Join(r.dir, "keyframes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, 0, err
	}
	switch r.target.MediaKind {
	case media.KindVideo:
		proxy, err := r.proxy(ctx)
		if err != nil {
			return nil, 0, err
		}
		if err := media.Run(ctx, media.Command{Args: media.KeyframesArgs(proxy, filepath.Join(dir, "%05d.png"))}); err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			return nil, 0, failed("the proxy's keyframes could not be read: %s", strings.ReplaceAll(err.Error(), proxy, "the proxy"))
		}
		frames, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		sort.Strings(frames)
		return frames, media.KeyframeSeconds * time.Second, nil
	case media.KindImage:
		if r.target.Preview == "" {
			return nil, 0, failed("the image has no preview: process it first")
		}
		p, err := r.local(ctx, r.target.Preview, "preview")
		if err != nil {
			return nil, 0, err
		}
		return []string{p}, 0, nil
	}
	return nil, 0, failed("the item's media (%s) has no pictures to read text in", orNone(r.target.MediaKind))
}

// writeDetectedText replaces the run's entries of the item's timed
// metadata with spans (a person's entries stay).
func (r *run) writeDetectedText(ctx context.Context, spans []textSpan) error {
	all, err := r.w.Store.TimedMetadataOfItems(ctx, r.tenant, []string{r.item})
	if err != nil {
		return err
	}
	form := detectedTextForm
	upsert := make([]loupe.TimedMetadataInput, len(spans))
	written := make(map[string]bool, len(spans))
	for i, s := range spans {
		title, _, _ := strings.Cut(s.text, "\n")
		upsert[i] = loupe.TimedMetadataInput{ID: fmt.Sprintf("%s%d", detectedTextPrefix, s.startMs), StartMs: s.startMs, EndMs: s.endMs,
			Data: loupe.ItemMetadataInput{FormID: &form, FormData: loupe.JSONOf(map[string]any{
				"default_title": truncate(title, 200), "default_text": s.text, "default_confidence": s.confidence})}}
		written[upsert[i].ID] = true
	}
	// The run's earlier entries go, but for those written again (replaced).
	var remove []string
	for _, e := range all[r.item] {
		if strings.HasPrefix(e.ID, detectedTextPrefix) && e.FormID == detectedTextForm && !written[e.ID] {
			remove = append(remove, e.ID)
		}
	}
	for len(upsert) > 0 || len(remove) > 0 {
		n := min(len(upsert), store.MaxTimedMetadataWrite)
		m := min(len(remove), store.MaxTimedMetadataWrite-n)
		if _, err := r.w.Store.UpdateTimedMetadata(ctx, r.tenant, r.item, upsert[:n], remove[:m]); err != nil {
			if loupe.ErrorKind(err) == loupe.EINVALID {
				return failed("the detected text could not be written: %s", err.Error())
			}
			return err
		}
		upsert, remove = upsert[n:], remove[m:]
	}
	return nil
}

// joinLines is a frame's text, a line each, and its mean confidence.
func joinLines(lines []analysis.TextLine) (string, float64) {
	var texts []string
	conf := 0.0
	for _, l := range lines {
		if t := strings.TrimSpace(l.Text); t != "" {
			texts = append(texts, t)
			conf += l.Confidence
		}
	}
	if len(texts) == 0 {
		return "", 0
	}
	return strings.Join(texts, "\n"), math.Round(100*conf/float64(len(texts))) / 100
}

// signature is a frame reduced to 32×18 grey levels (nil when it cannot
// be read): enough to tell a new scene from the same one.
func signature(path string) []float64 {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil
	}
	const w, h = 32, 18
	b := img.Bounds()
	sig := make([]float64, w*h)
	for y := range h {
		for x := range w {
			px := b.Min.X + (2*x+1)*b.Dx()/(2*w)
			py := b.Min.Y + (2*y+1)*b.Dy()/(2*h)
			cr, cg, cb, _ := img.At(px, py).RGBA()
			sig[y*w+x] = (0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)) / 257
		}
	}
	return sig
}

// sceneDiff is the mean absolute difference of two signatures.
func sceneDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d += math.Abs(a[i] - b[i])
	}
	return d / float64(len(a))
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
