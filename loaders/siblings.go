package loaders

import (
	"context"
	"reflect"

	"github.com/99designs/gqlgen/graphql"

	"github.com/loupe-mam/loupe/store"
)

// The executor marshals a list's elements one after the other
// (graph/overrides.go): when the first element loads, the others have not
// asked yet, and no time window would gather them. A list that forgot to
// hint would so cost a query per element. Instead, a load that nothing
// names looks up the list its caller sits in — the executor keeps each
// field's result in its field context — and hints its elements as the
// list should have. The search costs reflection once per list, never a
// query.

// hintSiblings hints the elements of the nearest list enclosing the field
// being resolved in ctx, once per list, reporting whether that list is
// hinted now (by this call or an earlier one): false outside a list.
//
// Sibling fields of one element miss in their loaders at the same time; the
// one that searches holds searchMu until its hints are given, so the
// others, waiting for it, look again and find their keys hinted instead of
// loading theirs alone.
func (l *Loaders) hintSiblings(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) {
		return false
	}
	fc := graphql.GetFieldContext(ctx)
	for fc != nil && (fc.Index == nil || fc.Parent == nil) {
		fc = fc.Parent
	}
	if fc == nil {
		return false
	}
	list := fc.Parent
	l.searchMu.Lock()
	defer l.searchMu.Unlock()
	if hinted, ok := l.searched[list]; ok {
		return hinted
	}
	var s found
	if rv := reflect.ValueOf(list.Result); rv.Kind() == reflect.Slice {
		for i := range rv.Len() {
			s.add(rv.Index(i), true)
		}
	}
	l.HintItems(s.items)
	l.HintFolders(s.folders...)
	l.hintRelations(s.relations)
	hinted := len(s.items)+len(s.folders)+len(s.relations) > 0
	if l.searched == nil {
		l.searched = map[*graphql.FieldContext]bool{}
	}
	l.searched[list] = hinted
	return hinted
}

// found collects the values a list holds that hint loaders.
type found struct {
	items     []*store.Item
	folders   []*store.Folder
	relations []*store.Relation
}

// add collects v, or with fields set, the values in v's exported fields
// (a list of edges holds its nodes one level down).
func (s *found) add(v reflect.Value, fields bool) {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) || !v.CanInterface() {
		return
	}
	switch x := v.Interface().(type) {
	case *store.Item:
		s.items = append(s.items, x)
		return
	case *store.Folder:
		s.folders = append(s.folders, x)
		return
	case *store.Relation:
		s.relations = append(s.relations, x)
		return
	}
	if !fields || v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	v = v.Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() {
			s.add(v.Field(i), false)
		}
	}
}
