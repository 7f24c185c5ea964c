// Package apertium is the offline translation engine: Apertium (Debian's
// apertium with its language pairs, such as apertium-eng-spa), rule-based
// machine translation that runs on a fresh machine without a network.
//
// Texts go through one run, a line each (apertium's plain-text format
// keeps lines); an answer with another number of lines is translated
// again text by text.
package apertium

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Name is the engine's name in translationBy and metering.
const Name = "apertium"

// ModesDir holds the installed pairs' modes (<from>-<to>.mode).
var ModesDir = "/usr/share/apertium/modes"

// codes are Apertium's language codes (ISO 639-3) of the languages tags
// name (the first part of a language-region tag).
var codes = map[string]string{"en": "eng", "es": "spa", "ca": "cat", "fr": "fra", "pt": "por", "it": "ita",
	"gl": "glg", "eu": "eus", "oc": "oci", "ro": "ron", "de": "deu", "nl": "nld", "da": "dan", "sv": "swe", "nb": "nob"}

// Engine translates with Apertium.
type Engine struct{}

// Available reports whether Apertium and at least one pair are installed.
func Available() bool {
	if !tool.Installed("apertium") {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(ModesDir, "*.mode"))
	return len(m) > 0
}

// Name implements analysis.Translator.
func (Engine) Name() string { return Name }

// pair is Apertium's mode for from → to ("" when none is installed).
func pair(from, to string) string {
	f, ok1 := codes[strings.SplitN(from, "-", 2)[0]]
	t, ok2 := codes[strings.SplitN(to, "-", 2)[0]]
	if !ok1 || !ok2 {
		return ""
	}
	mode := f + "-" + t
	if _, err := os.Stat(filepath.Join(ModesDir, mode+".mode")); err != nil {
		return ""
	}
	return mode
}

// Supports implements analysis.Translator: a pair whose mode is installed.
func (Engine) Supports(from, to string) bool { return pair(from, to) != "" }

// Translate implements analysis.Translator.
func (Engine) Translate(ctx context.Context, from, to string, texts []string) ([]string, error) {
	mode := pair(from, to)
	if mode == "" {
		return nil, analysis.ErrUnsupportedLanguage
	}
	if len(texts) == 0 {
		return []string{}, nil
	}
	lines := make([]string, len(texts))
	for i, t := range texts {
		lines[i] = strings.Join(strings.Fields(t), " ") // one line each
	}
	out, err := run(ctx, mode, strings.Join(lines, "\n")+"\n")
	if err != nil {
		return nil, err
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(lines) {
		got = make([]string, len(lines))
		for i, l := range lines {
			o, err := run(ctx, mode, l+"\n")
			if err != nil {
				return nil, err
			}
			got[i] = strings.ReplaceAll(strings.TrimSuffix(o, "\n"), "\n", " ")
		}
	}
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	return got, nil
}

// run translates text with mode (unknown words unmarked).
func run(ctx context.Context, mode, text string) (string, error) {
	var out bytes.Buffer
	if err := tool.Run(ctx, tool.Cmd{Program: "apertium", Args: []string{"-u", "-f", "txt", mode}, Name: "apertium " + mode,
		Stdin: strings.NewReader(text), Stdout: &out}); err != nil {
		return "", err
	}
	return out.String(), nil
}
