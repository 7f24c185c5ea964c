package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/loupe-mam/loupe"
)

// The GraphQL-over-HTTP spec's answers (docs/graphql-over-http.md), where
// gqlgen's transports answer otherwise: gqlgen writes "data": null on
// request errors, answers document errors 422 under application/json and
// a missing query the same, answers any Accept it does not know in
// application/graphql-response+json, refuses a mutation over GET with 406
// and unknown methods and content types with 400. post and get share what
// is here; refuse answers what neither takes.

// The media types /graphql answers in.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// allowedMethods are the methods /graphql serves.
const allowedMethods = "GET, POST, OPTIONS"

// contentType is the Content-Type of an answer in media: JSON is UTF-8,
// said so for clients that look for a charset.
func contentType(media string) string {
	if media == mediaGraphQLResponse {
		return mediaGraphQLResponse + "; charset=utf-8"
	}
	return mediaJSON + "; charset=utf-8"
}

// negotiate picks the media type to answer a request with this Accept
// header in, as RFC 9110 weighs it: each of the two types takes the
// quality of the most specific range that matches it (a wildcard answers
// application/json, the spec's default); the higher quality wins, and
// between equals the one listed first. ok is false when Accept admits
// neither (the spec recommends 406 then). No Accept is application/json.
func negotiate(accept string) (media string, ok bool) {
	if strings.TrimSpace(accept) == "" {
		return mediaJSON, true
	}
	type weight struct {
		q           float64
		specificity int // 0 none, 1 */*, 2 application/*, 3 the type itself
		at          int // position of the range in the list
	}
	var js, gr weight
	consider := func(w *weight, specificity int, q float64, at int) {
		if specificity > w.specificity {
			*w = weight{q, specificity, at}
		}
	}
	i := -1
	for part := range strings.SplitSeq(accept, ",") {
		i++
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil {
				continue
			}
		}
		switch mt {
		case "*/*":
			consider(&js, 1, q, i)
			consider(&gr, 1, q, i)
		case "application/*":
			consider(&js, 2, q, i)
			consider(&gr, 2, q, i)
		case mediaJSON:
			consider(&js, 3, q, i)
		case mediaGraphQLResponse:
			consider(&gr, 3, q, i)
		}
	}
	switch {
	case js.q <= 0 && gr.q <= 0:
		return mediaJSON, false
	case gr.q > js.q, gr.q == js.q && gr.at < js.at:
		return mediaGraphQLResponse, true
	default:
		return mediaJSON, true
	}
}

// Codes of the refusals gqlgen has no code for; a body that does not
// decode or lacks a query is BAD_USER_INPUT, as every other 400.
const (
	codeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	codeNotAcceptable        = "NOT_ACCEPTABLE"
	codeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
)

// requestError is an error of the HTTP request itself, before any document
// is read: its status is the answer's whatever the media type.
func requestError(status int, code, format string, args ...any) *gqlerror.Error {
	e := gqlerror.Errorf(format, args...)
	e.Extensions = map[string]any{"code": code, "statusCode": status}
	return e
}

// badRequest is a request that is not a well-formed GraphQL-over-HTTP one
// (a body that does not decode, a parameter of the wrong type, no query).
func badRequest(format string, args ...any) *gqlerror.Error {
	return requestError(http.StatusBadRequest, "BAD_USER_INPUT", format, args...)
}

// refuseRequest answers a request error: the error alone, without a data
// entry (no operation ran), in media.
func refuseRequest(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, media string, err *gqlerror.Error) {
	status, _ := err.Extensions["statusCode"].(int)
	writeRequestErrors(w, media, status, exec.DispatchError(r.Context(), gqlerror.List{err}))
}

// writeRequestErrors writes the answer to a request that did not run: its
// errors and extensions, never a data entry — the spec's sign that
// execution did not begin.
func writeRequestErrors(w http.ResponseWriter, media string, status int, resp *graphql.Response) {
	b, err := json.Marshal(struct {
		Errors     gqlerror.List  `json:"errors"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Errors, resp.Extensions})
	if err != nil {
		b, _ = json.Marshal(struct {
			Errors gqlerror.List `json:"errors"`
		}{resp.Errors})
	}
	w.Header().Set("Content-Type", contentType(media))
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the client went away
}

// documentErrorStatus is the status of a document that does not parse or
// validate, or whose variables do not coerce, or that the limits refuse:
// under application/json 200, as the spec asks of every well-formed request
// (clients of the legacy type read errors from the body); under
// application/graphql-response+json the status its error presents (400,
// a 5xx for a failure of the server's), never 2xx — that type's status
// says whether the operation ran.
func documentErrorStatus(media string, errs gqlerror.List) int {
	if media == mediaJSON {
		return http.StatusOK
	}
	for _, e := range errs {
		if s, ok := e.Extensions["statusCode"].(int); ok && s >= 400 {
			return s
		}
	}
	return http.StatusBadRequest
}

// run runs a decoded request: a document longer than maxBytes (0: no
// limit) is refused 413 before it is parsed; a document that fails before
// execution is answered as documentErrorStatus says, without data; one
// that passes allowed runs and is answered 200 (field errors travel in the
// body). allowed refuses what the transport does not run (a mutation over
// GET).
func run(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, media string, params *graphql.RawParams,
	maxBytes int, allowed func(*ast.OperationDefinition) *gqlerror.Error,
) {
	if params.Query == "" {
		// No persisted queries here: a request without a document is not
		// a GraphQL request (gqlgen would answer "no operation provided"
		// as a document error).
		refuseRequest(w, r, exec, media, badRequest("the query parameter is required"))
		return
	}
	if maxBytes > 0 && len(params.Query) > maxBytes {
		// Like an oversized body, a request error (413 under either
		// media type): the document is not read, let alone run. The
		// token limit alone lets a document of comments or whitespace
		// through up to the body cap.
		refuseRequest(w, r, exec, media, documentTooLarge(maxBytes))
		return
	}
	params.Headers = r.Header
	ctx := r.Context()
	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		writeRequestErrors(w, media, documentErrorStatus(media, resp.Errors), resp)
		return
	}
	if allowed != nil {
		if err := allowed(rc.Operation); err != nil {
			if err.Extensions["statusCode"] == http.StatusMethodNotAllowed {
				w.Header().Set("Allow", "POST")
			}
			refuseRequest(w, r, exec, media, err)
			return
		}
	}
	w.Header().Set("Content-Type", contentType(media))
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, responses(ctx))
}

// decodeObject decodes a JSON object parameter (variables, extensions)
// that arrived as a string; "" is absent. It is read by the input gate, as
// bodies are.
func decodeObject(name, s string) (map[string]any, *gqlerror.Error) {
	if s == "" {
		return nil, nil
	}
	v, err := loupe.ReadJSON([]byte(s))
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		var le *loupe.Error
		if errors.As(err, &le) {
			return nil, badRequest("the %s parameter: %s", name, le.Message)
		}
		return nil, badRequest("the %s parameter must be a JSON object", name)
	}
	return m, nil
}

// decodeBody decodes a POST body into params; its errors are bad requests.
// The body is read by the input gate (loupe.ReadJSON: no key twice, bounded
// nesting); the parameters' types are checked here: query and operationName
// strings, variables and extensions objects, each of them or null.
func decodeBody(body []byte, params *graphql.RawParams) *gqlerror.Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("the request body is empty")
	}
	v, err := loupe.ReadJSON(body)
	if err != nil {
		var le *loupe.Error
		if errors.As(err, &le) {
			return badRequest("%s", le.Message)
		}
		return badRequest("the request body is not one JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return badRequest("the request body is not a JSON object")
	}
	for _, p := range []struct {
		name   string
		object bool
		set    func(any)
	}{
		{"query", false, func(v any) { params.Query = v.(string) }},
		{"operationName", false, func(v any) { params.OperationName = v.(string) }},
		{"variables", true, func(v any) { params.Variables = v.(map[string]any) }},
		{"extensions", true, func(v any) { params.Extensions = v.(map[string]any) }},
	} {
		v := m[p.name]
		if v == nil {
			continue
		}
		_, isObject := v.(map[string]any)
		_, isString := v.(string)
		if (p.object && !isObject) || (!p.object && !isString) {
			return badRequest("the %s parameter has the wrong type: %s", p.name, jsonKind(v))
		}
		p.set(v)
	}
	return nil
}

// jsonKind names a decoded JSON value's type as encoding/json's errors do.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// get is gqlgen's GET transport (same Supports), its parameters in the
// URL, answered per the spec as post is; a mutation (or subscription) is
// refused 405 before it runs.
type get struct {
	transport.GET
	maxBytes int // of the document (Options.MaxDocumentBytes)
}

func (g get) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	media, ok := negotiate(r.Header.Get("Accept"))
	if !ok {
		refuseRequest(w, r, exec, mediaJSON, notAcceptable())
		return
	}
	start := graphql.Now()
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		refuseRequest(w, r, exec, media, badRequest("the URL's query string does not decode: %v", err))
		return
	}
	params := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName")}
	var gerr *gqlerror.Error
	if params.Variables, gerr = decodeObject("variables", q.Get("variables")); gerr != nil {
		refuseRequest(w, r, exec, media, gerr)
		return
	}
	if params.Extensions, gerr = decodeObject("extensions", q.Get("extensions")); gerr != nil {
		refuseRequest(w, r, exec, media, gerr)
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	run(w, r, exec, media, params, g.maxBytes, queriesOnly)
}

// queriesOnly refuses what GET must not run: GET is safe, and a proxy or
// a browser's prefetch may send it again.
func queriesOnly(op *ast.OperationDefinition) *gqlerror.Error {
	if op.Operation != ast.Query {
		// The message is gqlgen's.
		return requestError(http.StatusMethodNotAllowed, codeMethodNotAllowed, "GET requests only allow query operations")
	}
	return nil
}

// documentTooLarge refuses a document longer than limit bytes, in the
// kind of an oversized body (PAYLOAD_TOO_LARGE, 413).
func documentTooLarge(limit int) *gqlerror.Error {
	return requestError(StatusOf(loupe.ETOOLARGE), CodeOf(loupe.ETOOLARGE),
		"The GraphQL document is larger than %d bytes.", limit)
}

func notAcceptable() *gqlerror.Error {
	return requestError(http.StatusNotAcceptable, codeNotAcceptable,
		"the Accept header admits neither %s nor %s", mediaJSON, mediaGraphQLResponse)
}

// options is gqlgen's OPTIONS answer (the allowed methods); a HEAD, which
// gqlgen's answers 405 without saying what is allowed, goes to refuse.
type options struct{ transport.Options }

func (options) Supports(r *http.Request) bool { return r.Method == http.MethodOptions }

// refuse takes what no other transport does, added last: a POST whose
// body is not application/json (415), any other method (405, with Allow).
// gqlgen would answer both 400 "transport not supported".
type refuse struct{}

func (refuse) Supports(*http.Request) bool { return true }

func (refuse) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	media, _ := negotiate(r.Header.Get("Accept"))
	if r.Method == http.MethodPost {
		refuseRequest(w, r, exec, media, requestError(http.StatusUnsupportedMediaType, codeUnsupportedMediaType,
			"the request body must be %s (Content-Type)", mediaJSON))
		return
	}
	w.Header().Set("Allow", allowedMethods)
	refuseRequest(w, r, exec, media, requestError(http.StatusMethodNotAllowed, codeMethodNotAllowed,
		"%s is not allowed; allowed: %s", r.Method, allowedMethods))
}
