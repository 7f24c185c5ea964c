package rest

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
)

// A Binder moves what a request carries (path, query, body) into the
// variables of the route's stored operation. It returns a *store.Error for
// input it cannot use.
type Binder func(r *http.Request, vars map[string]any) error

// MsgInvalidSyntax is the spec's answer to a body that cannot be parsed.
const MsgInvalidSyntax = loupe.MsgInvalidSyntax

// errUnparsable is the error for a body that is not JSON; a route may answer
// it differently (Route.BadBody).
var errUnparsable = loupe.Invalid(MsgInvalidSyntax)

// typeError is the spec's answer on the paths where an unparsable body is a
// 500 TypeError (section 7).
var typeError = &loupe.Error{Kind: loupe.EINTERNAL, Message: "TypeError"}

// all runs binders in order.
func all(bs ...Binder) Binder {
	return func(r *http.Request, vars map[string]any) error {
		for _, b := range bs {
			if err := b(r, vars); err != nil {
				return err
			}
		}
		return nil
	}
}

// path binds the path parameter param to the variable name.
func path(param, name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		vars[name] = chi.URLParam(r, param)
		return nil
	}
}

// bodyAs binds the JSON object body to the variable name.
func bodyAs(name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		m, err := bodyObject(r)
		if err != nil {
			return err
		}
		vars[name] = m
		return nil
	}
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

// queryString binds query parameter param, when present, to vars[name] (or
// to a key of the object vars[obj] when obj is not empty).
func queryString(param, obj, name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		if v := r.URL.Query().Get(param); v != "" {
			set(vars, obj, name, v)
		}
		return nil
	}
}

// queryInt binds an integer query parameter, when present.
func queryInt(param, obj, name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		v := r.URL.Query().Get(param)
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return loupe.Invalid("query parameter %s must be an integer, got %q", param, v)
		}
		set(vars, obj, name, n)
		return nil
	}
}

// queryBool binds a boolean query parameter, when present.
func queryBool(param, obj, name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		v := r.URL.Query().Get(param)
		if v == "" {
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return loupe.Invalid("query parameter %s must be true or false, got %q", param, v)
		}
		set(vars, obj, name, b)
		return nil
	}
}

// queryList binds a list query parameter: repeated (?id=a&id=b) or comma
// separated (?ids=a,b), under any of the given spellings.
func queryList(name string, params ...string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		list := queryValues(r, params)
		if len(list) == 0 {
			return loupe.Invalid("query parameter %s is required", params[0])
		}
		vars[name] = list
		return nil
	}
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

// queryDefault binds a fixed value when the query parameter is absent.
func queryDefault(param, obj, name string, v any) Binder {
	return func(r *http.Request, vars map[string]any) error {
		if r.URL.Query().Get(param) == "" {
			set(vars, obj, name, v)
		}
		return nil
	}
}

// pathInto binds a path parameter to a key of the object vars[obj]; bound
// after the body, the path wins over anything the body says.
func pathInto(param, obj, name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		set(vars, obj, name, chi.URLParam(r, param))
		return nil
	}
}

// constInto binds a fixed value to a key of the object vars[obj].
func constInto(obj, name string, v any) Binder {
	return func(_ *http.Request, vars map[string]any) error {
		set(vars, obj, name, v)
		return nil
	}
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
	return func(r *http.Request, vars map[string]any) error {
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
	}
}

// queryCheck validates a query parameter, when present, before it is bound,
// so that the client gets the domain's message rather than the schema's.
func queryCheck(param string, check func(string) error) Binder {
	return func(r *http.Request, _ map[string]any) error {
		if v := r.URL.Query().Get(param); v != "" {
			return check(v)
		}
		return nil
	}
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
	return func(r *http.Request, vars map[string]any) error {
		v, err := decodeBody(r)
		if err != nil {
			return err
		}
		if _, ok := v.([]any); !ok {
			return loupe.Invalid("the request body must be a JSON array")
		}
		vars[name] = v
		return nil
	}
}

// queryEnum binds a query parameter that must be one of values, when present.
func queryEnum(param, name string, values ...string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		v := r.URL.Query().Get(param)
		if v == "" {
			return nil
		}
		for _, ok := range values {
			if v == ok {
				vars[name] = v
				return nil
			}
		}
		return loupe.Invalid("query parameter %s must be one of %s, got %q", param, strings.Join(values, ", "), v)
	}
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
	return func(r *http.Request, vars map[string]any) error {
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
		return bodyAs(name)(r, vars)
	}
}
