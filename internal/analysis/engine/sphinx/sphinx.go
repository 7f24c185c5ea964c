// Package sphinx is the offline transcription engine: CMU PocketSphinx
// (Debian's pocketsphinx, pocketsphinx_continuous) with the acoustic and
// language models Debian packages (pocketsphinx-en-us: US English).
//
// pocketsphinx_continuous -time yes prints each utterance as a line of text
// followed by one line per word: "word start end confidence" (seconds;
// <s>, </s>, <sil> and [NOISE] are markers, alternate pronunciations are
// suffixed "(2)"). Words become segments at a silence of SegmentPause or
// more, at the end of an utterance, or after SegmentWords words — cue-sized
// lines for subtitles.
package sphinx

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Name is the engine's name in transcriptionService and metering.
const Name = "pocketsphinx"

// Binary is the PocketSphinx program.
const Binary = "pocketsphinx_continuous"

// Segmenting.
const (
	SegmentPause = 500 // ms
	SegmentWords = 12
)

// ModelDir holds Debian's models, one directory per language.
var ModelDir = "/usr/share/pocketsphinx/model"

// models are the languages whose model Debian packages, by tag, with the
// directory name and the files of each.
var models = map[string]string{"en-US": "en-us"}

// Engine transcribes with PocketSphinx.
type Engine struct{}

// Available reports whether PocketSphinx and a model are installed.
func Available() bool {
	if !tool.Installed(Binary) {
		return false
	}
	for lang := range models {
		if (Engine{}).Supports(lang) {
			return true
		}
	}
	return false
}

// Name implements analysis.Transcriber.
func (Engine) Name() string { return Name }

// Supports implements analysis.Transcriber: a language whose model is
// installed.
func (Engine) Supports(lang string) bool {
	dir, ok := models[lang]
	if !ok {
		return false
	}
	_, err := os.Stat(filepath.Join(ModelDir, dir, dir+".lm.bin"))
	return err == nil
}

// Transcribe implements analysis.Transcriber.
func (e Engine) Transcribe(ctx context.Context, wav, lang string, progress analysis.Progress) ([]analysis.Segment, error) {
	if !e.Supports(lang) {
		return nil, analysis.ErrUnsupportedLanguage
	}
	duration, err := analysis.WAVSeconds(wav)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(ModelDir, models[lang])
	p, err := tool.Start(ctx, tool.Cmd{Program: Binary, Args: []string{"-infile", wav, "-time", "yes", "-logfn", "/dev/null",
		"-hmm", filepath.Join(dir, models[lang]), "-lm", filepath.Join(dir, models[lang]+".lm.bin"),
		"-dict", filepath.Join(dir, "cmudict-"+models[lang]+".dict")}})
	if err != nil {
		return nil, err
	}
	segs, perr := parse(p.Stdout, duration, progress)
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return segs, perr
}

// parse reads the words of -time yes output into segments.
func parse(r io.Reader, duration float64, progress analysis.Progress) ([]analysis.Segment, error) {
	var (
		segs []analysis.Segment
		cur  analysis.Segment
	)
	flush := func() {
		if len(cur.Words) > 0 {
			segs = append(segs, cur)
		}
		cur = analysis.Segment{}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue // an utterance's text line
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		conf, err3 := strconv.ParseFloat(f[3], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			continue // a text line of four words
		}
		word := f[0]
		startMs, endMs := int64(start*1000), int64(end*1000)
		switch {
		case word == "<s>":
			continue
		case word == "</s>":
			flush() // the end of an utterance
			continue
		case word == "<sil>" || strings.HasPrefix(word, "[") || strings.HasPrefix(word, "++"):
			if endMs-startMs >= SegmentPause {
				flush()
			}
			continue
		}
		if i := strings.IndexByte(word, '('); i > 0 {
			word = word[:i]
		}
		if len(cur.Words) == 0 {
			cur.StartMs = startMs
		} else {
			cur.Content += " "
		}
		cur.Content += word
		cur.EndMs = endMs
		cur.Words = append(cur.Words, analysis.Word{Text: word, StartMs: startMs, EndMs: endMs, Confidence: min(max(conf, 0), 1)})
		if len(cur.Words) >= SegmentWords {
			flush()
		}
		if progress != nil && duration > 0 {
			progress(min(99, 100*end/duration))
		}
	}
	flush()
	return segs, sc.Err()
}
