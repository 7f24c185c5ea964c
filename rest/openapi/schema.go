package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/loupe-mam/loupe/rest"
)

// The JSON Schemas of answers and bodies, from the GraphQL schema: an
// answer is the selection of its stored operation (inline: each operation
// selects its own fields), a body an input type (a component: inputs are
// shared).

// answer is the schema of the value at the dotted field path of op's data
// (the whole data object for ""). The handler answers a null there as 404,
// so the answer itself is never null.
func (b *builder) answer(op *ast.OperationDefinition, field string) (obj, error) {
	parent, set := b.rootType(op), op.SelectionSet
	if field == "" {
		return b.object(parent, set), nil
	}
	steps := strings.Split(field, ".")
	for i, step := range steps {
		f := b.collect(parent, set, false).get(step)
		if f == nil {
			return nil, fmt.Errorf("operation %s selects no %s", op.Name, strings.Join(steps[:i+1], "."))
		}
		if i == len(steps)-1 {
			return b.output(parent, f, true), nil
		}
		parent, set = b.schema.Types[f.def.Type.Name()], f.sets()
	}
	return nil, nil
}

// selected is one key of an answer object: the field it answers and every
// selection of it (a field selected twice, directly and by a fragment, is
// one key with both sub-selections).
type selected struct {
	key      string
	parent   *ast.Definition
	def      *ast.FieldDefinition
	fields   []*ast.Field
	optional bool
}

func (s *selected) sets() ast.SelectionSet {
	var out ast.SelectionSet
	for _, f := range s.fields {
		out = append(out, f.SelectionSet...)
	}
	return out
}

type selection []*selected

func (l selection) get(key string) *selected {
	for _, s := range l {
		if s.key == key {
			return s
		}
	}
	return nil
}

var typename = &ast.FieldDefinition{Name: "__typename", Description: "The object's GraphQL type.",
	Type: ast.NonNullNamedType("String", nil)}

// collect lists the keys set selects on parent, in order. A key is
// optional (may be absent) under @include or @skip, or under a fragment
// whose type only some of parent's possible types are.
func (b *builder) collect(parent *ast.Definition, set ast.SelectionSet, optional bool) selection {
	var out selection
	add := func(s *selected) {
		if have := out.get(s.key); have != nil {
			have.fields = append(have.fields, s.fields...)
			have.optional = have.optional && s.optional
			return
		}
		out = append(out, s)
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			def := typename
			if s.Name != "__typename" {
				def = parent.Fields.ForName(s.Name)
			}
			if def == nil {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			opt := optional || s.Directives.ForName("include") != nil || s.Directives.ForName("skip") != nil
			add(&selected{key: key, parent: parent, def: def, fields: []*ast.Field{s}, optional: opt})
		case *ast.FragmentSpread:
			if f := b.fragments[s.Name]; f != nil {
				for _, x := range b.under(parent, f.TypeCondition, f.SelectionSet, optional) {
					add(x)
				}
			}
		case *ast.InlineFragment:
			for _, x := range b.under(parent, s.TypeCondition, s.SelectionSet, optional) {
				add(x)
			}
		}
	}
	return out
}

// under collects a fragment's selection: on parent itself (or an
// interface parent implements) its keys are parent's; on one of an
// abstract parent's possible types they may be absent.
func (b *builder) under(parent *ast.Definition, cond string, set ast.SelectionSet, optional bool) selection {
	if cond == "" || cond == parent.Name || slices.Contains(parent.Interfaces, cond) {
		return b.collect(parent, set, optional)
	}
	return b.collect(b.schema.Types[cond], set, true)
}

// object is the schema of the selection set on the object type def.
func (b *builder) object(def *ast.Definition, set ast.SelectionSet) obj {
	props := obj{}
	required := []string{}
	for _, s := range b.collect(def, set, false) {
		props[s.key] = b.output(s.parent, s, false)
		if !s.optional {
			required = append(required, s.key)
		}
	}
	out := obj{"type": "object", "properties": props, "required": required, "additionalProperties": false,
		graphqlType: def.Name}
	if d := oneLine(def.Description); d != "" {
		out["description"] = d
		out["x-type-description"] = d
	}
	return out
}

// output is the schema of a selected field's value; top: the route's
// answer (never null: the handler answers 404 for a null).
func (b *builder) output(parent *ast.Definition, s *selected, top bool) obj {
	t := s.def.Type
	var out obj
	// A record (a JSON field named record, written as one value for speed)
	// is described by the fragment it is generated from: <Type>Record.
	if t.Name() == "JSON" && s.def.Name == "record" {
		if f := b.fragments[parent.Name+"Record"]; f != nil {
			out = b.object(parent, f.SelectionSet)
		}
	}
	record := out != nil
	if !record {
		out = b.value(t, s.sets())
	}
	if !t.NonNull && !top {
		out = nullable(out)
	}
	if d := oneLine(s.def.Description); d != "" && !record {
		out["description"] = d
	}
	if s.def.Directives.ForName("deprecated") != nil {
		out["deprecated"] = true
	}
	return out
}

// value is the schema of a non-null value of type t selected by set.
func (b *builder) value(t *ast.Type, set ast.SelectionSet) obj {
	if t.Elem != nil {
		items := b.value(t.Elem, set)
		if !t.Elem.NonNull {
			items = nullable(items)
		}
		return obj{"type": "array", "items": items}
	}
	def := b.schema.Types[t.NamedType]
	switch def.Kind {
	case ast.Scalar:
		return scalar(def.Name)
	case ast.Enum:
		return enum(def)
	default:
		return b.object(def, set)
	}
}

// scalar is the schema of a GraphQL scalar as Loupe writes it.
func scalar(name string) obj {
	switch name {
	case "Int":
		return obj{"type": "integer"}
	case "Float":
		return obj{"type": "number"}
	case "Boolean":
		return obj{"type": "boolean"}
	case "DateTime":
		return obj{"type": "string", "format": "date-time"}
	case "JSON":
		return obj{} // any JSON value
	default: // ID, String
		return obj{"type": "string"}
	}
}

func enum(def *ast.Definition) obj {
	values := make([]any, len(def.EnumValues))
	for i, v := range def.EnumValues {
		values[i] = v.Name
	}
	return obj{"type": "string", "enum": values}
}

// nullable lets s be null too.
func nullable(s obj) obj {
	if len(s) == 0 {
		return s // any value, null included
	}
	if typ, ok := s["type"].(string); ok {
		s["type"] = []string{typ, "null"}
		if e, ok := s["enum"].([]any); ok {
			s["enum"] = append(e, nil)
		}
		return s
	}
	return obj{"anyOf": []any{s, obj{"type": "null"}}}
}

// input is the schema of a value of the input type t: input objects and
// enums are components.
func (b *builder) input(t *ast.Type) obj {
	var out obj
	if t.Elem != nil {
		out = obj{"type": "array", "items": b.input(t.Elem)}
	} else {
		def := b.schema.Types[t.NamedType]
		switch def.Kind {
		case ast.Scalar:
			out = scalar(def.Name)
		default:
			b.emit(def.Name)
			out = ref(def.Name)
		}
	}
	if !t.NonNull {
		out = nullable(out)
	}
	return out
}

// emit adds the component of the input object or enum name, once.
func (b *builder) emit(name string) {
	if _, ok := b.components[name]; ok {
		return
	}
	def := b.schema.Types[name]
	if def == nil {
		panic("openapi: a body schema names " + name + ", which is no type of the schema")
	}
	if def.Kind == ast.Enum {
		s := enum(def)
		if d := oneLine(def.Description); d != "" {
			s["description"] = d
		}
		b.components[name] = s
		return
	}
	b.components[name] = obj{} // placeholder: the type may refer to itself
	b.components[name] = b.inputObject(def, nil)
}

// inputObject is the schema of the input object def. A field is required
// when it is non-null without a default, unless bound (filled from the
// path or query: a body may leave it out).
func (b *builder) inputObject(def *ast.Definition, bound []string) obj {
	props := obj{}
	required := []string{}
	for _, f := range def.Fields {
		s := b.input(f.Type)
		if d := oneLine(f.Description); d != "" {
			if _, isRef := s["$ref"]; isRef {
				s = obj{"$ref": s["$ref"], "description": d}
			} else {
				s["description"] = d
			}
		}
		if f.DefaultValue != nil {
			if v, err := f.DefaultValue.Value(nil); err == nil {
				s["default"] = v
			}
		}
		props[f.Name] = s
		if f.Type.NonNull && f.DefaultValue == nil && !slices.Contains(bound, f.Name) {
			required = append(required, f.Name)
		}
	}
	out := obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	if d := oneLine(def.Description); d != "" {
		out["description"] = d
	}
	return out
}

// emitRefs adds the components a literal schema names.
func (b *builder) emitRefs(v any) {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			b.emit(strings.TrimPrefix(r, "#/components/schemas/"))
		}
		for _, e := range x {
			b.emitRefs(e)
		}
	case []any:
		for _, e := range x {
			b.emitRefs(e)
		}
	}
}

// reshape describes what a route's Shape makes of its answer.
func reshape(answer obj, shape rest.Shape) obj {
	switch sh := shape.(type) {
	case rest.KeyedByID:
		// [{id, <Field>}] becomes {<id>: <Field>}.
		entry := answer["items"].(obj)
		return obj{"type": "object", "description": "By id.",
			"additionalProperties": entry["properties"].(obj)[sh.Field]}
	case rest.OmitNullInCollection:
		// The keys are absent rather than null.
		entry := answer["properties"].(obj)["_embedded"].(obj)["properties"].(obj)["collection"].(obj)["items"].(obj)
		entry["required"] = slices.DeleteFunc(entry["required"].([]string), func(k string) bool {
			return slices.Contains(sh.Keys, k)
		})
		for _, k := range sh.Keys {
			p := entry["properties"].(obj)[k].(obj)
			if typ, ok := p["type"].([]string); ok {
				p["type"] = typ[0]
				if e, ok := p["enum"].([]any); ok {
					p["enum"] = e[:len(e)-1]
				}
			} else if any, ok := p["anyOf"].([]any); ok {
				entry["properties"].(obj)[k] = any[0]
			}
		}
		return answer
	}
	panic(fmt.Sprintf("openapi: no description of the shape %T", shape))
}
