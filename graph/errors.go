package graph

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/scalar"
	"github.com/loupe-mam/loupe/internal/platform/envelope"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
)

// errorKinds is the one table from error kind to GraphQL code and HTTP status.
var errorKinds = map[string]struct {
	Code   string
	Status int
}{
	loupe.ENOTFOUND:     {"NOT_FOUND", http.StatusNotFound},
	loupe.EINVALID:      {"BAD_USER_INPUT", http.StatusBadRequest},
	loupe.ECONFLICT:     {"CONFLICT", http.StatusConflict},
	loupe.EFORBIDDEN:    {"FORBIDDEN", http.StatusForbidden},
	loupe.EUNAUTHORIZED: {"UNAUTHENTICATED", http.StatusUnauthorized},
	loupe.EINTERNAL:     {"INTERNAL", http.StatusInternalServerError},
	loupe.ETOOLARGE:     {"PAYLOAD_TOO_LARGE", http.StatusRequestEntityTooLarge},
}

// StatusOf is the HTTP status for an error kind.
func StatusOf(kind string) int {
	if k, ok := errorKinds[kind]; ok {
		return k.Status
	}
	return http.StatusInternalServerError
}

// CodeOf is the GraphQL extensions.code for an error kind.
func CodeOf(kind string) string {
	if k, ok := errorKinds[kind]; ok {
		return k.Code
	}
	return "INTERNAL"
}

// MsgInternal is all a client learns of an unexpected error; the cause goes
// to the log with the request id.
const MsgInternal = envelope.MsgInternal

// PresentError gives every error extensions.code and extensions.statusCode.
// A *store.Error shows its message, payload and developer message; a GraphQL
// error (parse, validation, limits) shows its message as a 400, or as the
// status a transport's refusal carries; anything else is logged and shown
// as INTERNAL, so no driver message ever leaks.
func PresentError(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := *graphql.DefaultErrorPresenter(ctx, err) // copy: never mutate a shared error
	ext := map[string]any{}
	for k, v := range gqlErr.Extensions {
		ext[k] = v
	}
	gqlErr.Extensions = ext

	var se *loupe.Error
	var ie *scalar.InputError
	switch {
	case errors.As(err, &ie):
		// "alternatives[0].value: must be a string", named by the input
		// path below the field.
		gqlErr.Message = ie.Message
		at := inputPath(gqlErr.Path)
		if ie.At != "" {
			at += dotted(at, ie.At)
		}
		if at != "" {
			gqlErr.Message = at + ": " + ie.Message
		}
		gqlErr.Err = nil
		ext["code"] = "BAD_USER_INPUT"
		ext["statusCode"] = http.StatusBadRequest
	case errors.As(err, &se):
		gqlErr.Message = se.Message
		ext["code"] = CodeOf(se.Kind)
		ext["statusCode"] = StatusOf(se.Kind)
		if se.DeveloperMessage != "" {
			ext["developerMessage"] = se.DeveloperMessage
		}
		if se.Payload != nil {
			ext["payload"] = se.Payload
		}
	case gqlErr.Err == nil:
		if _, ok := ext["code"]; !ok {
			ext["code"] = "BAD_USER_INPUT"
		}
		// The transports' refusals of a request (405, 406, 415:
		// overhttp.go) come with their status; gqlgen's and the
		// parser's errors never do.
		if _, ok := ext["statusCode"]; !ok {
			ext["statusCode"] = http.StatusBadRequest
		}
	default:
		log := reqlog.From(ctx).ErrorContext
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// The client went away: every field still running says so,
			// and nobody reads the answer. Not a server failure.
			log = reqlog.From(ctx).DebugContext
		}
		log(ctx, "request failed", "err", err, "path", gqlErr.Path.String())
		gqlErr.Message = MsgInternal
		gqlErr.Err = nil
		ext["code"] = "INTERNAL"
		ext["statusCode"] = http.StatusInternalServerError
	}
	return &gqlErr
}

// inputPath names where in a field's arguments an input error is, as
// clients write it: [createMdf input alternatives 0 value] is
// "alternatives[0].value" (the usual "input" argument is left out).
func inputPath(p ast.Path) string {
	if len(p) < 2 {
		return ""
	}
	p = p[1:] // the field
	if name, ok := p[0].(ast.PathName); ok && name == "input" {
		p = p[1:]
	}
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case ast.PathName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(e))
		case ast.PathIndex:
			fmt.Fprintf(&b, "[%d]", int(e))
		}
	}
	return b.String()
}

// dotted is sub as it continues path: ".b", "[2]", or sub alone.
func dotted(path, sub string) string {
	if path == "" || sub[0] == '[' {
		return sub
	}
	return "." + sub
}

// Recover turns a resolver panic into an internal error, logging the stack.
func Recover(ctx context.Context, v any) error {
	reqlog.From(ctx).ErrorContext(ctx, "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	return errors.New("panic in resolver")
}
