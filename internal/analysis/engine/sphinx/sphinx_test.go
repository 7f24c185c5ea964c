package sphinx

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/speechtest"
)

// maxWordErrorRate bounds what PocketSphinx's en-US model gets wrong of
// flite's speech here (measured: about 0.1–0.2).
const maxWordErrorRate = 0.35

func TestTranscribe(t *testing.T) {
	mediatest.Need(t, Binary)
	wav, starts := speechtest.Say(t, t.TempDir(), speechtest.Sentences...)
	var seen []float64
	began := time.Now()
	segs, err := Engine{}.Transcribe(context.Background(), wav, "en-US", func(p float64) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	duration, _ := analysis.WAVSeconds(wav)
	var heard []string
	var last int64
	for _, s := range segs {
		if s.StartMs < last || s.EndMs < s.StartMs || float64(s.EndMs) > duration*1000+100 || len(s.Words) == 0 {
			t.Fatalf("segment out of order or past the audio: %+v", s)
		}
		last = s.EndMs
		heard = append(heard, s.Content)
	}
	wer := analysis.WordErrorRate(strings.Join(speechtest.Sentences, " "), strings.Join(heard, " "))
	t.Logf("heard %q: word error rate %.2f; %.1f s of audio in %v (realtime factor %.2f)", strings.Join(heard, " | "),
		wer, duration, took.Round(time.Millisecond), took.Seconds()/duration)
	if wer > maxWordErrorRate {
		t.Fatalf("word error rate %.2f above %.2f", wer, maxWordErrorRate)
	}
	// The sentences, a pause apart, are segments of their own, each
	// starting within half a second of where it was said.
	if len(segs) != len(starts) {
		t.Fatalf("%d segments for %d sentences a pause apart", len(segs), len(starts))
	}
	for i, s := range segs {
		if d := s.StartMs - starts[i]; d < -500 || d > 500 {
			t.Errorf("segment %d starts at %d ms, the sentence at %d ms", i, s.StartMs, starts[i])
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] < 50 {
		t.Errorf("progress reported: %v", seen)
	}
}

func TestUnsupportedLanguage(t *testing.T) {
	if _, err := (Engine{}).Transcribe(context.Background(), "x.wav", "fr-FR", nil); !errors.Is(err, analysis.ErrUnsupportedLanguage) {
		t.Fatalf("fr-FR: %v", err)
	}
	if (Engine{}).Supports("de-DE") {
		t.Fatal("de-DE supported")
	}
}
