package loupe

import (
	"errors"
	"fmt"
)

// Error kinds. Each maps to one GraphQL code and one REST status, in one
// table (graph/errors.go).
const (
	ENOTFOUND     = "not_found"    // 404 NOT_FOUND
	EINVALID      = "invalid"      // 400 BAD_USER_INPUT
	ECONFLICT     = "conflict"     // 409 CONFLICT
	EFORBIDDEN    = "forbidden"    // 403 FORBIDDEN
	EUNAUTHORIZED = "unauthorized" // 401 UNAUTHENTICATED
	EINTERNAL     = "internal"     // 500 INTERNAL, with a message the spec prescribes
	ETOOLARGE     = "too_large"    // 413 PAYLOAD_TOO_LARGE
)

// Spec messages used by more than one operation (interface.md section 7).
const (
	MsgNotFound        = "The server can not find requested resource."
	MsgUnauthenticated = "The client is not authenticated to get the requested resource."
	MsgInvalidSyntax   = "The server could not understand the request due to invalid syntax."
)

// Error is an error a client may see: its Message is shown verbatim.
type Error struct {
	Kind             string
	Message          string
	DeveloperMessage string
	// Payload goes into the REST envelope's payload and the GraphQL error's
	// extensions (debug kinds, key, ...).
	Payload map[string]any
}

func (e *Error) Error() string { return e.Kind + ": " + e.Message }

// Errorf builds an Error of a kind.
func Errorf(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the spec's generic 404.
func NotFound() *Error { return &Error{Kind: ENOTFOUND, Message: MsgNotFound} }

// Invalid is a 400 naming what is wrong with the input.
func Invalid(format string, args ...any) *Error { return Errorf(EINVALID, format, args...) }

// Forbidden is a 403 saying what the principal may not do.
func Forbidden(format string, args ...any) *Error { return Errorf(EFORBIDDEN, format, args...) }

// ErrorKind returns the kind of err, or EINTERNAL for errors that are not
// *Error (those are never shown to clients).
func ErrorKind(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return EINTERNAL
}
