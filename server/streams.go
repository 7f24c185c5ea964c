package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"

	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/crossorigin"
	"github.com/loupe-mam/loupe/loaders"
	"github.com/loupe-mam/loupe/store"
)

// Subscriptions (docs/events.md) are served on /graphql beside the plain
// requests, by the engine's Stream form: a WebSocket (graphql-transport-ws)
// authenticates in its connection_init payload, an SSE request
// (graphql-sse, distinct connections) by its headers. Neither is bound by
// the request timeout or the in-flight limit: they last as long as the
// subscriber listens.

// streamOptions configure the engine's Stream form.
func streamOptions(authn *auth.Authenticator, st *store.Store, origins []string) *graph.StreamOptions {
	return &graph.StreamOptions{
		Init: func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			p, err := authn.AuthenticateRequest(initRequest(ctx, payload))
			if err != nil {
				return ctx, nil, err
			}
			return auth.WithPrincipal(ctx, p), nil, nil
		},
		CheckOrigin: func(r *http.Request) bool { return sameOrAllowedOrigin(r, origins) },
		Extensions:  []graphql.HandlerExtension{freshLoaders{st}},
	}
}

// initRequest carries a connection_init payload's credentials as the
// headers a plain request would: every string entry is a header
// (Authorization, X-API-Key, the operator's key headers, X-Loupe-Tenant),
// and apiKey or token, as clients often name it, is a bearer credential.
func initRequest(ctx context.Context, payload transport.InitPayload) *http.Request {
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, "/graphql", nil)
	for k, v := range payload {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "apikey", "token":
			r.Header.Set("Authorization", "Bearer "+s)
		default:
			if strings.IndexFunc(k, func(c rune) bool { return c <= ' ' || c >= 0x7f || c == ':' }) < 0 {
				r.Header.Set(k, s)
			}
		}
	}
	return r
}

// sameOrAllowedOrigin admits a WebSocket from a page of the server's own
// origin, one the operator allows, or no browser (no Origin).
func sameOrAllowedOrigin(r *http.Request, origins []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if u, err := url.Parse(origin); err == nil && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return crossorigin.Allows(origins, origin)
}

// freshLoaders gives each answer of a stream its own loaders: an event
// answered an hour into a subscription reads the data as it is then, not
// as the first answer cached it.
type freshLoaders struct{ st *store.Store }

func (freshLoaders) ExtensionName() string                   { return "FreshLoaders" }
func (freshLoaders) Validate(graphql.ExecutableSchema) error { return nil }
func (f freshLoaders) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return next(loaders.NewContext(ctx, f.st))
}

// isStream is whether r opens a stream: a WebSocket upgrade, or a POST
// that asks for Server-Sent Events.
func isStream(r *http.Request) bool {
	return websocket.IsWebSocketUpgrade(r) ||
		(r.Method == http.MethodPost && strings.Contains(r.Header.Get("Accept"), "text/event-stream"))
}
