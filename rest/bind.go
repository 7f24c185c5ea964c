package rest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe/store"
)

// A Binder moves what a request carries (path, query, body) into the
// variables of the route's stored operation. It returns a *store.Error for
// input it cannot use.
type Binder func(r *http.Request, vars map[string]any) error

// MsgInvalidSyntax is the spec's answer to a body that cannot be parsed.
const MsgInvalidSyntax = "The server could not understand the request due to invalid syntax."

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
		v, err := decodeBody(r)
		if err != nil {
			return err
		}
		if _, ok := v.(map[string]any); !ok {
			return store.Invalid("the request body must be a JSON object")
		}
		vars[name] = v
		return nil
	}
}

// decodeBody reads one JSON value; numbers stay json.Number so that large
// integers survive.
func decodeBody(r *http.Request) (any, error) {
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, store.Errorf(store.ETOOLARGE, "The request body is larger than %d bytes.", tooLarge.Limit)
		}
		return nil, store.Invalid(MsgInvalidSyntax)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, store.Invalid(MsgInvalidSyntax)
	}
	return v, nil
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
func queryInt(param, name string) Binder {
	return func(r *http.Request, vars map[string]any) error {
		v := r.URL.Query().Get(param)
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return store.Invalid("query parameter %s must be an integer, got %q", param, v)
		}
		vars[name] = n
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
