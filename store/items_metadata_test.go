package store

import (
	"encoding/json"
	"testing"
)

func TestMergeFormData(t *testing.T) {
	data := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`"x"`)}
	delta := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`null`), "c": json.RawMessage(`true`)}
	changes := mergeFormData(data, delta)
	if len(data) != 2 || string(data["a"]) != "1" || string(data["c"]) != "true" || data["b"] != nil {
		t.Fatalf("merged = %v", data)
	}
	if len(changes) != 2 || changes[0].FieldID != "b" || string(changes[0].OldValue) != `"x"` ||
		changes[1].FieldID != "c" || string(changes[1].OldValue) != "null" {
		t.Fatalf("changes = %+v (unchanged a must not be listed)", changes)
	}
}
