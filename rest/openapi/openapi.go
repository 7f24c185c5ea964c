// Package openapi writes the OpenAPI 3.1 document of the REST interface
// from what serves it, never by hand: the route table (paths, methods,
// statuses, the spec's error messages), the routes' binders (path and query
// parameters, bodies), the stored operations and the GraphQL schema (the
// answers' and bodies' schemas, every description). Only the envelope of
// spec section 7 and the security schemes are written here.
// docs/openapi.md says what is decided.
package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/resolvers"
	"github.com/loupe-mam/loupe/rest"
)

// Options are what the document says of one server's configuration.
type Options struct {
	// KeyHeaders are the operator's extra headers an API key is read from
	// (auth.Authenticator.KeyHeaders), each a security scheme.
	KeyHeaders []string
}

// obj is a JSON object of the document.
type obj = map[string]any

// Build writes the document.
func Build(opts Options) (obj, error) {
	b, err := newBuilder()
	if err != nil {
		return nil, err
	}
	paths := obj{}
	ids := map[string]int{}
	for _, rt := range rest.Routes {
		op, err := b.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s %s: %w", rt.Method, rt.Path, err)
		}
		// operationId is unique: a stored operation that two methods run
		// (setCustomIcons: PUT and PATCH) takes the method after the first.
		id := rt.Op
		if ids[id]++; ids[id] > 1 {
			id += strings.ToUpper(rt.Method[:1]) + strings.ToLower(rt.Method[1:])
		}
		op["operationId"] = id
		item, _ := paths[rt.Path].(obj)
		if item == nil {
			item = obj{}
			paths[rt.Path] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	factor(paths, b.components)
	schemes, security := securitySchemes(opts)
	b.components["Error"] = envelopeSchema
	return obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":   "Loupe REST API",
			"version": "v1",
			"description": "The REST interface of Loupe, a media asset management server. Every path runs a " +
				"stored operation of the GraphQL API (/graphql) and answers its data in the shapes of the " +
				"interface specification; errors are the envelope of its section 7. This document is " +
				"generated from the route table, the stored operations and the GraphQL schema.",
		},
		"servers":    []any{obj{"url": "/", "description": "This server"}},
		"paths":      paths,
		"components": obj{"schemas": b.components, "securitySchemes": schemes},
		"security":   security,
		"tags":       b.tags(),
	}, nil
}

// JSON is the document as JSON.
func JSON(opts Options) ([]byte, error) {
	doc, err := Build(opts)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(doc, "", "  ")
}

// builder holds what the document is written from.
type builder struct {
	schema     *ast.Schema
	ops        map[string]*ast.OperationDefinition
	fragments  map[string]*ast.FragmentDefinition
	components obj
	tagSet     map[string]bool
}

func newBuilder() (*builder, error) {
	b := &builder{
		schema:     graph.NewExecutableSchema(graph.Config{}).Schema(),
		ops:        map[string]*ast.OperationDefinition{},
		fragments:  map[string]*ast.FragmentDefinition{},
		components: obj{},
		tagSet:     map[string]bool{},
	}
	for _, src := range []*ast.Source{{Name: "rest", Input: rest.Document}, {Name: "records", Input: resolvers.RecordFragments}} {
		doc, err := parser.ParseQuery(src)
		if err != nil {
			return nil, err
		}
		for _, op := range doc.Operations {
			b.ops[op.Name] = op
		}
		for _, f := range doc.Fragments {
			b.fragments[f.Name] = f
		}
	}
	return b, nil
}

// operation is one route's Operation Object.
func (b *builder) operation(rt rest.Route) (obj, error) {
	op := b.ops[rt.Op]
	if op == nil {
		return nil, fmt.Errorf("no stored operation %s", rt.Op)
	}
	root := b.rootField(op)
	summary, description := summarize(root.Description)
	if rt.NotInSpec {
		description += "\n\nNot in the specification's endpoint list: a Loupe addition."
	}
	tag := tagOf(rt.Path)
	b.tagSet[tag] = true
	out := obj{"summary": summary, "tags": []string{tag}}

	answer, err := b.answer(op, rt.Field)
	if err != nil {
		return nil, err
	}
	if rt.Shape != nil {
		answer = reshape(answer, rt.Shape)
	}
	params := b.parameters(rt.Path, op, rt.Bind)
	bodies := []obj{}
	if s, required := b.requestBody(op, rt.Bind); s != nil {
		bodies = append(bodies, obj{"schema": s, "required": required})
	}
	if v := rt.Variant; v != nil {
		vop := b.ops[v.Op]
		if vop == nil {
			return nil, fmt.Errorf("no stored operation %s", v.Op)
		}
		vAnswer, err := b.answer(vop, v.Field)
		if err != nil {
			return nil, err
		}
		answer = obj{"anyOf": []any{answer, vAnswer}}
		vSummary, _ := summarize(b.rootField(vop).Description)
		params = append(params, obj{"name": v.Query, "in": "query", "schema": obj{"type": "string", "enum": []string{v.Value}},
			"description": fmt.Sprintf("With %s=%s the path runs %s instead: %s", v.Query, v.Value, v.Op, vSummary)})
		for _, p := range b.parameters(rt.Path, vop, v.Bind) {
			if !hasParam(params, p) {
				params = append(params, p)
			}
		}
		if s, required := b.requestBody(vop, v.Bind); s != nil {
			bodies = append(bodies, obj{"schema": s, "required": required})
		}
		description += fmt.Sprintf("\n\nWith %s=%s: %s", v.Query, v.Value, vSummary)
	}
	if strings.TrimSpace(description) != "" {
		out["description"] = strings.TrimSpace(description)
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if len(bodies) > 0 {
		s := bodies[0]["schema"]
		if len(bodies) > 1 {
			s = obj{"anyOf": []any{bodies[0]["schema"], bodies[1]["schema"]}}
		}
		out["requestBody"] = obj{"required": bodies[0]["required"],
			"content": obj{"application/json": obj{"schema": s}}}
	}
	if rt.NotInSpec {
		out["x-loupe-not-in-spec"] = true
	}
	status := rt.Status
	if status == 0 {
		status = http.StatusOK
	}
	responses := obj{fmt.Sprint(status): obj{"description": summary,
		"content": obj{"application/json": obj{"schema": answer}}}}
	for code, desc := range errorResponses(rt, len(bodies) > 0, len(params) > 0) {
		responses[code] = obj{"description": desc, "content": obj{"application/json": obj{"schema": ref("Error")}}}
	}
	out["responses"] = responses
	return out, nil
}

// rootField is the schema's definition of the one field op selects at its
// root (every stored operation selects one).
func (b *builder) rootField(op *ast.OperationDefinition) *ast.FieldDefinition {
	root := b.rootType(op)
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			if fd := root.Fields.ForName(f.Name); fd != nil {
				return fd
			}
		}
	}
	return &ast.FieldDefinition{}
}

func (b *builder) rootType(op *ast.OperationDefinition) *ast.Definition {
	if op.Operation == ast.Mutation {
		return b.schema.Mutation
	}
	return b.schema.Query
}

// summarize splits a description into its first sentence (the summary)
// and the rest.
func summarize(desc string) (string, string) {
	desc = strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(desc, ". "); i > 0 {
		return desc[:i+1], desc
	}
	return desc, ""
}

// tagOf groups a path by its first segment after api/v1.
func tagOf(p string) string {
	_, rest, _ := strings.Cut(p, "/api/v1/")
	tag, _, _ := strings.Cut(rest, "/")
	return tag
}

func (b *builder) tags() []any {
	names := make([]string, 0, len(b.tagSet))
	for n := range b.tagSet {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = obj{"name": n}
	}
	return out
}

var pathParam = regexp.MustCompile(`\{(\w+)\}`)

// parameters are the route's path parameters (every one of its template)
// and the query parameters its binder reads, each described by what the
// schema says of the argument or input field it lands in.
func (b *builder) parameters(path string, op *ast.OperationDefinition, bind rest.Binder) []obj {
	var out []obj
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		p := obj{"name": m[1], "in": "path", "required": true, "schema": obj{"type": "string"}}
		for _, x := range bind {
			if x.In == rest.InPath && x.Param == m[1] {
				if d := b.varDescription(op, x.Obj, x.Var); d != "" {
					p["description"] = d
				}
			}
		}
		out = append(out, p)
	}
	for _, x := range bind {
		if x.In != rest.InQuery {
			continue
		}
		s := obj{"type": string(x.Type)}
		switch {
		case x.Type == rest.TypeList:
			s["items"] = obj{"type": "string"}
		case x.Enum != nil:
			s["enum"] = x.Enum
		}
		if x.Default != nil {
			s["default"] = x.Default
		}
		desc := b.varDescription(op, x.Obj, x.Var)
		names := append([]string{x.Param}, x.Spellings...)
		if x.Type == rest.TypeList {
			desc = strings.TrimSpace(desc + " Repeated (?" + x.Param + "=a&" + x.Param + "=b) or comma separated.")
		}
		if x.Required && len(names) > 1 {
			// Either spelling will do: neither is required alone.
			desc = strings.TrimSpace(desc + " Required under one of the names " + strings.Join(names, ", ") +
				" (their values are taken together).")
		}
		for _, name := range names {
			p := obj{"name": name, "in": "query", "schema": s}
			if x.Required && len(names) == 1 {
				p["required"] = true
			}
			if x.Type == rest.TypeList {
				p["style"], p["explode"] = "form", true
			}
			if desc != "" {
				p["description"] = desc
			}
			if !hasParam(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func hasParam(list []obj, p obj) bool {
	return slices.ContainsFunc(list, func(q obj) bool { return q["name"] == p["name"] && q["in"] == p["in"] })
}

// requestBody is the schema of the body bind reads, and whether a body is
// required; nil when it reads none.
func (b *builder) requestBody(op *ast.OperationDefinition, bind rest.Binder) (obj, bool) {
	var body *rest.Body
	var bound []string // keys of the body's object that the path or query set
	for _, x := range bind {
		if x.In == rest.InBody {
			body = x.Body
		}
	}
	if body == nil {
		return nil, false
	}
	for _, x := range bind {
		if x.In != rest.InBody && x.Obj != "" && x.Obj == body.Var {
			bound = append(bound, x.Var)
		}
	}
	if body.Schema != "" {
		var s obj
		if err := json.Unmarshal([]byte(body.Schema), &s); err != nil {
			panic(fmt.Sprintf("openapi: a body schema does not parse: %v", err)) // a literal of the rest package; its test fails first
		}
		b.emitRefs(s)
		return s, !body.Optional
	}
	name := body.Var
	if body.Obj != "" {
		name = body.Obj
	}
	vd := op.VariableDefinitions.ForName(name)
	if vd == nil {
		return obj{}, !body.Optional
	}
	t := vd.Type
	if body.Obj != "" {
		if f := b.schema.Types[t.Name()].Fields.ForName(body.Var); f != nil {
			t = f.Type
		}
	}
	var s obj
	if def := b.schema.Types[t.Name()]; t.Elem == nil && def.Kind == ast.InputObject {
		s = b.inputObject(def, bound)
		for _, k := range body.Ignored {
			s["properties"].(obj)[k] = obj{"description": "Answered by reads; accepted and ignored, so that a record read can be written back."}
		}
	} else {
		s = b.input(&ast.Type{NamedType: t.NamedType, Elem: t.Elem, NonNull: true})
	}
	if body.Key != "" {
		wrapped := obj{"type": "object", "required": []string{body.Key}, "additionalProperties": false,
			"properties": obj{body.Key: s}}
		if body.AlsoBare {
			return obj{"anyOf": []any{wrapped, s}}, !body.Optional
		}
		return wrapped, !body.Optional
	}
	return s, !body.Optional
}

// varDescription is what the schema says of where a variable lands: the
// input field name of the variable obj's input type, or the argument the
// variable name is passed to.
func (b *builder) varDescription(op *ast.OperationDefinition, objVar, name string) string {
	if objVar != "" {
		if vd := op.VariableDefinitions.ForName(objVar); vd != nil {
			if f := b.schema.Types[vd.Type.Name()].Fields.ForName(name); f != nil {
				return oneLine(f.Description)
			}
		}
		return ""
	}
	var found string
	var walk func(parent *ast.Definition, set ast.SelectionSet)
	walk = func(parent *ast.Definition, set ast.SelectionSet) {
		for _, sel := range set {
			if found != "" {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				fd := parent.Fields.ForName(s.Name)
				if fd == nil {
					continue
				}
				for _, a := range s.Arguments {
					if a.Value.Kind == ast.Variable && a.Value.Raw == name {
						if ad := fd.Arguments.ForName(a.Name); ad != nil {
							found = oneLine(ad.Description)
							return
						}
					}
				}
				walk(b.schema.Types[fd.Type.Name()], s.SelectionSet)
			case *ast.FragmentSpread:
				if f := b.fragments[s.Name]; f != nil {
					walk(b.schema.Types[f.TypeCondition], f.SelectionSet)
				}
			case *ast.InlineFragment:
				walk(parent, s.SelectionSet)
			}
		}
	}
	walk(b.rootType(op), op.SelectionSet)
	return found
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// errorResponses are the error statuses a route answers, with what the
// spec (section 7) and the route table say of each.
func errorResponses(rt rest.Route, hasBody, hasParams bool) map[string]string {
	out := map[string]string{
		"401":     loupe.MsgUnauthenticated + " (no credential, or one that is not valid)",
		"403":     "The caller may not do this (the tenant's admins' or the item's access).",
		"404":     loupe.MsgNotFound + " Another tenant's resource answers exactly like a missing one.",
		"500":     graph.MsgInternal,
		"default": "Any other error, in the same envelope (409 for a conflict, 429 when busy, 502 for a failing service).",
	}
	if hasBody || hasParams {
		bad := "Bad input: message says what, and nothing changed."
		if rt.Invalid != "" {
			bad = fmt.Sprintf("Bad input: message %q, the problem in developerMessage; nothing changed.", rt.Invalid)
		}
		if rt.InvalidEcho != "" {
			bad = fmt.Sprintf("Bad input: message %q followed by the body received, the problem in developerMessage.", rt.InvalidEcho)
		}
		if rt.NoBody != nil && rt.NoBody.Kind == loupe.EINVALID {
			bad += fmt.Sprintf(" Without a body: %q.", rt.NoBody.Message)
		}
		out["400"] = bad
	}
	if hasBody {
		out["413"] = "The body is larger than the server's limit."
	}
	if rt.BadBody != nil {
		out["500"] = fmt.Sprintf("A body that is not JSON: %q (the specification's answer); else %s", rt.BadBody.Message, graph.MsgInternal)
	}
	if rt.NoBody != nil && rt.NoBody.Kind == loupe.EINTERNAL {
		out["500"] = fmt.Sprintf("Without a body: %q (the specification's answer); else %s", rt.NoBody.Message, graph.MsgInternal)
	}
	return out
}

// envelopeSchema is the error body of spec section 7.
var envelopeSchema = obj{
	"type":        "object",
	"description": "The error envelope of the specification's section 7.",
	"required":    []string{"error"},
	"properties": obj{"error": obj{
		"type":     "object",
		"required": []string{"statusCode", "message"},
		"properties": obj{
			"statusCode":       obj{"type": "integer", "description": "The HTTP status, again."},
			"message":          obj{"type": "string", "description": "What went wrong, for a person; the specification's message where it prescribes one."},
			"developerMessage": obj{"type": "string", "description": "The specific problem, where message is the specification's general one."},
			"payload": obj{"type": "object", "description": "Details: messages (strings), debug (error kind names), code, key, message, requestID.",
				"additionalProperties": true},
		},
		"additionalProperties": false,
	}},
	"additionalProperties": false,
}

// securitySchemes are the credentials every path takes (spec section 5;
// docs/security.md), any one of them.
func securitySchemes(opts Options) (obj, []any) {
	schemes := obj{
		"apiKey": obj{"type": "http", "scheme": "bearer", "bearerFormat": "<prefix>.<keyId>.<secret>",
			"description": "An API key (the apiKeyHeaderValue POST /auth/api/v1/keys answers) as Authorization: Bearer <key>."},
		"apiKeyHeader": obj{"type": "apiKey", "in": "header", "name": "X-API-Key",
			"description": "An API key in the X-API-Key header."},
		"jwt": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
			"description": "A token of the tenant's identity provider (the security settings' jwksUrl), with the tenant's id in the " +
				auth.TenantHeader + " header."},
	}
	security := []any{obj{"apiKey": []string{}}, obj{"apiKeyHeader": []string{}}, obj{"jwt": []string{}}}
	for _, h := range opts.KeyHeaders {
		name := "keyHeader" + strings.ReplaceAll(h, "-", "")
		schemes[name] = obj{"type": "apiKey", "in": "header", "name": h,
			"description": "An API key in the " + h + " header (the operator's LOUPE_API_KEY_HEADERS), with or without Bearer."}
		security = append(security, obj{name: []string{}})
	}
	return schemes, security
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }
