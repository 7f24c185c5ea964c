// Package analysis is media analysis (issue 17, docs/analysis.md): each
// kind of analysis is an interface here, each engine a package below that
// implements it with a real program or service — PocketSphinx, Apertium,
// Tesseract, OpenCV, an OpenAI-compatible speech-to-text server. Engines
// take files the pipeline made (a 16 kHz mono WAV of the proxy's audio,
// keyframe images) and answer plain values; they know nothing of items,
// tenants or storage. Results are never made up: an engine that cannot
// answer says why (ErrUnsupportedLanguage, ErrNotConfigured, its error).
package analysis

import (
	"context"
	"errors"
	"math"
)

// ErrUnsupportedLanguage is the answer of an engine asked for a language
// (or a language pair) it has no model for.
var ErrUnsupportedLanguage = errors.New("analysis: language not supported by the engine")

// ErrNotConfigured is the answer for an analysis kind no engine is
// configured for (label and celebrity detection here; an external service
// without its key).
var ErrNotConfigured = errors.New("analysis: no engine configured")

// ErrRejected is the answer of an engine that refused the input for good
// (a service's 4xx): trying again would not help.
var ErrRejected = errors.New("analysis: the engine refused the input")

// Segment is a timed piece of text: a transcript or subtitle cue, times in
// milliseconds from the start of the media (loupe.TranscriptSegment's
// shape, plus the words where the engine times them).
type Segment struct {
	Content string `json:"content"`
	StartMs int64  `json:"startTime"`
	EndMs   int64  `json:"endTime"`
	Words   []Word `json:"words,omitempty"`
}

// Word is one recognised word.
type Word struct {
	Text    string `json:"text"`
	StartMs int64  `json:"startTime"`
	EndMs   int64  `json:"endTime"`
	// Confidence is in [0, 1] (0 when the engine gives none).
	Confidence float64 `json:"confidence,omitempty"`
}

// Progress receives how far an engine is, in percent of its input.
type Progress func(percent float64)

// Transcriber turns speech into timed text.
type Transcriber interface {
	// Name is the engine's name in transcriptionService and metering.
	Name() string
	// Supports reports whether the engine has a model for languageCode
	// (a BCP 47 language-region tag such as en-US).
	Supports(languageCode string) bool
	// Transcribe transcribes wavPath, a 16 kHz mono 16-bit PCM WAV
	// (AudioForSpeech makes one), into segments in time order.
	Transcribe(ctx context.Context, wavPath, languageCode string, progress Progress) ([]Segment, error)
}

// Translator translates text between languages.
type Translator interface {
	Name() string
	// Supports reports whether the engine translates from into to
	// (language-region tags or bare languages: en-US, es).
	Supports(from, to string) bool
	// Translate translates each text, answering as many texts in the same
	// order.
	Translate(ctx context.Context, from, to string, texts []string) ([]string, error)
}

// Box is a rectangle in an image, in pixels from its top-left corner.
type Box struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// TextLine is a line of text found in an image.
type TextLine struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"` // [0, 1]
	Box        Box     `json:"box"`
}

// TextDetector finds text in images (OCR).
type TextDetector interface {
	Name() string
	// DetectText answers the lines of text in the image at imagePath, in
	// reading order, languages being ISO 639-2 or language-region codes
	// of what to look for (nil: the engine's default).
	DetectText(ctx context.Context, imagePath string, languages []string) ([]TextLine, error)
}

// Face is a face found in an image.
type Face struct {
	Box        Box     `json:"box"`
	Confidence float64 `json:"confidence"` // [0, 1]
	// Descriptor is a vector that is close (cosine) for faces of one
	// person, for clustering faces into persons.
	Descriptor []float32 `json:"descriptor,omitempty"`
}

// Similarity is the cosine similarity of two descriptors, in [-1, 1] (0
// when either is empty or they differ in length): SamePersonSimilarity
// (of the engine) or more for faces of one person.
func Similarity(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// FaceDetector finds faces in images.
type FaceDetector interface {
	Name() string
	// DetectFaces answers, for each image in imagePaths (in order), the
	// faces at least minWidthRatio of the image's width wide with a
	// confidence of at least minConfidence (both in [0, 1]).
	DetectFaces(ctx context.Context, imagePaths []string, minWidthRatio, minConfidence float64) ([][]Face, error)
	// SamePersonSimilarity is the cosine similarity of two of the engine's
	// descriptors at and above which the faces are taken for one person's.
	SamePersonSimilarity() float64
}
