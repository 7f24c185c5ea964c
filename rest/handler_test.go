package rest

import "testing"

func TestPick(t *testing.T) {
	cases := []struct {
		data, path, want string
	}{
		{`{"item":{"id":"1","title":"a"}}`, "item", `{"id":"1","title":"a"}`},
		{`{"item":null}`, "item", `null`},
		{`{"item":"x\"}"}`, "item", `"x\"}"`},
		{`{"a":{"b":[1,2]}}`, "a.b", `[1,2]`},
		{`{"a":{"c":1,"b":[1,2]}}`, "a.b", `[1,2]`},         // b not alone
		{`{"a":1,"item":{"id":"2"}}`, "item", `{"id":"2"}`}, // item not first
		{`{"item":1,"other":{"x":2}}`, "item", `1`},         // item not alone
		{`{"items":[1]}`, "item", `null`},                   // a longer name
		{`{ "item" : 3 }`, "item", `3`},                     // not compact
		{`{"item":{"id":"1"}}`, "", `{"item":{"id":"1"}}`},  // whole data
	}
	for _, c := range cases {
		got, err := pick([]byte(c.data), fieldPath(c.path))
		if err != nil || string(got) != c.want {
			t.Errorf("pick(%s, %q) = %s, %v; want %s", c.data, c.path, got, err, c.want)
		}
	}
}
