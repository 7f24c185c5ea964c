package rest

import (
	"fmt"
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/platform/envelope"
)

// Envelope is the error body of spec section 7 (internal/platform/envelope).
type Envelope = envelope.Body

// EnvelopeError is the inside of an Envelope.
type EnvelopeError = envelope.Error

// WriteJSON writes v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) { envelope.WriteJSON(w, status, v) }

func writeRaw(w http.ResponseWriter, status int, b []byte) { envelope.WriteRaw(w, status, b) }

// WriteError writes the envelope for a *store.Error; any other error is
// internal.
func WriteError(w http.ResponseWriter, err error) {
	writeEnvelope(w, envelopeOf(err), "")
}

func envelopeOf(err error) EnvelopeError {
	e, ok := err.(*loupe.Error)
	if !ok {
		e = &loupe.Error{Kind: loupe.EINTERNAL, Message: graph.MsgInternal}
	}
	return EnvelopeError{StatusCode: graph.StatusOf(e.Kind), Message: e.Message,
		DeveloperMessage: e.DeveloperMessage, Payload: e.Payload}
}

// writeEnvelope writes env; a 400 takes the message invalid when it is set
// (Route.Invalid), keeping the specific one as developerMessage.
func writeEnvelope(w http.ResponseWriter, env EnvelopeError, invalid string) {
	if invalid != "" && env.StatusCode == http.StatusBadRequest && env.Message != invalid {
		if env.DeveloperMessage == "" {
			env.DeveloperMessage = env.Message
		}
		env.Message = invalid
	}
	WriteJSON(w, env.StatusCode, Envelope{Error: env})
}

// envelopeOfGraphQL is the envelope for an error the executor presented
// (graph.PresentError put statusCode, payload and developerMessage in its
// extensions).
func envelopeOfGraphQL(e *gqlerror.Error) EnvelopeError {
	env := EnvelopeError{StatusCode: http.StatusBadRequest, Message: e.Message}
	if len(e.Path) > 1 && e.Path[0] == ast.PathName("variable") {
		// Input coercion errors name the variable path (variable.input.x);
		// the REST caller knows it as the body field x. Another variable
		// is named as it is: a body key or query parameter of that name
		// (ids[0] of POST /api/v1/folders/ancestry).
		at := e.Path[1:]
		if at[0] == ast.PathName("input") {
			at = at[1:]
		}
		if len(at) > 0 {
			env.Message = fmt.Sprintf("%s: %s", at.String(), e.Message)
		}
	}
	if s, ok := e.Extensions["statusCode"].(int); ok {
		env.StatusCode = s
	}
	if m, ok := e.Extensions["developerMessage"].(string); ok {
		env.DeveloperMessage = m
	}
	if p, ok := e.Extensions["payload"].(map[string]any); ok {
		env.Payload = p
	}
	return env
}

// NotFound answers unknown paths and wrong methods: the spec wants 404, not 405.
func NotFound(w http.ResponseWriter, _ *http.Request) {
	WriteError(w, loupe.NotFound())
}
