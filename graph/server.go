package graph

import (
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Options are the executor's limits.
type Options struct {
	// Introspection lets clients ask for the schema (the playground needs it).
	Introspection bool
	// ComplexityLimit bounds an operation's cost: one per field, a list
	// field's children multiplied by its page size.
	ComplexityLimit int
	MaxDepth        int
	MaxAliases      int
	// TokenLimit bounds what the parser reads of one document.
	TokenLimit int
	// MaxDocumentBytes bounds the length of a document sent to /graphql
	// (its query text), whatever it holds: the token limit does not count
	// comments and whitespace. 0 is no limit. REST's stored documents,
	// run in-process, are not bound by it.
	MaxDocumentBytes int
	// QueryCacheSize is how many parsed and validated documents are kept.
	QueryCacheSize int
	// Extensions are further handler extensions (tracing, metrics) for
	// both forms of the engine. A field interceptor among them sees every
	// field: the generated code's direct answer for leaves steps aside
	// (fieldsIntercepted, overrides.go).
	Extensions []graphql.HandlerExtension
	// Streams configure the Stream form (subscriptions over WebSocket and
	// SSE; nil: no Stream).
	Streams *StreamOptions
}

// StreamOptions are what the Stream form needs beyond the limits.
type StreamOptions struct {
	// Init authenticates a WebSocket from its connection_init payload
	// (graphql-transport-ws); SSE requests are authenticated by their
	// headers before they reach the engine.
	Init transport.WebsocketInitFunc
	// CheckOrigin admits a WebSocket's Origin (the same origin, or one the
	// operator allows; browsers send no CORS preflight for WebSockets).
	CheckOrigin func(*http.Request) bool
	// Extensions are the Stream form's own (per-event loaders).
	Extensions []graphql.HandlerExtension
}

// keepAlive is how often an idle stream is pinged: under the 30-60 s idle
// timeouts of common proxies.
const keepAlive = 15 * time.Second

// DefaultOptions are the limits Loupe runs with unless configured otherwise.
func DefaultOptions() Options {
	return Options{
		Introspection:    true,
		ComplexityLimit:  20000,
		MaxDepth:         12,
		MaxAliases:       30,
		TokenLimit:       15000,
		MaxDocumentBytes: 100 << 10,
		QueryCacheSize:   1000,
	}
}

// Engine is the one executor configuration, in the forms it is used:
// Exec runs stored documents in-process (REST), HTTP serves /graphql,
// Stream serves /graphql's long-lived connections (subscriptions over
// WebSocket and SSE). All share the query cache, limits, error presenter
// and recovery.
type Engine struct {
	Exec   *executor.Executor
	HTTP   *handler.Server
	Stream *handler.Server
}

// configurable is what executor.Executor and handler.Server both offer.
type configurable interface {
	Use(graphql.HandlerExtension)
	SetQueryCache(graphql.Cache[*ast.QueryDocument])
	SetErrorPresenter(graphql.ErrorPresenterFunc)
	SetRecoverFunc(graphql.RecoverFunc)
	SetParserTokenLimit(int)
	SetDisableSuggestion(bool)
}

// NewEngine configures the executor for es.
func NewEngine(es graphql.ExecutableSchema, opt Options) *Engine {
	es = hidePrivate(es) // @private fields answer but are not shown (private.go)
	cache := lru.New[*ast.QueryDocument](opt.QueryCacheSize)
	e := &Engine{Exec: executor.New(es), HTTP: handler.New(es)}
	forms := []configurable{e.Exec, e.HTTP}
	if opt.Streams != nil {
		e.Stream = handler.New(es)
		forms = append(forms, e.Stream)
	}
	for _, c := range forms {
		c.SetQueryCache(cache)
		c.SetErrorPresenter(PresentError)
		c.SetRecoverFunc(Recover)
		c.SetParserTokenLimit(opt.TokenLimit)
		// Suggestions ("did you mean ...") reveal the schema; they go with
		// it. gqlgen's switch covers field names only; quietRules the rest.
		c.SetDisableSuggestion(!opt.Introspection)
		if opt.Introspection {
			c.Use(extension.Introspection{})
		} else {
			c.Use(introspectionOff{})
		}
		c.Use(shapeLimit{MaxDepth: opt.MaxDepth, MaxAliases: opt.MaxAliases})
		for _, x := range opt.Extensions {
			c.Use(x)
		}
	}
	if !opt.Introspection {
		e.Exec.SetDefaultRulesFn(quietRules)
		e.HTTP.SetValidationRulesFn(quietRules)
		if e.Stream != nil {
			e.Stream.SetValidationRulesFn(quietRules)
		}
	}
	if so := opt.Streams; so != nil {
		e.Stream.Use(extension.FixedComplexityLimit(opt.ComplexityLimit))
		for _, x := range so.Extensions {
			e.Stream.Use(x)
		}
		e.Stream.AddTransport(transport.Websocket{
			Upgrader:              websocket.Upgrader{CheckOrigin: so.CheckOrigin},
			InitFunc:              so.Init,
			InitTimeout:           10 * time.Second,
			KeepAlivePingInterval: keepAlive,
		})
		e.Stream.AddTransport(transport.SSE{KeepAlivePingInterval: keepAlive})
	}
	// The complexity limit guards against arbitrary documents. REST runs
	// only the stored ones, fixed and validated in tests, whose page sizes
	// the resolvers bound; a full item record per hit would otherwise count
	// ~90 a row against the limit.
	e.HTTP.Use(extension.FixedComplexityLimit(opt.ComplexityLimit))
	// Answered per the GraphQL-over-HTTP spec (overhttp.go,
	// docs/graphql-over-http.md); refuse, last, takes what the others do not.
	e.HTTP.AddTransport(options{})
	e.HTTP.AddTransport(get{maxBytes: opt.MaxDocumentBytes})
	e.HTTP.AddTransport(post{maxBytes: opt.MaxDocumentBytes})
	e.HTTP.AddTransport(refuse{})
	return e
}

// quietRules are gqlparser's default validation rules with every rule that
// suggests ("Did you mean ...?") swapped for its variant without: unknown
// arguments, enum values and input fields (literal values), types
// (variables, fragments), fields of a leaf-less selection. gqlgen's
// SetDisableSuggestion swaps only FieldsOnCorrectType (it does so itself,
// on top of these). Variables that do not coerce (gqlparser's vars.go)
// never suggest. Each rule keeps its place, so errors come in the same
// order as with suggestions.
func quietRules() *rules.Rules {
	r := rules.NewDefaultRules()
	for name, quiet := range map[string]core.Rule{
		"FieldsOnCorrectType": rules.FieldsOnCorrectTypeRuleWithoutSuggestions,
		"KnownArgumentNames":  rules.KnownArgumentNamesRuleWithoutSuggestions,
		"KnownTypeNames":      rules.KnownTypeNamesRuleWithoutSuggestions,
		"ScalarLeafs":         rules.ScalarLeafsRuleWithoutSuggestions,
		"ValuesOfCorrectType": rules.ValuesOfCorrectTypeRuleWithoutSuggestions,
	} {
		r.ReplaceRule(name, quiet.RuleFunc)
	}
	return r
}
