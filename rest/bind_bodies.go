package rest

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/loupe-mam/loupe"
)

// Binders for bodies whose spec shape differs from the GraphQL input.

// customIconsBody binds {customIcons: {pos1...}} (or the bare position
// object) to input.customIcons, with input.merge for PATCH.
func customIconsBody(merge bool) Binder {
	return body(Body{Obj: "input", Var: "customIcons", Key: "customIcons", AlsoBare: true}, func(r *http.Request, vars map[string]any) error {
		m, err := bodyObject(r)
		if err != nil {
			return err
		}
		var icons any = m
		if inner, ok := m["customIcons"]; ok && len(m) == 1 {
			icons = inner
		}
		if _, ok := icons.(map[string]any); !ok {
			return loupe.Invalid("customIcons must be an object with keys pos1 to pos8")
		}
		set(vars, "input", "customIcons", icons)
		set(vars, "input", "merge", merge)
		return nil
	})
}

// relatedIDsBody binds {relatedItemIds: [...]} (or a bare array of ids) to
// input.relatedItemIds.
var relatedIDsBody = body(Body{Obj: "input", Var: "relatedItemIds", Key: "relatedItemIds", AlsoBare: true}, func(r *http.Request, vars map[string]any) error {
	v, err := decodeBody(r)
	if err != nil {
		return err
	}
	if m, ok := v.(map[string]any); ok {
		ids, ok := m["relatedItemIds"]
		if !ok || len(m) != 1 {
			return loupe.Invalid("the request body must be {\"relatedItemIds\": [...]}")
		}
		v = ids
	}
	if _, ok := v.([]any); !ok {
		return loupe.Invalid("relatedItemIds must be an array of item ids")
	}
	set(vars, "input", "relatedItemIds", v)
	return nil
})

// timedMetadataBody binds {items: {<id>: entry or null}}: entries become
// input.upsert (the map key is the entry's id), nulls input.delete.
var timedMetadataBody = body(Body{Schema: `{"type": "object", "required": ["items"], "additionalProperties": false, "properties": {"items": {"type": "object", "description": "Entries by id: an entry inserts or replaces, null removes.", "additionalProperties": {"anyOf": [{"$ref": "#/components/schemas/TimedMetadataInput"}, {"type": "null"}]}}}}`}, func(r *http.Request, vars map[string]any) error {
	m, err := bodyObject(r)
	if err != nil {
		return err
	}
	if err := onlyKeys(m, "items"); err != nil {
		return err
	}
	items, ok := m["items"].(map[string]any)
	if !ok {
		return loupe.Invalid("the request body must be {\"items\": {\"<id>\": {startMs, endMs, data} or null}}")
	}
	upsert, remove := []any{}, []any{}
	for id, e := range items {
		if e == nil {
			remove = append(remove, id)
			continue
		}
		entry, ok := e.(map[string]any)
		if !ok {
			return loupe.Invalid("timed metadata %q must be an object or null", id)
		}
		if given, ok := entry["id"]; ok && given != id {
			return loupe.Invalid("timed metadata %q carries another id %v", id, given)
		}
		entry["id"] = id
		upsert = append(upsert, entry)
	}
	set(vars, "input", "upsert", upsert)
	set(vars, "input", "delete", remove)
	return nil
})

// precheckBody binds {fileNames: [...]} (or {fileName}) to fileNames.
// Integrations send the create body they are about to write ({fileName,
// type, role, language, description}): its other keys are allowed and not
// read; any other key is refused, as everywhere.
var precheckBody = body(Body{Schema: `{"type": "object", "description": "The file names to check: fileNames, or the one fileName of the create body about to be sent (whose other keys are not read).", "additionalProperties": false, "properties": {"fileNames": {"type": "array", "items": {"type": "string"}}, "fileName": {"type": "string"}, "type": {}, "role": {}, "language": {}, "description": {}}}`}, func(r *http.Request, vars map[string]any) error {
	m, err := bodyObject(r)
	if err != nil {
		return err
	}
	if err := onlyKeys(m, "fileNames", "fileName", "type", "role", "language", "description"); err != nil {
		return err
	}
	if names, ok := m["fileNames"].([]any); ok {
		vars["fileNames"] = names
		return nil
	}
	if name, ok := m["fileName"].(string); ok {
		vars["fileNames"] = []any{name}
		return nil
	}
	return loupe.Invalid("the request body needs fileNames (or fileName)")
})

// folderUpdateBody binds the folder update body to input; "parent": null
// moves the folder to the top.
var folderUpdateBody = body(Body{Var: "input"}, func(r *http.Request, vars map[string]any) error {
	m, err := bodyObject(r)
	if err != nil {
		return err
	}
	if p, ok := m["parent"]; ok && p == nil {
		delete(m, "parent")
		m["toTop"] = true
	}
	vars["input"] = m
	return nil
})

// idsBody binds {ids: [...]} (or itemIds / folderIds, or a bare array) to
// ids. The object holds that one key: any other is refused, as everywhere.
var idsBody = body(Body{Var: "ids", Key: "ids", AlsoBare: true}, func(r *http.Request, vars map[string]any) error {
	v, err := decodeBody(r)
	if err != nil {
		return err
	}
	if m, ok := v.(map[string]any); ok {
		key := ""
		for _, k := range []string{"ids", "itemIds", "folderIds"} {
			if ids, ok := m[k]; ok {
				v, key = ids, k
				break
			}
		}
		if err := onlyKeys(m, key); err != nil {
			return err
		}
	}
	if _, ok := v.([]any); !ok {
		return loupe.Invalid("the request body must be {\"ids\": [...]}")
	}
	vars["ids"] = v
	return nil
})

// definitionBody binds a form or option list body to input. modifiedOn,
// which reads answer, is the server's: it is dropped so that what a read
// answers can be written back as it is.
var definitionBody = body(Body{Var: "input", Ignored: []string{"modifiedOn"}}, func(r *http.Request, vars map[string]any) error {
	m, err := bodyObject(r)
	if err != nil {
		return err
	}
	delete(m, "modifiedOn")
	vars["input"] = m
	return nil
})

// presetBody binds a preset body to input. The keys a read answers and
// the server owns (2.20's id, type, createdByUserId, usage; Loupe's dates
// and check) are dropped, so that a record read can be written back.
var presetBody = body(Body{Var: "input", Ignored: presetReadOnly}, func(r *http.Request, vars map[string]any) error {
	m, err := bodyObject(r)
	if err != nil {
		return err
	}
	for _, k := range presetReadOnly {
		delete(m, k)
	}
	vars["input"] = m
	return nil
})

// presetReadOnly are the keys of a preset read the server owns.
var presetReadOnly = []string{"id", "type", "createdByUserId", "usage", "checkError", "checkedOn", "createdOn", "modifiedOn"}

// attachmentDeleteBody binds the body of DELETE …/attachments. Clients of
// the original service that overwrite an attachment delete it first with
// the body they are about to create it with: every key of the create shape
// is taken, the attachment is found by fileName (type is accepted, as
// documented), and a key of no attachment shape is refused.
var attachmentDeleteBody = body(Body{Var: "input", Ignored: []string{"role", "language", "description"}}, func(r *http.Request, vars map[string]any) error {
	if err := requiredBodyAs("input").Bind(r, vars); err != nil {
		return err
	}
	m, _ := vars["input"].(map[string]any)
	keys := []string{"fileName", "type", "role", "language", "description"}
	if err := onlyKeys(m, keys...); err != nil {
		return loupe.Invalid("%s (an attachment delete takes %s)", err.Error(), strings.Join(keys, ", "))
	}
	for _, k := range []string{"role", "language", "description"} {
		delete(m, k) // the create's, not the delete's
	}
	return nil
})

// onlyKeys refuses a body object holding a key other than keys, naming the
// first in order, as unknown keys are refused everywhere.
func onlyKeys(m map[string]any, keys ...string) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(keys, k) {
			return loupe.Invalid("%s: unknown field", k)
		}
	}
	return nil
}
