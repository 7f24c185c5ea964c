package rest

import "testing"

func TestPick(t *testing.T) {
	cases := []struct {
		data, path, want string
		oneRoot          bool
	}{
		{`{"item":{"id":"1"}}`, "item", `{"id":"1"}`, true}, // the operation's one field
		{`{"a":{"c":1,"b":[1,2]}}`, "a.b", `[1,2]`, true},   // deeper: checked
		{`{"item":{"a":"},\"x\":{"}}`, "item", `{"a":"},\"x\":{"}`, true},
		{`{"item":{"id":"1","title":"a"}}`, "item", `{"id":"1","title":"a"}`, false},
		{`{"item":null}`, "item", `null`, false},
		{`{"item":"x\"}"}`, "item", `"x\"}"`, false},
		{`{"a":{"b":[1,2]}}`, "a.b", `[1,2]`, false},
		{`{"a":{"c":1,"b":[1,2]}}`, "a.b", `[1,2]`, false},         // b not alone
		{`{"a":1,"item":{"id":"2"}}`, "item", `{"id":"2"}`, false}, // item not first
		{`{"item":1,"other":{"x":2}}`, "item", `1`, false},         // item not alone
		{`{"items":[1]}`, "item", `null`, false},                   // a longer name
		{`{ "item" : 3 }`, "item", `3`, false},                     // not compact
		{`{"item":{"id":"1"}}`, "", `{"item":{"id":"1"}}`, false},  // whole data
	}
	for _, c := range cases {
		got, err := pick([]byte(c.data), fieldPath(c.path), c.oneRoot)
		if err != nil || string(got) != c.want {
			t.Errorf("pick(%s, %q) = %s, %v; want %s", c.data, c.path, got, err, c.want)
		}
	}
}
