// Package envelope is the JSON error body of spec section 7 and the writer
// of JSON answers, shared by the REST layer and the services that answer
// HTTP themselves (the tus upload endpoint) without depending on the API.
package envelope

import (
	"encoding/json"
	"net/http"
)

// MsgInternal is the message of every internal error: its cause is in the
// log, never in an answer.
const MsgInternal = "Internal server error"

// Body is the error body of spec section 7.
type Body struct {
	Error Error `json:"error"`
}

// Error is the inside of a Body.
type Error struct {
	StatusCode       int            `json:"statusCode"`
	Message          string         `json:"message"`
	DeveloperMessage string         `json:"developerMessage,omitempty"`
	Payload          map[string]any `json:"payload,omitempty"`
}

// WriteJSON writes v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"statusCode":500,"message":"`+MsgInternal+`"}}`)
	}
	WriteRaw(w, status, b)
}

// WriteRaw writes a JSON body b with status.
func WriteRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the client went away
}
