package rest

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
)

// A Binder is what a route reads from a request — path parameters, query
// parameters, a body — and where each goes among the variables of its
// stored operation. It is data: the handler runs it (Bind) and the OpenAPI
// document describes it (openapi.go), from the same values, so that the
// document's parameters are the ones the route reads.
type Binder []Binding

// Binding is one thing a route reads.
type Binding struct {
	In In
	// Param is the path or query parameter; Spellings the other names a
	// list query parameter is also read under.
	Param     string
	Spellings []string
	Type      ParamType
	// Enum are the values an enum parameter takes.
	Enum []string
	// Required refuses a request without the parameter; Default is bound
	// when it is absent.
	Required bool
	Default  any
	// Check validates the parameter before it is bound, so that the client
	// gets the domain's message rather than the schema's.
	Check func(string) error
	// Obj and Var are where the value goes: vars[Var], or the key Var of
	// the object vars[Obj]. A binding with no Var only checks.
	Obj, Var string
	// Body reads the body (In == InBody).
	Body *Body
}

// In is where a binding reads.
type In string

// Where bindings read.
const (
	InPath  In = "path"
	InQuery In = "query"
	InBody  In = "body"
)

// ParamType is a parameter's type, as the document names it.
type ParamType string

// The parameter types.
const (
	TypeString  ParamType = "string"
	TypeInteger ParamType = "integer"
	TypeBoolean ParamType = "boolean"
	TypeList    ParamType = "array"
)

// Body is how a binding reads the body. The document's schema of it is the
// GraphQL input type of the variable it lands in (Var, or the field Var of
// the variable Obj; Key wraps it as {Key: value}), unless Schema gives it.
type Body struct {
	// Var, Obj and Key: where the body lands (see above).
	Var, Obj, Key string
	// Schema is the JSON Schema of a body whose shape is not an input
	// type's (JSON; "#/components/schemas/<Input>" names input types).
	Schema string
	// AlsoBare: the value is also taken without its Key around it.
	AlsoBare bool
	// Ignored are keys the body may carry that are dropped (those of a
	// read, written back).
	Ignored []string
	// Optional: an empty body is read as {} (else it is refused).
	Optional bool
	read     func(r *http.Request, vars map[string]any) error
}

// Bind moves what r carries into vars, or answers why it cannot.
func (b Binder) Bind(r *http.Request, vars map[string]any) error {
	for _, x := range b {
		if err := x.bind(r, vars); err != nil {
			return err
		}
	}
	return nil
}

func (x Binding) bind(r *http.Request, vars map[string]any) error {
	switch x.In {
	case InPath:
		set(vars, x.Obj, x.Var, chi.URLParam(r, x.Param))
		return nil
	case InBody:
		return x.Body.read(r, vars)
	}
	if x.Type == TypeList {
		list := queryValues(r, append([]string{x.Param}, x.Spellings...))
		if len(list) == 0 {
			if x.Required {
				return loupe.Invalid("query parameter %s is required", x.Param)
			}
			return nil
		}
		set(vars, x.Obj, x.Var, list)
		return nil
	}
	v := r.URL.Query().Get(x.Param)
	if v == "" {
		if x.Default != nil {
			set(vars, x.Obj, x.Var, x.Default)
		}
		return nil
	}
	if x.Check != nil {
		if err := x.Check(v); err != nil {
			return err
		}
	}
	if x.Var == "" {
		return nil
	}
	switch {
	case x.Type == TypeInteger:
		n, err := strconv.Atoi(v)
		if err != nil {
			return loupe.Invalid("query parameter %s must be an integer, got %q", x.Param, v)
		}
		set(vars, x.Obj, x.Var, n)
	case x.Type == TypeBoolean:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return loupe.Invalid("query parameter %s must be true or false, got %q", x.Param, v)
		}
		set(vars, x.Obj, x.Var, b)
	case x.Enum != nil && !slices.Contains(x.Enum, v):
		return loupe.Invalid("query parameter %s must be one of %s, got %q", x.Param, strings.Join(x.Enum, ", "), v)
	default:
		set(vars, x.Obj, x.Var, v)
	}
	return nil
}

// MsgInvalidSyntax is the spec's answer to a body that cannot be parsed.
const MsgInvalidSyntax = loupe.MsgInvalidSyntax

// errUnparsable is the error for a body that is not JSON; a route may answer
// it differently (Route.BadBody).
var errUnparsable = loupe.Invalid(MsgInvalidSyntax)

// typeError is the spec's answer on the paths where an unparsable body is a
// 500 TypeError (section 7).
var typeError = &loupe.Error{Kind: loupe.EINTERNAL, Message: "TypeError"}

// all is the bindings of bs, in order.
func all(bs ...Binder) Binder { return slices.Concat(bs...) }

// path binds the path parameter param to the variable name.
func path(param, name string) Binder { return pathInto(param, "", name) }

// pathInto binds a path parameter to a key of the object vars[obj]; bound
// after the body, the path wins over anything the body says.
func pathInto(param, obj, name string) Binder {
	return Binder{{In: InPath, Param: param, Type: TypeString, Required: true, Obj: obj, Var: name}}
}

// query binds the query parameter param of type typ, when present, to
// vars[name] (or to a key of the object vars[obj] when obj is not empty).
func query(typ ParamType, param, obj, name string) Binder {
	return Binder{{In: InQuery, Param: param, Type: typ, Obj: obj, Var: name}}
}

// queryString, queryInt and queryBool bind a query parameter of their type.
func queryString(param, obj, name string) Binder { return query(TypeString, param, obj, name) }
func queryInt(param, obj, name string) Binder    { return query(TypeInteger, param, obj, name) }
func queryBool(param, obj, name string) Binder   { return query(TypeBoolean, param, obj, name) }

// queryStringOr binds a string query parameter, or def when it is absent.
func queryStringOr(param, obj, name string, def string) Binder {
	b := queryString(param, obj, name)
	b[0].Default = def
	return b
}

// queryEnum binds a query parameter that must be one of values, when present.
func queryEnum(param, name string, values ...string) Binder {
	b := queryString(param, "", name)
	b[0].Enum = values
	return b
}

// checked is the string query parameter binding b whose value check
// validates first.
func checked(b Binder, check func(string) error) Binder {
	b[0].Check = check
	return b
}

// queryList binds a required list query parameter: repeated (?id=a&id=b)
// or comma separated (?ids=a,b), under any of the given spellings.
func queryList(name string, params ...string) Binder {
	b := queryOptionalList("", name, params...)
	b[0].Required = true
	return b
}

// queryOptionalList binds a list query parameter, when present: repeated
// (?type=a&type=b) or comma separated (?types=a,b), under any of the given
// spellings, to vars[name] (or a key of the object vars[obj]).
func queryOptionalList(obj, name string, params ...string) Binder {
	return Binder{{In: InQuery, Param: params[0], Spellings: params[1:], Type: TypeList, Obj: obj, Var: name}}
}

// queryValues collects a list query parameter's values under any of its
// spellings, repeated or comma separated.
func queryValues(r *http.Request, params []string) []any {
	list := []any{}
	for _, p := range params {
		for _, v := range r.URL.Query()[p] {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					list = append(list, part)
				}
			}
		}
	}
	return list
}

// body is a binding reading the body with read; the document describes it
// as where it lands (b) says.
func body(b Body, read func(r *http.Request, vars map[string]any) error) Binder {
	b.read = read
	return Binder{{In: InBody, Body: &b}}
}

// bodyAs binds the JSON object body to the variable name (an empty body is
// not JSON: refused).
func bodyAs(name string) Binder {
	return body(Body{Var: name}, func(r *http.Request, vars map[string]any) error {
		m, err := bodyObject(r)
		if err != nil {
			return err
		}
		vars[name] = m
		return nil
	})
}

// decodeBody reads one JSON value through the input gate (loupe.ReadJSON):
// UTF-8, no key twice, bounded nesting; numbers stay json.Number so that
// large integers survive.
func decodeBody(r *http.Request) (any, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, loupe.Errorf(loupe.ETOOLARGE, "The request body is larger than %d bytes.", tooLarge.Limit)
		}
		return nil, errUnparsable
	}
	v, err := loupe.ReadJSON(b)
	if errors.Is(err, loupe.ErrJSONSyntax) {
		return nil, errUnparsable
	}
	return v, err
}

// bodyObject reads a JSON object body.
func bodyObject(r *http.Request) (map[string]any, error) {
	v, err := decodeBody(r)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, loupe.Invalid("the request body must be a JSON object")
	}
	return m, nil
}

// bodyKeyInto binds one key of the JSON object body (required) to a key of
// the object vars[obj]; the body may hold nothing else.
func bodyKeyInto(key, obj, name string) Binder {
	return body(Body{Var: name, Obj: obj, Key: key}, func(r *http.Request, vars map[string]any) error {
		m, err := bodyObject(r)
		if err != nil {
			return err
		}
		v, ok := m[key]
		if !ok {
			return loupe.Invalid("the request body needs %s", key)
		}
		if err := onlyKeys(m, key); err != nil {
			return err
		}
		set(vars, obj, name, v)
		return nil
	})
}

func set(vars map[string]any, obj, name string, v any) {
	if obj == "" {
		vars[name] = v
		return
	}
	m, _ := vars[obj].(map[string]any)
	if m == nil {
		m = map[string]any{}
		vars[obj] = m
	}
	m[name] = v
}

// bodyArrayAs binds a JSON array body to the variable name.
func bodyArrayAs(name string) Binder {
	return body(Body{Var: name}, func(r *http.Request, vars map[string]any) error {
		v, err := decodeBody(r)
		if err != nil {
			return err
		}
		if _, ok := v.([]any); !ok {
			return loupe.Invalid("the request body must be a JSON array")
		}
		vars[name] = v
		return nil
	})
}

// expectedBody binds the JSON object body to the variable name; a missing
// (empty) body answers the spec's 500 "Expected body" (section 7, ingest
// configuration create).
func expectedBody(name string) Binder {
	return bodyOr(name, func() error { return errExpectedBody })
}

// MsgExpectedBody is the spec's 500 to an ingest configuration create
// without a body.
const MsgExpectedBody = "Expected body"

// errExpectedBody is that answer.
var errExpectedBody = &loupe.Error{Kind: loupe.EINTERNAL, Message: MsgExpectedBody}

// MsgMissingBody is the spec's answer to a security settings write
// without a body (section 7).
const MsgMissingBody = "Missing request body."

// requiredBodyAs is bodyAs where an empty body is the spec's 400 "Missing
// request body.".
func requiredBodyAs(name string) Binder {
	return bodyOr(name, func() error { return loupe.Invalid(MsgMissingBody) })
}

// optionalBodyAs is bodyAs where an empty body means {} (migrateMediaLocation:
// "an empty body means to the current default").
func optionalBodyAs(name string) Binder { return bodyOr(name, nil) }

// bodyOr is bodyAs with an empty body answered by empty's error (nil:
// bound as {}).
func bodyOr(name string, empty func() error) Binder {
	object := bodyAs(name)[0].Body.read
	return body(Body{Var: name, Optional: empty == nil}, func(r *http.Request, vars map[string]any) error {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return loupe.Errorf(loupe.ETOOLARGE, "The request body is larger than %d bytes.", tooLarge.Limit)
			}
			return errUnparsable
		}
		if len(bytes.TrimSpace(b)) == 0 {
			if empty != nil {
				return empty()
			}
			b = []byte("{}")
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		return object(r, vars)
	})
}
