package rest

import "testing"

func TestPick(t *testing.T) {
	cases := []struct {
		data, path, want string
		sole             int
	}{
		{`{"item":{"id":"1"}}`, "item", `{"id":"1"}`, 1}, // the operation's one field
		{`{"a":{"c":1,"b":[1,2]}}`, "a.b", `[1,2]`, 1},   // deeper: checked
		{`{"a":{"b":{"c":1}}}`, "a.b", `{"c":1}`, 2},     // both known
		{`{"item":{"a":"},\"x\":{"}}`, "item", `{"a":"},\"x\":{"}`, 1},
		{`{"item":{"id":"1","title":"a"}}`, "item", `{"id":"1","title":"a"}`, 0},
		{`{"item":null}`, "item", `null`, 0},
		{`{"item":"x\"}"}`, "item", `"x\"}"`, 0},
		{`{"a":{"b":[1,2]}}`, "a.b", `[1,2]`, 0},
		{`{"a":{"c":1,"b":[1,2]}}`, "a.b", `[1,2]`, 0},         // b not alone
		{`{"a":1,"item":{"id":"2"}}`, "item", `{"id":"2"}`, 0}, // item not first
		{`{"item":1,"other":{"x":2}}`, "item", `1`, 0},         // item not alone
		{`{"items":[1]}`, "item", `null`, 0},                   // a longer name
		{`{ "item" : 3 }`, "item", `3`, 0},                     // not compact
		{`{"item":{"id":"1"}}`, "", `{"item":{"id":"1"}}`, 0},  // whole data
	}
	for _, c := range cases {
		got, err := pick([]byte(c.data), fieldPath(c.path), c.sole)
		if err != nil || string(got) != c.want {
			t.Errorf("pick(%s, %q) = %s, %v; want %s", c.data, c.path, got, err, c.want)
		}
	}
}

func TestOmitNullInCollection(t *testing.T) {
	shape := OmitNullInCollection{[]string{"color", "rule"}}.apply
	cases := []struct{ in, want string }{
		{`{"_embedded":{"collection":[]}}`, `{"_embedded":{"collection":[]}}`},
		{`{"_embedded":{"collection":[{"id":"a","color":null,"label":"A","rule":null,"icon":null}]}}`,
			`{"_embedded":{"collection":[{"id":"a","label":"A","icon":null}]}}`},
		{`{"_embedded":{"collection":[{"color":"#00000000","rule":"{x}","fields":[{"rule":null}]},{"id":"b","rule":null}]}}`,
			`{"_embedded":{"collection":[{"color":"#00000000","rule":"{x}","fields":[{"rule":null}]},{"id":"b"}]}}`},
		{`{"_embedded":{"collection":[{"id":"a\"b","color":null}]}}`, `{"_embedded":{"collection":[{"id":"a\"b"}]}}`},
		{`{"_embedded":{"collection":[{"color":null}]}}`, `{"_embedded":{"collection":[{}]}}`},
	}
	for _, c := range cases {
		got, err := shape([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("shape(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if _, err := shape([]byte(`{"_embedded":{"collection":[1]}}`)); err == nil {
		t.Error("an entry that is not an object was taken")
	}
}
