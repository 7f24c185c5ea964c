// Package stttest is a local speech-to-text service that speaks the
// OpenAI-compatible protocol (POST /v1/audio/transcriptions, multipart,
// verbose_json) — the wire protocol of the externalSpeechToText engine —
// and transcribes for real with PocketSphinx, so that a test of the client
// hears what was said rather than a canned answer. It checks the bearer
// key and records what each request asked for.
package stttest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-mam/loupe/internal/analysis/engine/sphinx"
)

// Request is what the service was asked.
type Request struct {
	Model, Language, ResponseFormat string
	Granularities                   []string
	FileName                        string
	Bytes                           int64
}

// Server is a running service.
type Server struct {
	URL string
	// Key is the only bearer key it takes.
	Key string

	mu       sync.Mutex
	requests []Request
}

// Requests are the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Start starts a service taking key, closed with the test.
func Start(t testing.TB, key string) *Server {
	t.Helper()
	s := &Server{Key: key}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}) //nolint:errcheck
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
		fail(w, http.StatusNotFound, "no such endpoint")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		fail(w, http.StatusUnauthorized, "Incorrect API key provided.")
		return
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		fail(w, http.StatusBadRequest, "not multipart: "+err.Error())
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		fail(w, http.StatusBadRequest, "no file")
		return
	}
	defer f.Close()
	dir, err := os.MkdirTemp("", "stttest-")
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	defer os.RemoveAll(dir)
	wav := filepath.Join(dir, "audio.wav")
	out, err := os.Create(wav)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	n, err := io.Copy(out, f)
	out.Close()
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	req := Request{Model: r.FormValue("model"), Language: r.FormValue("language"), ResponseFormat: r.FormValue("response_format"),
		Granularities: r.MultipartForm.Value["timestamp_granularities[]"], FileName: hdr.Filename, Bytes: n}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if req.Language != "en" {
		fail(w, http.StatusBadRequest, "unsupported language: "+req.Language)
		return
	}
	segs, err := sphinx.Engine{}.Transcribe(context.Background(), wav, "en-US", nil)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	type seg struct {
		ID    int     `json:"id"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
		Text  string  `json:"text"`
	}
	type word struct {
		Word  string  `json:"word"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
	}
	answer := struct {
		Task     string  `json:"task"`
		Language string  `json:"language"`
		Duration float64 `json:"duration"`
		Text     string  `json:"text"`
		Segments []seg   `json:"segments"`
		Words    []word  `json:"words"`
	}{Task: "transcribe", Language: "english", Segments: []seg{}, Words: []word{}}
	var all []string
	for i, sg := range segs {
		answer.Segments = append(answer.Segments, seg{ID: i, Start: float64(sg.StartMs) / 1000, End: float64(sg.EndMs) / 1000, Text: " " + sg.Content})
		for _, wd := range sg.Words {
			answer.Words = append(answer.Words, word{Word: wd.Text, Start: float64(wd.StartMs) / 1000, End: float64(wd.EndMs) / 1000})
		}
		all = append(all, sg.Content)
		answer.Duration = float64(sg.EndMs) / 1000
	}
	answer.Text = strings.Join(all, " ")
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer) //nolint:errcheck
}
