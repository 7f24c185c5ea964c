// Package tesseract is the offline text detection engine: Tesseract OCR
// (Debian's tesseract-ocr with its language data, tesseract-ocr-eng), run
// on a frame at a time. Its TSV answer gives each word with its box and
// confidence; words are gathered into the lines Tesseract found.
package tesseract

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Name is the engine's name in analysis states and metering.
const Name = "tesseract"

// MinWordConfidence drops the words Tesseract is least sure of (in
// [0, 1]): on video frames they are mostly texture read as letters.
const MinWordConfidence = 0.6

// Engine reads text with Tesseract.
type Engine struct{}

// Available reports whether tesseract and its English data are installed.
func Available() bool {
	if !tool.Installed("tesseract") {
		return false
	}
	return len(languages()) > 0
}

// languages are the installed traineddata (eng, spa…), osd aside.
func languages() map[string]bool {
	found := map[string]bool{}
	for _, dir := range []string{"/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", os.Getenv("TESSDATA_PREFIX")} {
		if dir == "" {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(dir, "*.traineddata"))
		for _, f := range m {
			if l := strings.TrimSuffix(filepath.Base(f), ".traineddata"); l != "osd" {
				found[l] = true
			}
		}
	}
	return found
}

// Name implements analysis.TextDetector.
func (Engine) Name() string { return Name }

// codes are Tesseract's language codes of the languages tags name.
var codes = map[string]string{"en": "eng", "es": "spa", "fr": "fra", "de": "deu", "it": "ita", "pt": "por",
	"nl": "nld", "ca": "cat", "sv": "swe", "da": "dan", "nb": "nor", "pl": "pol"}

// DetectText implements analysis.TextDetector: the lines found in the
// image, in reading order, with the words Tesseract is sure enough of.
func (Engine) DetectText(ctx context.Context, imagePath string, langs []string) ([]analysis.TextLine, error) {
	have := languages()
	var use []string
	for _, l := range langs {
		if c := codes[strings.SplitN(strings.ToLower(l), "-", 2)[0]]; c != "" && have[c] && !slices.Contains(use, c) {
			use = append(use, c)
		}
	}
	if len(use) == 0 {
		use = []string{"eng"}
	}
	// --psm 11: sparse text, in no particular layout (captions, signs,
	// lower thirds), which is what frames of video hold.
	var out bytes.Buffer
	err := tool.Run(ctx, tool.Cmd{Program: "tesseract", Args: []string{imagePath, "stdout", "-l", strings.Join(use, "+"), "--psm", "11", "tsv"},
		// One thread: the frames of a run go through one after another
		// at low priority; OpenMP's threads only fight the other work.
		Env: []string{"OMP_THREAD_LIMIT=1"}, Stdout: &out})
	if err != nil {
		return nil, err
	}
	return parseTSV(&out)
}

// parseTSV gathers Tesseract's words (level 5) into their lines (block,
// paragraph, line numbers), each line's box the union of its words' and
// its confidence their mean.
func parseTSV(r io.Reader) ([]analysis.TextLine, error) {
	// Tab-separated without quoting: a word may hold a quote mark.
	var recs [][]string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		recs = append(recs, strings.Split(sc.Text(), "\t"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tesseract: unreadable TSV: %w", err)
	}
	type acc struct {
		words      []string
		conf       float64
		x0, y0, x1 int
		y1         int
	}
	var order []string
	lines := map[string]*acc{}
	for i, rec := range recs {
		if i == 0 || len(rec) < 12 || rec[0] != "5" {
			continue
		}
		n := make([]int, 10)
		for j := range n {
			n[j], _ = strconv.Atoi(rec[j])
		}
		conf, _ := strconv.ParseFloat(rec[10], 64)
		text := strings.TrimSpace(rec[11])
		if text == "" || conf/100 < MinWordConfidence {
			continue
		}
		key := rec[2] + "." + rec[3] + "." + rec[4]
		a := lines[key]
		if a == nil {
			a = &acc{x0: n[6], y0: n[7], x1: n[6] + n[8], y1: n[7] + n[9]}
			lines[key] = a
			order = append(order, key)
		}
		a.words = append(a.words, text)
		a.conf += conf / 100
		a.x0, a.y0 = min(a.x0, n[6]), min(a.y0, n[7])
		a.x1, a.y1 = max(a.x1, n[6]+n[8]), max(a.y1, n[7]+n[9])
	}
	out := make([]analysis.TextLine, 0, len(order))
	for _, k := range order {
		a := lines[k]
		out = append(out, analysis.TextLine{Text: strings.Join(a.words, " "), Confidence: math.Round(100*a.conf/float64(len(a.words))) / 100,
			Box: analysis.Box{X: a.x0, Y: a.y0, W: a.x1 - a.x0, H: a.y1 - a.y0}})
	}
	return out, nil
}
