package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// An answer's schema is written inline, from its operation's selection;
// many operations select a type the same way (an item record, a folder).
// factor names each object shape that occurs more than once a component,
// after its GraphQL type (Folder, Folder2 for a second selection of it),
// so that the document and the clients generated from it say it once.

// graphqlType is the key object writes a schema's GraphQL type under, for
// factor; it does not reach the document.
const graphqlType = "x-graphql-type"

// factor moves the repeated object schemas under paths into components.
func factor(paths obj, components obj) {
	counts := map[string]int{}
	walkSchemas(paths, func(s obj) {
		if _, ok := s[graphqlType]; ok {
			counts[shapeKey(s)]++
		}
	})
	// Names in a fixed order: by type, then shape.
	type shape struct{ typ, key string }
	var repeated []shape
	for key, n := range counts {
		if n > 1 {
			var s obj
			_ = json.Unmarshal([]byte(key), &s)
			repeated = append(repeated, shape{s[graphqlType].(string), key})
		}
	}
	slices.SortFunc(repeated, func(a, b shape) int {
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	names := map[string]string{}
	taken := map[string]bool{}
	for _, r := range repeated {
		name := r.typ
		for i := 2; components[name] != nil || taken[name]; i++ {
			name = fmt.Sprintf("%s%d", r.typ, i)
		}
		names[r.key], taken[name] = name, true
	}
	var replace func(v any) any
	replace = func(v any) any {
		switch x := v.(type) {
		case obj:
			if _, ok := x[graphqlType]; ok {
				if name, ok := names[shapeKey(x)]; ok {
					if components[name] == nil {
						body := stripped(x)
						components[name] = obj{} // placeholder while its own fields are replaced
						components[name] = replace(body)
					}
					return use(x, name)
				}
			}
			for k, e := range x {
				x[k] = replace(e)
			}
			delete(x, graphqlType)
			return x
		case []any:
			for i, e := range x {
				x[i] = replace(e)
			}
		}
		return v
	}
	replace(paths)
}

// stripped is an object schema as its type is: not null, with the type's
// description rather than the field's.
func stripped(s obj) obj {
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = "object"
	delete(out, "deprecated")
	if d, ok := s["x-type-description"]; ok {
		out["description"] = d
	} else {
		delete(out, "description")
	}
	delete(out, "x-type-description")
	return out
}

// use is the reference to a component standing where s was: nullable if s
// was, with s's own description.
func use(s obj, name string) any {
	r := ref(name)
	var out obj = r
	if typ, ok := s["type"].([]string); ok && slices.Contains(typ, "null") {
		out = obj{"anyOf": []any{r, obj{"type": "null"}}}
	}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	if d, ok := s["deprecated"]; ok {
		out["deprecated"] = d
	}
	return out
}

// shapeKey is what makes two object schemas the same component: all but
// nullability and the descriptions of the field they stand for.
func shapeKey(s obj) string {
	b, _ := json.Marshal(stripped(s))
	return string(b)
}

// walkSchemas calls fn on every object of v, innermost first.
func walkSchemas(v any, fn func(obj)) {
	switch x := v.(type) {
	case obj:
		for _, e := range x {
			walkSchemas(e, fn)
		}
		fn(x)
	case []any:
		for _, e := range x {
			walkSchemas(e, fn)
		}
	}
}
