package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/analysis/engine/sphinx"
	"github.com/loupe-mam/loupe/internal/analysis/engine/tesseract"
)

// The analysis engines' speed (issue 17), measured on the engines
// themselves as the analysis worker runs them: speech made by flite from known
// sentences, frames with text drawn by ffmpeg. flite and a font are in
// scripts/deps' bench profile; without them the rows say so.

const (
	anaSpeech = "analysis: transcription, PocketSphinx (flite speech, ~60 s)"
	anaOCR    = "analysis: text detection, Tesseract (720p frames with text)"
)

// benchSentences are said over and over to make a minute of speech.
var benchSentences = []string{
	"the quick brown fox jumped over the lazy dog",
	"we will meet at the harbor tomorrow morning",
	"please send the report before noon",
	"the committee approved the budget for next year",
	"heavy rain is expected in the north this evening",
}

func analysisRows(ctx context.Context, dir string) []procRow {
	work := filepath.Join(dir, "analysis")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return []procRow{{Scenario: anaSpeech, Unmeasured: err.Error()}, {Scenario: anaOCR, Unmeasured: err.Error()}}
	}
	defer os.RemoveAll(work)
	return []procRow{speechRow(ctx, work), ocrRow(ctx, work)}
}

// speechRow: the realtime factor (time to transcribe ÷ duration) and the
// word error rate.
func speechRow(ctx context.Context, dir string) procRow {
	row := procRow{Scenario: anaSpeech}
	if !sphinx.Available() {
		row.Unmeasured = "pocketsphinx is not installed (scripts/deps run)"
		return row
	}
	if _, err := exec.LookPath("flite"); err != nil {
		row.Unmeasured = "flite is not installed (scripts/deps bench)"
		return row
	}
	var said []string
	list := filepath.Join(dir, "list.txt")
	var listing strings.Builder
	for i := range 12 {
		s := benchSentences[i%len(benchSentences)]
		said = append(said, s)
		wav := filepath.Join(dir, fmt.Sprintf("s%02d.wav", i))
		if out, err := exec.CommandContext(ctx, "flite", "-voice", "slt", "-t", s, "-o", wav).CombinedOutput(); err != nil {
			row.Unmeasured = fmt.Sprintf("flite: %v %s", err, out)
			return row
		}
		fmt.Fprintf(&listing, "file '%s'\nfile '%s'\n", wav, filepath.Join(dir, "gap.wav"))
	}
	os.WriteFile(list, []byte(listing.String()), 0o600) //nolint:errcheck
	speech := filepath.Join(dir, "speech.wav")
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "1.5", "-c:a", "pcm_s16le", filepath.Join(dir, "gap.wav")},
		{"-f", "concat", "-safe", "0", "-i", list, "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", filepath.Join(dir, "joined.wav")},
	} {
		if out, err := exec.CommandContext(ctx, "ffmpeg", append([]string{"-nostdin", "-loglevel", "error", "-y"}, args...)...).CombinedOutput(); err != nil {
			row.Unmeasured = fmt.Sprintf("ffmpeg: %v %s", err, out)
			return row
		}
	}
	seconds, err := analysis.AudioForSpeech(ctx, filepath.Join(dir, "joined.wav"), speech)
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	start := time.Now()
	segs, err := sphinx.Engine{}.Transcribe(ctx, speech, "en-US", nil)
	row.Took, row.MediaSeconds = time.Since(start), seconds
	if err != nil {
		row.Unmeasured = err.Error()
		return row
	}
	var heard []string
	for _, s := range segs {
		heard = append(heard, s.Content)
	}
	row.Value = fmt.Sprintf("RTF %.2f", row.Took.Seconds()/seconds)
	row.Note = fmt.Sprintf("%.0f s of speech, word error rate %.2f", seconds,
		analysis.WordErrorRate(strings.Join(said, " "), strings.Join(heard, " ")))
	return row
}

// ocrRow: frames read per second, and how many of the words drawn came
// back.
func ocrRow(ctx context.Context, dir string) procRow {
	row := procRow{Scenario: anaOCR}
	const font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
	if !tesseract.Available() {
		row.Unmeasured = "tesseract-ocr is not installed (scripts/deps run)"
		return row
	}
	if _, err := os.Stat(font); err != nil {
		row.Unmeasured = "no font to draw text with (fonts-dejavu-core: scripts/deps bench)"
		return row
	}
	const n = 20
	var frames, drawn []string
	for i := range n {
		text := benchSentences[i%len(benchSentences)]
		f := filepath.Join(dir, fmt.Sprintf("f%02d.png", i))
		vf := fmt.Sprintf("drawtext=fontfile=%s:text='%s':fontsize=44:fontcolor=white:x=(w-tw)/2:y=h*3/4:box=1:boxcolor=black@0.5", font, text)
		if out, err := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
			fmt.Sprintf("testsrc2=size=1280x720:rate=1:duration=%d", i+1), "-vf", vf, "-update", "1", f).CombinedOutput(); err != nil {
			row.Unmeasured = fmt.Sprintf("ffmpeg: %v %s", err, out)
			return row
		}
		frames, drawn = append(frames, f), append(drawn, text)
	}
	var read []string
	start := time.Now()
	for _, f := range frames {
		lines, err := tesseract.Engine{}.DetectText(ctx, f, []string{"en-US"})
		if err != nil {
			row.Unmeasured = err.Error()
			return row
		}
		for _, l := range lines {
			read = append(read, strings.ToLower(l.Text))
		}
	}
	row.Took = time.Since(start)
	row.Value = fmt.Sprintf("%.1f frames/s", n/row.Took.Seconds())
	row.Note = fmt.Sprintf("%d frames; word error rate of the sentences drawn %.2f (the test pattern's own numbers, read too, count as errors)", n,
		analysis.WordErrorRate(strings.Join(drawn, " "), strings.Join(read, " ")))
	return row
}
