package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
	"github.com/loupe-mam/loupe/internal/shares"
	"github.com/loupe-mam/loupe/rest"
)

// requestIDHeader carries the request id to and from clients and proxies.
const requestIDHeader = "X-Request-Id"

// slowRequest is how long a request takes before its line is a warning
// whatever LOUPE_LOG_REQUESTS says.
const slowRequest = 5 * time.Second

// requestLog gives each request an id (kept from a proxy's header when it
// is sane), a logger tagged with it, and one log line when it ends — its
// path without the share token a link's path holds (a credential): at
// info with all, else at debug unless it failed (5xx: error) or was slow
// (warn).
func requestLog(logger *slog.Logger, m *metrics.Metrics, all bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(requestIDHeader)
			if id == "" || len(id) > 64 {
				var b [8]byte
				rand.Read(b[:]) //nolint:errcheck // never fails
				id = hex.EncodeToString(b[:])
			}
			w.Header().Set(requestIDHeader, id)
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			start := time.Now()
			next.ServeHTTP(ww, r.WithContext(reqlog.With(r.Context(), logger, id)))
			elapsed := time.Since(start)
			// The route context is the router's own (r's): filled in
			// by the routing that has now happened.
			m.ObserveHTTP(r, ww.Status(), elapsed, isStream(r))
			level := slog.LevelDebug
			switch {
			case ww.Status() >= 500:
				level = slog.LevelError
			case elapsed >= slowRequest && !isStream(r):
				level = slog.LevelWarn
			case all:
				level = slog.LevelInfo
			}
			logger.LogAttrs(r.Context(), level, "request", slog.String("request_id", id),
				slog.String("method", r.Method), slog.String("path", shares.Redact(r.URL.Path)),
				slog.Int("status", ww.Status()), slog.Duration("duration", elapsed))
		})
	}
}

// recoverPanics answers a panic outside the GraphQL executor (which has its
// own recovery) with an internal error, and logs it.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				reqlog.From(r.Context()).Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				rest.WriteError(w, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// capBody caps what any handler can read of a body.
func capBody(limit int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			next.ServeHTTP(w, r)
		})
	}
}

func tooLarge(limit int64) error {
	return loupe.Errorf(loupe.ETOOLARGE, "The request body is larger than %d bytes.", limit)
}

// refuseDeclaredLarge answers 413 before reading when the declared length is
// over the cap; bodies without a length are refused by capBody as they are
// read (rest/bind.go answers 413 then).
func refuseDeclaredLarge(limit int64, fail func(http.ResponseWriter, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > limit {
				fail(w, tooLarge(limit))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// bufferBody reads a GraphQL body whole before the transport does, so that
// an oversized one answers 413 in GraphQL's shape whether or not its length
// was declared (gqlgen would report it as a 200 with an input error).
func bufferBody(limit int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > limit {
				writeGraphQLError(w, tooLarge(limit))
				return
			}
			b, err := io.ReadAll(r.Body)
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					writeGraphQLError(w, tooLarge(limit))
					return
				}
				writeGraphQLError(w, loupe.Invalid("could not read the request body"))
				return
			}
			// UTF-8 and the rest of the input gate: graph's decodeBody
			// (loupe.ReadJSON), as for REST bodies.
			r.Body = io.NopCloser(bytes.NewReader(b))
			next.ServeHTTP(w, r)
		})
	}
}

// checkURL holds the URL to the input gate's rules for text: its query
// parameters, decoded, must be UTF-8 without U+0000 (they reach the API as
// strings: search text, cursors, ids) and the query must parse (url.Values
// drops a malformed pair without a word). A path holding such bytes names
// nothing that can exist: 404, as any unknown id.
func checkURL(fail func(http.ResponseWriter, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := urlError(r.URL); err != nil {
				fail(w, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func urlError(u *url.URL) error {
	if !utf8.ValidString(u.Path) || strings.IndexByte(u.Path, 0) >= 0 {
		return loupe.NotFound()
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return loupe.Invalid("The request URL's query cannot be parsed.")
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !utf8.ValidString(k) || strings.IndexByte(k, 0) >= 0 {
			return loupe.Invalid("The request URL is not valid UTF-8 without NUL characters.")
		}
		for _, v := range q[k] {
			if !utf8.ValidString(v) {
				return loupe.Invalid("%s must be valid UTF-8", k)
			}
			if strings.IndexByte(v, 0) >= 0 {
				return loupe.Invalid("%s: %s", k, loupe.ErrNUL.Message)
			}
		}
	}
	return nil
}

// timeout bounds the work of a request through its context.
func timeout(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// authenticate lets a request through only with a valid credential, with
// its principal in the context; fail answers the others.
func authenticate(a *auth.Authenticator, fail func(http.ResponseWriter, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := a.AuthenticateRequest(r)
			if err != nil {
				if loupe.ErrorKind(err) != loupe.EUNAUTHORIZED {
					reqlog.From(r.Context()).Error("authentication failed", "err", err)
				}
				fail(w, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
		})
	}
}

// writeGraphQLError answers /graphql, before the executor runs, in
// GraphQL's own shape: errors and no data entry, which the GraphQL-over-HTTP
// spec reserves for operations that ran (docs/graphql-over-http.md).
func writeGraphQLError(w http.ResponseWriter, err error) {
	kind := loupe.ErrorKind(err)
	msg := graph.MsgInternal
	if e, ok := err.(*loupe.Error); ok {
		msg = e.Message
	}
	status := graph.StatusOf(kind)
	rest.WriteJSON(w, status, map[string]any{
		"errors": []map[string]any{{
			"message":    msg,
			"extensions": map[string]any{"code": graph.CodeOf(kind), "statusCode": status},
		}},
	})
}

// admit lets at most n requests through at once; the others wait their
// turn, in arrival order as far as the runtime's channel queue goes, until
// their context ends (the client left, or the request's timeout passed),
// when fail answers them. n < 1 admits every request.
//
// It guards /graphql (docs/decisions.md, "Operations admitted a few at a
// time"): a client's document can ask for thousands of fields, and when
// every concurrent operation is time-sliced with every other on a few
// cores, each of them takes as long as all of them — the slowest percent
// of a grid page took twice its median. Admitted a few at a time (a small
// multiple of the cores, so that the database's waits still overlap), an
// operation waits in line and then runs at full speed: the same work, the
// tail close to the median.
func admit(n int, fail func(http.ResponseWriter, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if n < 1 {
			return next
		}
		slots := make(chan struct{}, n)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case slots <- struct{}{}:
			case <-r.Context().Done():
				fail(w, fmt.Errorf("waiting to be admitted: %w", r.Context().Err()))
				return
			}
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		})
	}
}
