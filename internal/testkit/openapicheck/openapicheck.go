// Package openapicheck holds every REST answer the end-to-end tests receive
// to the OpenAPI document the server publishes (rest/openapi): a status the
// operation does not list, or a body its schema does not accept, fails the
// test. It uses kin-openapi's openapi3filter, not Loupe's own reading of
// the document.
package openapicheck

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/loupe-mam/loupe/rest/openapi"
)

// document is the document as the server writes it, loaded and validated
// once, with its operations by method and path template.
var document = sync.OnceValues(func() (*checker, error) {
	b, err := openapi.JSON(openapi.Options{})
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	c := &checker{doc: doc}
	for tmpl, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, r := range op.Responses.Map() {
				for _, mt := range r.Value.Content {
					inline(mt.Schema, 0)
				}
			}
			c.ops = append(c.ops, operation{method: method, segs: strings.Split(tmpl, "/"),
				route: &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: op}})
		}
	}
	return c, nil
})

type checker struct {
	doc *openapi3.T
	ops []operation
	// passed are the answers already found to match, by operation, status
	// and body: kin-openapi compiles the schema on every validation, and
	// the suites receive the same answer (an envelope, an empty list)
	// thousands of times.
	passed sync.Map
}

// maxPassed bounds the answers remembered.
const maxPassed = 200_000

var passedCount atomic.Int64

type operation struct {
	method string
	segs   []string
	route  *routers.Route
}

// match finds the operation of a request: its method, and the template
// matching its path with the most literal segments (POST
// /api/v1/folders/ancestry is not /api/v1/folders/{folderId}).
func (c *checker) match(method, path string) (*routers.Route, map[string]string) {
	segs := strings.Split(path, "/")
	var best *operation
	var bestParams map[string]string
	bestLiterals := -1
	for i := range c.ops {
		op := &c.ops[i]
		if op.method != method || len(op.segs) != len(segs) {
			continue
		}
		params, literals := map[string]string{}, 0
		ok := true
		for j, s := range op.segs {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				if segs[j] == "" {
					ok = false
					break
				}
				params[s[1:len(s)-1]] = segs[j]
				continue
			}
			if s != segs[j] {
				ok = false
				break
			}
			literals++
		}
		if ok && literals > bestLiterals {
			best, bestParams, bestLiterals = op, params, literals
		}
	}
	if best == nil {
		return nil, nil
	}
	return best.route, bestParams
}

// Response checks one answer to req against the document. Paths the
// document does not list (the absent paths of the spec, uploads, the
// GraphQL endpoint) are not checked.
func Response(req *http.Request, status int, header http.Header, body []byte) error {
	c, err := document()
	if err != nil {
		return fmt.Errorf("the OpenAPI document does not load: %w", err)
	}
	route, params := c.match(req.Method, req.URL.EscapedPath())
	if route == nil {
		return nil
	}
	sum := sha256.Sum256(body)
	key := fmt.Sprintf("%s %s %d %x", route.Method, route.Path, status, sum[:16])
	if _, ok := c.passed.Load(key); ok {
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		msg := err.Error()
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		return fmt.Errorf("%s %s answered %d, which the OpenAPI document (%s %s) does not allow: %s",
			req.Method, req.URL.Path, status, route.Method, route.Path, msg)
	}
	if passedCount.Add(1) <= maxPassed {
		c.passed.Store(key, struct{}{})
	}
	return nil
}

// inline makes an answer's schema refer to no component (answers are
// finite selections: their components never refer to themselves). With a
// $ref left in it, kin-openapi v0.153 validates with its OpenAPI 3.0
// validator, which reads type ["string", "null"] as not nullable; inlined,
// it uses the JSON Schema 2020-12 validator OpenAPI 3.1 calls for.
func inline(r *openapi3.SchemaRef, depth int) {
	if r == nil || r.Value == nil {
		return
	}
	if depth > 64 {
		panic("openapicheck: an answer's schema refers to itself")
	}
	r.Ref = ""
	s := r.Value
	for _, p := range s.Properties {
		inline(p, depth+1)
	}
	inline(s.Items, depth+1)
	inline(s.AdditionalProperties.Schema, depth+1)
	inline(s.Not, depth+1)
	for _, l := range []openapi3.SchemaRefs{s.AnyOf, s.OneOf, s.AllOf} {
		for _, x := range l {
			inline(x, depth+1)
		}
	}
}
