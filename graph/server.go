package graph

import (
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
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
}

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

// Engine is the one executor configuration, in the two forms it is used:
// Exec runs stored documents in-process (REST), HTTP serves /graphql.
// Both share the query cache, limits, error presenter and recovery.
type Engine struct {
	Exec *executor.Executor
	HTTP *handler.Server
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
	for _, c := range []configurable{e.Exec, e.HTTP} {
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
