package apertium

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

func TestTranslate(t *testing.T) {
	mediatest.Need(t, "apertium")
	texts := []string{"the house is big", "we will meet at the harbor\ntomorrow morning", "please send the report before noon", ""}
	got, err := Engine{}.Translate(context.Background(), "en-US", "es-ES", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d texts for %d: %q", len(got), len(texts), got)
	}
	for i, want := range []string{"casa", "puerto", "informe"} {
		if !strings.Contains(strings.ToLower(got[i]), want) {
			t.Errorf("%q → %q, want %q in it", texts[i], got[i], want)
		}
	}
	if got[3] != "" {
		t.Errorf("an empty text → %q", got[3])
	}
	if !(Engine{}).Supports("es-MX", "en-GB") {
		t.Error("spa-eng not supported")
	}
}

func TestUnsupportedPair(t *testing.T) {
	if _, err := (Engine{}).Translate(context.Background(), "en-US", "xx-XX", []string{"a"}); !errors.Is(err, analysis.ErrUnsupportedLanguage) {
		t.Fatalf("en → xx: %v", err)
	}
}
