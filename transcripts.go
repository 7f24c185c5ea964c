package loupe

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The rules of a timed transcript as a client or an engine writes it, and
// of the language codes that name transcripts.

// TranscriptSegment is one timed line of a transcript (times in ms).
type TranscriptSegment struct {
	Content   string `json:"content"`
	StartTime int64  `json:"startTime"`
	EndTime   int64  `json:"endTime"`
}

// TranscriptSegmentInput is a segment as written.
type TranscriptSegmentInput = TranscriptSegment

// Limits of a transcript.
const (
	MaxTranscriptSegments = 100_000
	MaxSegmentContent     = 10_000
)

// transcriptLanguageRE is a BCP 47 language-region tag (en-US, pt-BR,
// es-419, zh-Hant-TW): transcripts are per spoken variant.
var transcriptLanguageRE = regexp.MustCompile(`^[a-z]{2,3}(-[A-Z][a-z]{3})?-([A-Z]{2}|[0-9]{3})$`)

// ValidTranscriptLanguage reports whether code can name a transcript's language.
func ValidTranscriptLanguage(code string) bool { return transcriptLanguageRE.MatchString(code) }

func invalidTranscript(format string, args ...any) *Error {
	return &Error{Kind: EINVALID, Message: MsgInvalidSyntax, DeveloperMessage: fmt.Sprintf(format, args...)}
}

// ValidateTranscript checks a transcript before it is written: a
// language-region code, at most MaxTranscriptSegments segments, each with
// content and 0 <= startTime <= endTime (ms). Returns EINVALID with the
// spec's message and the reason as developer message.
func ValidateTranscript(languageCode string, segments []*TranscriptSegment) error {
	if !ValidTranscriptLanguage(languageCode) {
		return invalidTranscript("languageCode must be a BCP 47 language-region tag such as en-US, got %q", languageCode)
	}
	if len(segments) > MaxTranscriptSegments {
		return invalidTranscript("timedTranscript has %d segments, at most %d are allowed", len(segments), MaxTranscriptSegments)
	}
	for i, s := range segments {
		switch {
		case s == nil:
			return invalidTranscript("timedTranscript[%d] is null", i)
		case strings.TrimSpace(s.Content) == "":
			return invalidTranscript("timedTranscript[%d].content is empty", i)
		case !utf8.ValidString(s.Content) || utf8.RuneCountInString(s.Content) > MaxSegmentContent:
			return invalidTranscript("timedTranscript[%d].content is longer than %d characters", i, MaxSegmentContent)
		case s.StartTime < 0:
			return invalidTranscript("timedTranscript[%d].startTime is negative", i)
		case s.EndTime < s.StartTime:
			return invalidTranscript("timedTranscript[%d].endTime is before its startTime", i)
		}
	}
	return nil
}
