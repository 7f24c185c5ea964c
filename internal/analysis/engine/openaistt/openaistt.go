// Package openaistt is the externalSpeechToText engine (the spec's name of
// a transcription service outside Loupe): a client of the OpenAI-compatible
// speech-to-text API, POST <base>/v1/audio/transcriptions, which OpenAI
// and the self-hosted Whisper servers (faster-whisper-server, LocalAI,
// whisper.cpp's server, vLLM) speak. The tenant's transcriptionApiKey is
// the bearer token; it never appears in an error or a log.
package openaistt

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/analysis"
)

// Name is the engine's name in transcriptionService and metering.
const Name = "externalSpeechToText"

// DefaultModel is asked for when the server names none (LOUPE_STT_MODEL).
const DefaultModel = "whisper-1"

// Client transcribes through one service with one tenant's key.
type Client struct {
	// BaseURL is the service's root (https://api.openai.com, or a
	// self-hosted server's http://whisper:8000): the path is added.
	BaseURL string
	Model   string
	APIKey  string
	// HTTP is the client used (a 30 min timeout when nil: a long file is
	// transcribed in one request).
	HTTP *http.Client
}

// Name implements analysis.Transcriber.
func (Client) Name() string { return Name }

// Supports implements analysis.Transcriber: the service says which
// languages it has (Whisper has about a hundred); one it lacks fails the
// run with its answer.
func (Client) Supports(string) bool { return true }

// answer is the verbose_json response.
type answer struct {
	Text     string `json:"text"`
	Language string `json:"language"`
	Segments []struct {
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	} `json:"segments"`
	Words []struct {
		Word  string  `json:"word"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
	} `json:"words"`
}

// Transcribe implements analysis.Transcriber: the WAV in one multipart
// request (model, language, verbose_json with segment and word times).
func (c Client) Transcribe(ctx context.Context, wavPath, languageCode string, progress analysis.Progress) ([]analysis.Segment, error) {
	if c.APIKey == "" {
		return nil, fmt.Errorf("%w: the tenant has no transcriptionApiKey", analysis.ErrNotConfigured)
	}
	f, err := os.Open(wavPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := func() error {
			for _, kv := range [][2]string{{"model", cmp.Or(c.Model, DefaultModel)},
				{"language", strings.ToLower(strings.SplitN(languageCode, "-", 2)[0])},
				{"response_format", "verbose_json"}, {"timestamp_granularities[]", "segment"},
				{"timestamp_granularities[]", "word"}} {
				if err := mw.WriteField(kv[0], kv[1]); err != nil {
					return err
				}
			}
			part, err := mw.CreateFormFile("file", filepath.Base(wavPath))
			if err != nil {
				return err
			}
			if _, err := io.Copy(part, f); err != nil {
				return err
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/v1/audio/transcriptions", pr)
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("%s: the service's URL: %w", Name, err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.APIKey)
	if progress != nil {
		progress(0)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may carry a user's credentials
		}
		return nil, fmt.Errorf("%s: the service did not answer: %v", Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w: the service refused the tenant's transcriptionApiKey (%s)", analysis.ErrNotConfigured, resp.Status)
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout &&
		resp.StatusCode != http.StatusTooManyRequests:
		return nil, fmt.Errorf("%w: %s answered %s: %s", analysis.ErrRejected, Name, resp.Status, serviceMessage(body))
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: the service answered %s: %s", Name, resp.Status, serviceMessage(body))
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("%s: the service's answer is not verbose_json: %v", Name, err)
	}
	if progress != nil {
		progress(100)
	}
	return segmentsOf(a), nil
}

// segmentsOf turns the answer into segments, each with the words that
// fall within it (a service that gives segments only: no words; text
// only: one segment).
func segmentsOf(a answer) []analysis.Segment {
	ms := func(s float64) int64 { return int64(s*1000 + 0.5) }
	out := make([]analysis.Segment, 0, len(a.Segments))
	for _, s := range a.Segments {
		text := strings.TrimSpace(s.Text)
		if text == "" {
			continue
		}
		seg := analysis.Segment{Content: text, StartMs: ms(s.Start), EndMs: max(ms(s.End), ms(s.Start))}
		for _, w := range a.Words {
			if ws := ms(w.Start); ws >= seg.StartMs && ws < seg.EndMs {
				seg.Words = append(seg.Words, analysis.Word{Text: strings.TrimSpace(w.Word), StartMs: ws, EndMs: ms(w.End)})
			}
		}
		out = append(out, seg)
	}
	if len(out) == 0 && strings.TrimSpace(a.Text) != "" {
		out = append(out, analysis.Segment{Content: strings.TrimSpace(a.Text)})
	}
	return out
}

// serviceMessage is the error an OpenAI-compatible service gives
// ({"error": {"message": …}}), else the start of its answer.
func serviceMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
