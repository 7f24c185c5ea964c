package rest

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/loupe-mam/loupe"
)

// Binders of the tenant administration routes.

// msgMalformedLanguages is the spec's 400 for a bad transcription language
// settings write; the route quotes the body after it.
const msgMalformedLanguages = "Malformed transcription language settings: "

// transcriptionLanguagesBody binds the 2.24 shape {total?, _embedded:
// {collection: [...]}} (or a bare array of entries) to input. A total, when
// given, must count the entries.
var transcriptionLanguagesBody = body(Body{Schema: `{"anyOf": [{"type": "object", "required": ["_embedded"], "additionalProperties": false, "properties": {"total": {"type": "integer", "description": "The number of entries, when given."}, "_embedded": {"type": "object", "required": ["collection"], "additionalProperties": false, "properties": {"collection": {"type": "array", "items": {"$ref": "#/components/schemas/TranscriptionLanguageSettingInput"}}}}}}, {"type": "array", "items": {"$ref": "#/components/schemas/TranscriptionLanguageSettingInput"}}]}`}, func(r *http.Request, vars map[string]any) error {
	v, err := decodeBody(r)
	if err != nil {
		return err
	}
	bad := loupe.Invalid(`the request body must be {"total": n, "_embedded": {"collection": [{"languageCode", "transcriptionService", "label"}]}}`)
	if m, ok := v.(map[string]any); ok {
		if err := onlyKeys(m, "_embedded", "total"); err != nil {
			return err
		}
		emb, ok := m["_embedded"].(map[string]any)
		if !ok || len(emb) != 1 || emb["collection"] == nil {
			return bad
		}
		v = emb["collection"]
		list, isList := v.([]any)
		if total, ok := m["total"]; ok && isList {
			if n, ok := total.(json.Number); !ok || n.String() != strconv.Itoa(len(list)) {
				return loupe.Invalid("total must count the %d entries of the collection", len(list))
			}
		}
	}
	if _, ok := v.([]any); !ok {
		return bad
	}
	vars["input"] = v
	return nil
})
