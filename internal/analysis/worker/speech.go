package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/store"
)

// ExternalService is the spec's name of a transcription service outside
// Loupe (2.24 transcriptionService).
const ExternalService = "externalSpeechToText"

// transcriber picks the engine for the item's language: the service the
// tenant's transcription language settings (2.24) name for it —
// externalSpeechToText with the tenant's transcriptionApiKey when this
// server has that service — else the first engine here with a model for
// the language. A language the settings do not offer, or no engine has,
// fails saying so.
func (r *run) transcriber(ctx context.Context, lang string) (analysis.Transcriber, error) {
	settings, err := r.w.Store.TranscriptionLanguageSettings(ctx, r.tenant)
	if err != nil {
		return nil, err
	}
	service, offered := "", false
	for _, s := range settings.Embedded.Collection {
		if s.LanguageCode == lang {
			service, offered = s.TranscriptionService, true
			break
		}
	}
	if !offered {
		return nil, failed("%s is not among the tenant's transcription languages (transcriptionLanguageSettings)", lang)
	}
	if service == ExternalService && r.w.Engines.External != nil {
		c, err := r.config(ctx)
		if err != nil {
			return nil, err
		}
		if key := c.TranscriptionAPIKey; key != nil && *key != "" {
			return r.w.Engines.External(*key), nil
		}
	}
	var names []string
	for _, t := range r.w.Engines.Transcribers {
		if t.Supports(lang) && (service == t.Name() || service == ExternalService || service == "") {
			return t, nil
		}
		names = append(names, t.Name())
	}
	for _, t := range r.w.Engines.Transcribers {
		if t.Supports(lang) {
			return t, nil
		}
	}
	return nil, failed("no transcription engine here has a model for %s (engines: %s; %s needs LOUPE_STT_URL and the tenant's transcriptionApiKey)",
		lang, strings.Join(names, ", "), ExternalService)
}

// transcribe makes the item's transcript in its languageCode from the
// proxy's audio, with subtitles; a transcript a person edited is kept
// unless forced.
func (r *run) transcribe(ctx context.Context) error {
	const kind = jobs.AnalyzeTranscription
	lang := r.target.LanguageCode
	if lang == "" {
		lang = "en-US"
	}
	engine, err := r.transcriber(ctx, lang)
	if err != nil {
		return err
	}
	started := time.Now()
	if err := r.claim(ctx, kind, engine.Name(), map[string]any{"transcriptionState": store.AnalysisProcessing,
		"transcriptionBy": r.w.Node, "transcriptionService": engine.Name(), "transcriptionProgress": 0}); err != nil {
		return err
	}
	if r.target.MediaKind != "video" && r.target.MediaKind != "audio" {
		return failed("the item's media (%s) has no sound to transcribe", orNone(r.target.MediaKind))
	}
	proxy, err := r.proxy(ctx)
	if err != nil {
		return err
	}
	wav := filepath.Join(r.dir, "speech.wav")
	duration, err := analysis.AudioForSpeech(ctx, proxy, wav)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failed("the item's audio could not be read: %s", strings.ReplaceAll(err.Error(), proxy, "the proxy"))
	}
	segs, err := engine.Transcribe(ctx, wav, lang, func(p float64) { r.progress(ctx, kind, p) })
	switch {
	case errors.Is(err, analysis.ErrUnsupportedLanguage):
		return failed("%s has no model for %s", engine.Name(), lang)
	case errors.Is(err, analysis.ErrNotConfigured):
		return &kindError{state: store.AnalysisNotConfigured, reason: err.Error()}
	case errors.Is(err, analysis.ErrRejected):
		return failed("%s", strings.TrimPrefix(err.Error(), analysis.ErrRejected.Error()+": "))
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("%s: %w", engine.Name(), err)
	}
	state := store.AnalysisComplete
	_, _, err = r.w.Transcripts.Write(ctx, store.TranscriptWrite{TenantID: r.tenant, ItemID: r.item, LanguageCode: lang,
		Segments: transcriptSegments(segs), Engine: engine.Name(), Force: r.force})
	if errors.Is(err, store.ErrEditedByPerson) {
		state = store.AnalysisKept
	} else if err != nil {
		return err
	}
	words := 0
	for _, s := range segs {
		words += len(strings.Fields(s.Content))
	}
	return r.set(ctx, kind, false, map[string]any{"state": state, "percent": 100, "finishedOn": time.Now().UTC(),
		"segments": len(segs), "words": words, "languageCode": lang, "seconds": time.Since(started).Seconds()},
		map[string]any{"transcriptionState": store.AnalysisComplete, "transcriptionProgress": 100},
		&store.MediaOperation{Kind: store.OperationTranscription, Provider: engine.Name(), MediaSeconds: duration, Outputs: 1})
}

// translate makes the translation of the item's transcript into its
// translationLanguage (else the tenant's), with subtitles.
func (r *run) translate(ctx context.Context) error {
	const kind = jobs.AnalyzeTranslation
	from := r.target.LanguageCode
	if from == "" {
		from = "en-US"
	}
	to := r.target.TranslationLanguage
	fromTenant := false
	if to == "" {
		c, err := r.config(ctx)
		if err != nil {
			return err
		}
		if c.TranslationLanguage != nil {
			to, fromTenant = *c.TranslationLanguage, true
		}
	}
	if to == "" {
		return failed("no translationLanguage on the item or the tenant")
	}
	if !loupe.ValidTranscriptLanguage(to) {
		return failed("translationLanguage %q is not a language-region tag such as es-ES", to)
	}
	var engine analysis.Translator
	for _, t := range r.w.Engines.Translators {
		if t.Supports(from, to) {
			engine = t
			break
		}
	}
	if engine == nil {
		return failed("no translation engine here translates %s into %s", from, to)
	}
	fields := map[string]any{"translationBy": engine.Name()}
	if fromTenant {
		fields["translationLanguage"] = to // the item's links follow the language it was translated into
	}
	if err := r.claim(ctx, kind, engine.Name(), fields); err != nil {
		return err
	}
	found, err := r.w.Store.TranscriptsByKeys(ctx, r.tenant, []store.TranscriptKey{{ItemID: r.item, LanguageCode: from}})
	if err != nil {
		return err
	}
	t := found[store.TranscriptKey{ItemID: r.item, LanguageCode: from}]
	if t == nil {
		return failed("the item has no %s transcript to translate", from)
	}
	var segs []*loupe.TranscriptSegment
	if err := json.Unmarshal(t.Segments, &segs); err != nil {
		return err
	}
	texts := make([]string, len(segs))
	for i, s := range segs {
		texts[i] = s.Content
	}
	out, err := engine.Translate(ctx, from, to, texts)
	switch {
	case errors.Is(err, analysis.ErrUnsupportedLanguage):
		return failed("%s does not translate %s into %s", engine.Name(), from, to)
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return err
	}
	if len(out) != len(texts) {
		return failed("%s answered %d texts for %d", engine.Name(), len(out), len(texts))
	}
	translated := make([]*loupe.TranscriptSegment, 0, len(segs))
	var end int64
	for i, s := range segs {
		if strings.TrimSpace(out[i]) == "" {
			continue
		}
		translated = append(translated, &loupe.TranscriptSegment{Content: out[i], StartTime: s.StartTime, EndTime: s.EndTime})
		end = max(end, s.EndTime)
	}
	state := store.AnalysisComplete
	_, _, err = r.w.Transcripts.Write(ctx, store.TranscriptWrite{TenantID: r.tenant, ItemID: r.item, LanguageCode: to,
		Segments: translated, Engine: engine.Name(), Force: r.force})
	if errors.Is(err, store.ErrEditedByPerson) {
		state = store.AnalysisKept
	} else if err != nil {
		return err
	}
	return r.set(ctx, kind, false, map[string]any{"state": state, "percent": 100, "finishedOn": time.Now().UTC(),
		"from": from, "to": to, "segments": len(translated)}, nil,
		&store.MediaOperation{Kind: store.OperationTranslation, Provider: engine.Name(), MediaSeconds: float64(end) / 1000, Outputs: 1})
}

// transcriptSegments are an engine's segments as a transcript's (blank
// ones dropped: a transcript refuses them).
func transcriptSegments(segs []analysis.Segment) []*loupe.TranscriptSegment {
	out := make([]*loupe.TranscriptSegment, 0, len(segs))
	for _, s := range segs {
		if strings.TrimSpace(s.Content) == "" {
			continue
		}
		out = append(out, &loupe.TranscriptSegment{Content: s.Content, StartTime: s.StartMs, EndTime: max(s.EndMs, s.StartMs)})
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
