// Package rest serves the spec's REST interface by running stored GraphQL
// documents through the same executor as /graphql, in-process.
package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
)

// Mount registers every route of the table on r, each through mw (the
// authentication and loader middleware).
func Mount(r chi.Router, exec *executor.Executor, mw ...func(http.Handler) http.Handler) {
	g := r.With(mw...)
	for _, rt := range Routes {
		g.Method(rt.Method, rt.Path, handler(exec, rt))
	}
}

// handler runs one route: bind, execute the stored operation, answer the
// field of its data, or the spec's envelope built from the first error.
func handler(exec *executor.Executor, rt Route) http.HandlerFunc {
	field := fieldPath(rt.Field)
	sole := soleFields(rt.Op, field)
	var variantField []string
	var variantSole int
	if rt.Variant != nil {
		variantField = fieldPath(rt.Variant.Field)
		variantSole = soleFields(rt.Variant.Op, variantField)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		invalid := func() string { return rt.Invalid }
		if rt.InvalidEcho != "" {
			invalid = echoBody(r, rt.InvalidEcho)
		}
		op, bind, field, sole := rt.Op, rt.Bind, field, sole
		if rt.Variant != nil && rt.Variant.when(r) {
			op, bind, field, sole = rt.Variant.Op, rt.Variant.Bind, variantField, variantSole
		}
		vars := map[string]any{}
		if bind != nil {
			if err := bind.Bind(r, vars); err != nil {
				if err == errUnparsable && rt.BadBody != nil {
					err = rt.BadBody
				}
				writeEnvelope(w, envelopeOf(err), invalid())
				return
			}
		}
		ctx := graphql.StartOperationTrace(r.Context())
		oc, errs := exec.CreateOperationContext(ctx, &graphql.RawParams{
			Query: Document, OperationName: op, Variables: vars,
		})
		if errs != nil {
			resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
			writeEnvelope(w, envelopeOfGraphQL(resp.Errors[0]), invalid())
			return
		}
		respond, ctx := exec.DispatchOperation(ctx, oc)
		resp := respond(ctx)
		if len(resp.Errors) > 0 {
			writeEnvelope(w, envelopeOfGraphQL(resp.Errors[0]), invalid())
			return
		}
		body, err := pick(resp.Data, field, sole)
		if err != nil || bytes.Equal(body, []byte("null")) {
			WriteError(w, loupe.NotFound())
			return
		}
		if rt.Shape != nil {
			if body, err = rt.Shape.apply(body); err != nil {
				WriteError(w, err)
				return
			}
		}
		writeRaw(w, rt.status(), body)
	}
}

// soleField is the value of an object whose one key is f, cut without
// decoding: a stored operation selects one top-level field, and gqlgen
// writes it compact, so the data is {"f":<value>}. Decoding a large answer
// into a map only to re-encode one value cost a tenth of a folder content
// request. With known, the object is known to have one key (the
// operation's); else the value is checked to be one JSON value. ok is false
// for any other shape (pick then decodes).
func soleField(data []byte, f string, known bool) (json.RawMessage, bool) {
	n := len(f) + 4 // {"f":
	if len(data) < n+2 || data[0] != '{' || data[1] != '"' || string(data[2:2+len(f)]) != f ||
		data[2+len(f)] != '"' || data[3+len(f)] != ':' || data[len(data)-1] != '}' {
		return nil, false
	}
	v := data[n : len(data)-1]
	// Valid only if v is one JSON value: with another key after it, v
	// would read `1,"other":2`.
	if !known && !json.Valid(v) {
		return nil, false
	}
	return v, true
}

func fieldPath(f string) []string {
	if f == "" {
		return nil
	}
	return strings.Split(f, ".")
}

// pick returns the value at a field path of a data object, as raw JSON.
// The objects of the first sole steps are known to hold one key each
// (soleFields), as gqlgen writes them.
func pick(data json.RawMessage, path []string, sole int) (json.RawMessage, error) {
	for i, f := range path {
		if v, ok := soleField(data, f, i < sole); ok {
			data = v
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, err
		}
		data = obj[f]
	}
	if data == nil {
		return json.RawMessage("null"), nil
	}
	return data, nil
}

// A Shape rewrites an answer where the spec's shape is one GraphQL cannot
// have. It is one of the types below, which the OpenAPI document reads too.
type Shape interface {
	apply(json.RawMessage) (json.RawMessage, error)
}

// KeyedByID reshapes [{id, <Field>}] into {<id>: <Field>}, keeping order.
type KeyedByID struct{ Field string }

func (k KeyedByID) apply(list json.RawMessage) (json.RawMessage, error) {
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(list, &entries); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e["id"])
		b.WriteByte(':')
		b.Write(e[k.Field])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// OmitNullInCollection leaves keys out of the entries of
// {_embedded: {collection: [entry]}} where they are null: the spec marks
// them "or absent", and clients read an absent key, not a null one. The
// other keys of an entry, and their order, stay as gqlgen wrote them.
type OmitNullInCollection struct{ Keys []string }

func (o OmitNullInCollection) apply(body json.RawMessage) (json.RawMessage, error) {
	omit := make(map[string]bool, len(o.Keys))
	for _, k := range o.Keys {
		omit[k] = true
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(body, &outer); err != nil {
		return nil, err
	}
	var embedded map[string]json.RawMessage
	if err := json.Unmarshal(outer["_embedded"], &embedded); err != nil {
		return nil, err
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(embedded["collection"], &entries); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(body))
	b.WriteString(`{"_embedded":{"collection":[`)
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeOmittingNull(&b, e, omit); err != nil {
			return nil, err
		}
	}
	b.WriteString(`]}}`)
	return b.Bytes(), nil
}

// writeOmittingNull writes the JSON object obj without those of omit's
// keys whose value is null, in its order.
func writeOmittingNull(b *bytes.Buffer, obj json.RawMessage, omit map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("rest: not an object: %.40s", obj)
	}
	b.WriteByte('{')
	first := true
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key := t.(string) // an object's keys are strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if omit[key] && bytes.Equal(v, []byte("null")) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}

// maxEcho bounds how much of a body an error message quotes.
const maxEcho = 1024

// echoBody keeps the first maxEcho bytes of the request body as the route
// reads it, and answers the message prefix followed by them.
func echoBody(r *http.Request, prefix string) func() string {
	var seen bytes.Buffer
	body := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(body, &limitedWriter{&seen, maxEcho + 1}), body}
	return func() string {
		io.Copy(io.Discard, io.LimitReader(r.Body, maxEcho+1)) //nolint:errcheck // quote what can be read
		b := seen.Bytes()
		if len(b) > maxEcho {
			return prefix + string(bytes.ToValidUTF8(b[:maxEcho], nil)) + "…"
		}
		return prefix + string(b)
	}
}

// limitedWriter keeps at most n bytes and drops the rest.
type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
