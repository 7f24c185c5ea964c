package store

import (
	"encoding/json"
)

// generatedMeta are the keys of a generated-media document that are not
// outputs ("early" marks a first phase's provisional poster,
// media_early_poster.go).
var generatedMeta = map[string]bool{"prefix": true, "kind": true, "madeOn": true, "early": true}

// File is the key of output name ("" when none, or g is nil).
func (g *GeneratedMedia) File(name string) string {
	if g == nil {
		return ""
	}
	return g.Files[name]
}

// List is the keys of output name, made several times (nil when none).
func (g *GeneratedMedia) List(name string) []string {
	if g == nil {
		return nil
	}
	return g.Lists[name]
}

// Add records key as output name; many: one of several of its name.
func (g *GeneratedMedia) Add(name, key string, many bool) {
	if many {
		if g.Lists == nil {
			g.Lists = map[string][]string{}
		}
		g.Lists[name] = append(g.Lists[name], key)
		return
	}
	if g.Files == nil {
		g.Files = map[string]string{}
	}
	g.Files[name] = key
}

// MarshalJSON writes the outputs as keys beside prefix, kind and madeOn.
func (g GeneratedMedia) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 3+len(g.Files)+len(g.Lists))
	for k, v := range g.Files {
		m[k] = v
	}
	for k, v := range g.Lists {
		m[k] = v
	}
	m["prefix"], m["kind"], m["madeOn"] = g.Prefix, g.Kind, g.MadeOn
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes: a string is an output made
// once, an array one made several times.
func (g *GeneratedMedia) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*g = GeneratedMedia{}
	for k, v := range m {
		var err error
		switch {
		case k == "prefix":
			err = json.Unmarshal(v, &g.Prefix)
		case k == "kind":
			err = json.Unmarshal(v, &g.Kind)
		case k == "madeOn":
			err = json.Unmarshal(v, &g.MadeOn)
		case generatedMeta[k] || len(v) == 0:
		case v[0] == '"':
			var s string
			if err = json.Unmarshal(v, &s); err == nil {
				g.Add(k, s, false)
			}
		case v[0] == '[':
			var l []string
			if err = json.Unmarshal(v, &l); err == nil {
				for _, s := range l {
					g.Add(k, s, true)
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
