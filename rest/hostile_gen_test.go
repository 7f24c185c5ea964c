package rest_test

// The generator of the hostile-input suite (hostile_test.go): JSON written
// byte for byte, fixtures, plausible inputs from the schema, the hostile
// variants of an input, and where a route's body lands.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/rest"
)

// ---------------------------------------------------------------------
// JSON written as it is: ordered objects that may repeat a key, strings
// that may be invalid UTF-8, raw text for what cannot be built otherwise.

type obj []kv

type kv struct {
	k string
	v any
}

// rawJSON is written verbatim.
type rawJSON string

// holeT marks the place of the input in a body template.
type holeT struct{}

var hole = holeT{}

func encode(v any) []byte {
	var b bytes.Buffer
	encodeTo(&b, v)
	return b.Bytes()
}

func encodeTo(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case string:
		writeString(b, v)
	case rawJSON:
		b.WriteString(string(v))
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeTo(b, e)
		}
		b.WriteByte(']')
	case obj:
		b.WriteByte('{')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e.k)
			b.WriteByte(':')
			encodeTo(b, e.v)
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("hostile: cannot encode %T", v))
	}
}

// huge is the huge string, encoded once: a few hundred of them are sent,
// and encoding 1 MiB under the race detector takes a while.
var (
	huge     = strings.Repeat("x", hugeLen)
	hugeJSON = `"` + huge + `"`
)

// writeString writes s as a JSON string; text that is not UTF-8 goes out
// byte for byte (the hostile strings hold nothing that needs escaping).
func writeString(b *bytes.Buffer, s string) {
	if len(s) == len(huge) && s == huge {
		b.WriteString(hugeJSON)
		return
	}
	if !utf8.ValidString(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	e, _ := json.Marshal(s)
	b.Write(e)
}

// fill is the template t with its hole replaced by v.
func fill(t, v any) any {
	switch t := t.(type) {
	case holeT:
		return v
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = fill(e, v)
		}
		return out
	case obj:
		out := make(obj, len(t))
		for i, e := range t {
			out[i] = kv{e.k, fill(e.v, v)}
		}
		return out
	}
	return t
}

// setAt is v with the value at path (object keys and list indexes)
// replaced by nv; a missing key is added, a short list grown.
func setAt(v any, path []any, nv any) any {
	if len(path) == 0 {
		return nv
	}
	switch p := path[0].(type) {
	case string:
		o, _ := v.(obj)
		out := make(obj, 0, len(o)+1)
		found := false
		for _, e := range o {
			if e.k == p && !found {
				e.v, found = setAt(e.v, path[1:], nv), true
			}
			out = append(out, e)
		}
		if !found {
			out = append(out, kv{p, setAt(nil, path[1:], nv)})
		}
		return out
	case int:
		l, _ := v.([]any)
		out := slices.Clone(l)
		for len(out) <= p {
			out = append(out, nil)
		}
		out[p] = setAt(out[p], path[1:], nv)
		return out
	}
	panic("hostile: bad path")
}

func getAt(v any, path []any) any {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			o, _ := v.(obj)
			v = nil
			for _, e := range o {
				if e.k == p {
					v = e.v
					break
				}
			}
		case int:
			l, _ := v.([]any)
			if p >= len(l) {
				return nil
			}
			v = l[p]
		}
	}
	return v
}

// withKey is v with the key k added (even if present) to the object at path.
func withKey(v any, path []any, k string, nv any) any {
	o, _ := getAt(v, path).(obj)
	return setAt(v, path, append(slices.Clone(o), kv{k, nv}))
}

// deep is n arrays nested in each other.
func deep(n int) rawJSON {
	return rawJSON(strings.Repeat("[", n) + strings.Repeat("]", n))
}

// nestedObjects is n objects nested in each other, 1 inside.
func nestedObjects(n int) any {
	var v any = 1
	for range n {
		v = obj{{"a", v}}
	}
	return v
}

func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------
// Fixtures: real ids of a seeded tenant, so that a hostile value is the
// only thing wrong with an input.

type fixtures struct {
	item, item2, folder, mdf, optionList, comment, bookmark, key, version, user, attachment string
}

func seed(t *testing.T, a *loupetest.Client) *fixtures {
	t.Helper()
	f := &fixtures{user: a.UserID, attachment: "hostile.txt"}
	a.User(t, "hostile@a.test", []string{"hostile"}, false) // a group to notify
	f.item = a.CreateItem(t, map[string]any{"title": "Hostile one", "itemType": "video"})
	f.item2 = a.CreateItem(t, map[string]any{"title": "Hostile two", "itemType": "image"})
	f.folder = a.CreateItem(t, map[string]any{"title": "Hostile folder", "itemType": "folder"})
	idOf := func(r *loupetest.Response, key string) string {
		t.Helper()
		id, _ := r.Status(http.StatusOK).Object()[key].(string)
		if id == "" {
			t.Fatalf("fixture: no %s in %s", key, r.Body)
		}
		return id
	}
	f.mdf = idOf(a.Post(t, "/api/v1/mdfs", map[string]any{"label": "Hostile form",
		"fields": []any{map[string]any{"fieldId": "note", "type": "text"}}}), "id")
	f.optionList = idOf(a.Post(t, "/api/v1/optionLists", map[string]any{"name": "Hostile list",
		"alternatives": []any{map[string]any{"value": "a"}}}), "id")
	f.comment = idOf(a.Post(t, "/api/v1/items/"+f.item+"/comments", map[string]any{"text": "hello"}), "id")
	f.bookmark = idOf(a.Post(t, "/config/api/v1/bookmarks", map[string]any{"title": "Hostile", "path": "/search?q=x", "icon": "star"}), "id")
	f.key = idOf(a.Post(t, "/auth/api/v1/keys", map[string]any{"label": "hostile"}), "keyId")
	a.Post(t, "/api/v1/items/"+f.item+"/attachments", map[string]any{"fileName": f.attachment, "type": "file", "role": "file"}).
		Status(http.StatusOK)
	var versions struct {
		Versions []struct{ ID string } `json:"versions"`
	}
	a.Get(t, "/api/v1/items/"+f.item+"/versionsHistory").Status(http.StatusOK).JSON(&versions)
	if len(versions.Versions) == 0 {
		t.Fatal("fixture: the item has no version")
	}
	f.version = versions.Versions[0].ID
	return f
}

// id is a real id for an input or path parameter named name ("itemId",
// "UpdateCommentInput.id"); a random UUID when the name says nothing.
func (f *fixtures) id(name string) string {
	n := strings.ToLower(name)
	for _, c := range []struct {
		word, id string
	}{
		{"comment", f.comment}, {"optionlist", f.optionList}, {"mdf", f.mdf}, {"bookmark", f.bookmark},
		{"version", f.version}, {"key", f.key}, {"related", f.item2}, {"image", f.item2},
		{"folder", f.folder}, {"parent", f.folder},
		{"user", f.user}, {"owner", f.user}, {"assignee", f.user},
		{"item", f.item}, {"ids", f.item}, {"upload", f.item}, {"target", f.item},
	} {
		if strings.Contains(n, c.word) {
			return c.id
		}
	}
	return randomUUID()
}

func randomUUID() string {
	var b [16]byte
	rand.Read(b[:]) //nolint:errcheck // never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// ---------------------------------------------------------------------
// Plausible inputs, from the schema: required fields filled (and those
// whose description says "Required"), with values their names suggest.

// plausibleFields are the values an input's fields take where a name says
// too little (Type.field), and fields the base input carries though the
// schema leaves them optional (their resolver requires them).
var plausibleFields = map[string]any{
	"BookmarkInput.title":                "Hostile",
	"BookmarkInput.path":                 "/search?q=hostile",
	"BookmarkInput.icon":                 "star",
	"OptionListInput.alternatives":       []any{obj{{"value", "a"}}},
	"MdfInput.fields":                    []any{obj{{"fieldId", "note"}, {"type", "text"}}},
	"CreateItemInput.title":              "Hostile",
	"TimedMetadataInput.id":              "hostile-tm",
	"TimedMetadataInput.startMs":         0,
	"TimedMetadataInput.endMs":           1000,
	"TranscriptSegmentInput.content":     "hello",
	"TranscriptSegmentInput.startTime":   0,
	"TranscriptSegmentInput.endTime":     1000,
	"ApproximateSecondInput.approximate": 1.5,
	"CreateApiKeyInput.label":            "hostile",
	"ItemMetadataInput.formData":         obj{{"default_title", "Hostile"}},
	"UpdateCommentInput.text":            "edited",
	"StorageInput.name":                  "Hostile",
	"GatewayConfigInput.name":            "Hostile",
	"PresetInput.name":                   "Hostile",
	"SendNotificationInput.groups":       []any{"hostile"}, // seed's group
	"WebhookInput.type":                  "itemCreation",
	"WebhookInput.url":                   "http://127.0.0.1:9/hook",
	"ReplicationSourceInput.name":        "Hostile",
	"ReplicationSourceInput.media":       []any{"original"},
	"ReplicationScopeInput.type":         "tenant",
	"LivePipelineInput.pipelineName":     "Hostile",
	"LivePipelineInput.sources":          []any{obj{{"key", "main"}, {"url", "srt://10.20.1.5:9000"}}},
}

// probedControls are the inputs whose plausible control is left out: a
// save that probes a real bucket (storage and generated-media locations:
// storages_test.go and generated_media_test.go save them against a real S3
// server), and processing, whose accepted request would start background
// work that changes the tables the suite digests (processing_test.go runs
// it), and moving an original (media_migration_test.go), for the same
// reason. Their hostile cases still run, refused before anything happens.
var probedControls = map[string]bool{
	"POST /api/v1/process": true, "processItem": true,
	"POST /api/v1/items/{itemId}/migrateMediaLocation": true, "migrateMediaLocation": true,
	"POST /prime/api/v1/storages": true, "PUT /prime/api/v1/storages": true,
	"createStorageLocation": true, "updateStorageLocation": true,
	"POST /ingest/api/v1/generatedMediaLocations": true, "createGeneratedMediaLocation": true,
	// Ingest configurations and gateways are probed too, and ingesting a
	// file reads an object of a probed configuration (ingest_test.go).
	"POST /ingest/api/v1/ingestStorageConfigs": true, "createIngestStorageConfig": true,
	"POST /config/api/v1/configs/gateway": true, "createGatewayConfig": true,
	"POST /ingest/api/v1/ingestFile": true, "ingestFile": true,
	// A render needs a preset and processed media, and starts a render
	// (render_test.go).
	"POST /prime/api/v1/renderSequenceRequests": true, "createRenderSequenceRequest": true,
	// Replication sources name a storage location (probed on save) and a
	// run starts transfers (replication_test.go).
	"PUT /prime/api/v1/replication": true, "putReplication": true, "runReplicationSource": true,
	// A live pipeline's save resolves its sources, and a saved one is
	// measured in the background, which writes its row
	// (live_pipelines_test.go).
	"createLivePipeline": true,
	// A recording names a pipeline (the fixtures have none, and a saved one
	// is measured), and a crash recording starts the recorder
	// (live_scheduled_test.go).
	"scheduleRecording": true, "startCrashRecording": true, "createRecordingSeries": true,
}

// plausibleStrings are values for String inputs by field name.
var plausibleStrings = map[string]string{
	"languageCode": "en-US", "fileName": "hostile.txt", "newFileName": "hostile2.txt", "path": "/Hostile/path",
	"color": "#FFFFFFFF", "itemType": "video", "expiryDate": "indefinite", "relationType": "related",
	"transcriptionService": "externalSpeechToText", "position": "1", "label": "Hostile", "title": "Hostile",
	"name": "Hostile", "text": "hello", "reaction": "+1",
}

// plausibleEnums take a value other than the first where the first would
// need more than the base input gives.
var plausibleEnums = map[string]string{"AttachmentType": "file", "AttachmentRole": "file"}

type gen struct {
	schema *ast.Schema
	fx     *fixtures
}

func (g *gen) def(t *ast.Type) *ast.Definition { return g.schema.Types[t.Name()] }

// plausible is a value of type t for the input named name (owner.field).
func (g *gen) plausible(t *ast.Type, owner, name string) any {
	if v, ok := plausibleFields[owner+"."+name]; ok {
		return v
	}
	if t.Elem != nil {
		return []any{g.plausible(t.Elem, owner, name)}
	}
	d := g.def(t)
	switch d.Kind {
	case ast.Enum:
		if v, ok := plausibleEnums[d.Name]; ok {
			return v
		}
		return d.EnumValues[0].Name
	case ast.InputObject:
		o := obj{}
		for _, f := range d.Fields {
			_, listed := plausibleFields[d.Name+"."+f.Name]
			if (f.Type.NonNull && f.DefaultValue == nil) || strings.HasPrefix(f.Description, "Required") || listed {
				o = append(o, kv{f.Name, g.plausible(f.Type, d.Name, f.Name)})
			}
		}
		return o
	}
	switch d.Name {
	case "ID":
		if name == "id" {
			return g.fx.id(owner)
		}
		return g.fx.id(name)
	case "String":
		if s, ok := plausibleStrings[name]; ok {
			return s
		}
		return "x"
	case "Int":
		return 1
	case "Float":
		return 1.5
	case "Boolean":
		return false
	case "DateTime":
		return "2026-01-01T00:00:00.000Z"
	case "JSON":
		return obj{}
	}
	return "x"
}

// ---------------------------------------------------------------------
// Hostile cases.

// A hcase is one hostile input: the whole value (a route's hole, a
// mutation's variables) and what the answer must name.
type hcase struct {
	name string
	v    any
	// want is text the 400's message must hold (the field at fault);
	// "" when the value names nothing.
	want string
}

// closedJSON are the JSON inputs whose keys are a fixed set (unknown keys
// refused): the others are free-form.
var closedJSON = map[string]bool{
	"customIcons": true, "updateTenantConfig(input)": true, "updateUserSettings(input)": true,
}

// cases are the hostile variants of base with the value at path, of type
// t, made hostile; field names the input (as the answer names it), json
// the JSON input's name in loupe.JSONInputs, skip the keys of the object at
// path a binder fills itself; depth counts the objects above path.
func (g *gen) cases(base any, path []any, t *ast.Type, field, jsonName string, skip map[string]bool, depth int) []hcase {
	at := pathString(path)
	if at == "" {
		at = "(input)"
	}
	var out []hcase
	add := func(what string, v any, want string) {
		out = append(out, hcase{name: at + ": " + what, v: setAt(base, path, v), want: want})
	}
	if t.Elem != nil {
		// The element, in a list of one.
		withOne := setAt(base, path, []any{g.plausible(t.Elem, "", field)})
		return g.cases(withOne, append(slices.Clone(path), 0), t.Elem, field, jsonName, nil, depth)
	}
	d := g.def(t)
	switch d.Kind {
	case ast.Enum:
		add("number for an enum", 5, field)
		add("NUL in an enum", "a\x00b", field)
		add("unknown enum value", "zzNoSuchValue", field)
		return out
	case ast.InputObject:
		add("string for an object", "x", field)
		out = append(out, hcase{name: at + ": unknown key", v: withKey(base, path, unknownKey, 1), want: unknownKey})
		// The input's fields, and those of objects in it two levels
		// down (a comment's context.startSecond.approximate).
		if depth > 2 {
			return out
		}
		for _, f := range d.Fields {
			if skip[f.Name] {
				continue
			}
			fp := append(slices.Clone(path), f.Name)
			b := base
			if getAt(b, fp) == nil {
				b = setAt(b, fp, g.plausible(f.Type, d.Name, f.Name))
			}
			out = append(out, g.cases(b, fp, f.Type, f.Name, f.Name, nil, depth+1)...)
		}
		return out
	}
	switch d.Name {
	case "String":
		add("NUL", "a\x00b", field)
		add("invalid UTF-8", "a\xffb", "")
		add("number for a string", 5, field)
		add("object for a string", obj{}, field)
		add("huge string", huge, field)
	case "ID":
		add("NUL", "a\x00b", field)
		add("invalid UTF-8", "a\xffb", "")
		add("boolean for an ID", true, field)
		add("object for an ID", obj{}, field)
	case "Int":
		add("numeric string", "5", field)
		add("boolean for an integer", true, field)
		add("fraction for an integer", 1.5, field)
		add("object for an integer", obj{}, field)
	case "Float":
		add("numeric string", "5", field)
		add("boolean for a number", true, field)
	case "Boolean":
		add("string for a boolean", "true", field)
		add("number for a boolean", 1, field)
	case "DateTime":
		add("NUL", "2026-01-01T00:00:00.000Z\x00", field)
		add("invalid UTF-8", "2026-01-01T00:00:00.000Z\xff", "")
		add("number for a time", 5, field)
	case "JSON":
		l := loupe.LimitOf(jsonName)
		add("100-deep nesting", obj{{"a", deep(100)}}, "")
		add(fmt.Sprintf("nested %d deep", l.Depth+1), nestedObjects(l.Depth+1), field)
		add(fmt.Sprintf("over %d bytes", l.Bytes), obj{{"a", strings.Repeat("x", l.Bytes)}}, field)
		keys := obj{}
		for i := range l.Keys + 1 {
			keys = append(keys, kv{"k" + strconv.Itoa(i), 1})
		}
		add(fmt.Sprintf("%d keys", l.Keys+1), keys, field)
		add(fmt.Sprintf("%d elements", l.Items+1), obj{{"a", make([]any, l.Items+1)}}, field)
		add("NUL in a string", obj{{"a", "x\x00"}}, field)
		add("NUL in a key", obj{{"a\x00", 1}}, field)
		add("invalid UTF-8", obj{{"a", "x\xff"}}, "")
		if closedJSON[jsonName] {
			add("unknown key", obj{{unknownKey, 1}}, unknownKey)
		}
	}
	return out
}

// ---------------------------------------------------------------------
// Routes: where a body lands.

// variantQueries make a route's Variant serve the request (its When),
// by the variant's operation. A variant missing here fails the suite.
var variantQueries = map[string]string{"attachmentsPrecheck": "isPrecheck=true"}

// target is one operation behind a path: a route or its variant.
type target struct {
	rt     rest.Route
	method string
	path   string // with the fixtures' ids
	query  string
	op     string
	bind   rest.Binder
	params map[string]string
}

func (tg target) name() string {
	n := tg.rt.Method + " " + tg.rt.Path
	if tg.query != "" {
		n += "?" + tg.query
	}
	return n
}

var paramRE = regexp.MustCompile(`\{(\w+)\}`)

func targets(t *testing.T, fx *fixtures) []target {
	var out []target
	for _, rt := range rest.Routes {
		params := map[string]string{}
		segs := strings.Split(rt.Path, "/")
		for i, s := range segs {
			m := paramRE.FindStringSubmatch(s)
			if m == nil {
				continue
			}
			name := m[1]
			switch {
			case name == "id":
				segs[i] = fx.id(segs[i-1]) // /items/{id}: an item
			case strings.HasSuffix(name, "Id"):
				segs[i] = fx.id(name)
			case name == "relationType":
				segs[i] = "related"
			case name == "position":
				segs[i] = "1"
			default:
				segs[i] = "x"
			}
			params[name] = segs[i]
		}
		path := strings.Join(segs, "/")
		out = append(out, target{rt: rt, method: rt.Method, path: path, op: rt.Op, bind: rt.Bind, params: params})
		if v := rt.Variant; v != nil {
			q, ok := variantQueries[v.Op]
			if !ok {
				t.Errorf("%s %s: variant %s has no query in variantQueries", rt.Method, rt.Path, v.Op)
				continue
			}
			if q != v.Query+"="+v.Value {
				t.Errorf("%s %s: ?%s does not select variant %s", rt.Method, rt.Path, q, v.Op)
			}
			out = append(out, target{rt: rt, method: rt.Method, path: path, query: q, op: v.Op, bind: v.Bind, params: params})
		}
	}
	return out
}

// bodyRecorder notes whether a binder read the body.
type bodyRecorder struct {
	r    io.Reader
	read bool
}

func (b *bodyRecorder) Read(p []byte) (int, error) {
	b.read = true
	return b.r.Read(p)
}

func (b *bodyRecorder) Close() error { return nil }

// bind runs tg's binder on body in-process, as the router would.
func (tg target) run(body []byte) (vars map[string]any, read bool, err error) {
	rec := &bodyRecorder{r: bytes.NewReader(body)}
	url := tg.path
	if tg.query != "" {
		url += "?" + tg.query
	}
	r := httptest.NewRequest(tg.method, url, nil)
	r.Body = rec
	rctx := chi.NewRouteContext()
	for k, v := range tg.params {
		rctx.URLParams.Add(k, v)
	}
	r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx))
	vars = map[string]any{}
	if tg.bind != nil {
		err = tg.bind.Bind(r, vars)
	}
	return vars, rec.read, err
}

// A landing is where a route's body lands: the body is template with its
// hole replaced by the input, found in the variables at path, of type t.
type landing struct {
	template any
	path     []any
	t        *ast.Type
	// skip are the keys of the input a binder fills itself (from the path).
	skip map[string]bool
	// jsonName names a JSON input in loupe.JSONInputs.
	jsonName string
}

// find walks vars for the probe: an object holding probeKey (obj true) or
// the string probeKey.
func find(v any, path []any) ([]any, map[string]any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if v[probeKey] == probeKey {
			return path, v, true
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p, m, ok := find(v[k], append(slices.Clone(path), k)); ok {
				return p, m, ok
			}
		}
	case []any:
		for i, e := range v {
			if p, m, ok := find(e, append(slices.Clone(path), i)); ok {
				return p, m, ok
			}
		}
	case string:
		if v == probeKey {
			return path, nil, true
		}
	}
	return nil, nil, false
}

var wordRE = regexp.MustCompile(`[A-Za-z_]\w+`)

func second(_ map[string]any, _ bool, err error) error { return err }

// land finds where tg's body lands by binding probe bodies of a few shapes,
// the keys taken from what the binder says of a bare object and from the
// operation's variables: the first that binds, with the probe where a value
// of its type can be, wins.
func (g *gen) land(tg target, op *ast.OperationDefinition) (*landing, error) {
	m := obj{{probeKey, probeKey}}
	shapes := []any{hole, []any{hole}}
	// What the binder says of a bare object, with and without a key it
	// does not know, names the keys it wants.
	var keys []string
	_, _, err := tg.run(encode(m))
	for _, e := range []error{err, second(tg.run([]byte("{}")))} {
		if e != nil {
			keys = append(keys, wordRE.FindAllString(e.Error(), -1)...)
		}
	}
	for _, v := range op.VariableDefinitions {
		keys = append(keys, v.Variable)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] || k == probeKey {
			continue
		}
		seen[k] = true
		shapes = append(shapes, obj{{k, hole}}, obj{{k, []any{hole}}}, obj{{k, obj{{probeKey, hole}}}})
	}
	for _, shape := range shapes {
		for _, probe := range []any{m, probeKey} {
			vars, _, err := tg.run(encode(fill(shape, probe)))
			if err != nil {
				continue
			}
			path, landed, ok := find(vars, nil)
			if !ok || len(path) == 0 {
				continue
			}
			vd := op.VariableDefinitions.ForName(path[0].(string))
			if vd == nil {
				continue
			}
			t := g.typeAt(vd.Type, path[1:])
			if t == nil {
				continue
			}
			d := g.def(t)
			isObject := t.Elem == nil && (d.Kind == ast.InputObject || d.Name == "JSON")
			isScalar := t.Elem == nil && (d.Kind == ast.Scalar || d.Kind == ast.Enum) && d.Name != "JSON"
			if (probe == probeKey && !isScalar) || (probe != probeKey && !isObject) {
				continue
			}
			l := &landing{template: shape, path: path, t: t, skip: map[string]bool{}}
			for k := range landed {
				if k != probeKey {
					l.skip[k] = true
				}
			}
			if d.Name == "JSON" {
				l.jsonName = jsonName(op, path)
			}
			return l, nil
		}
	}
	return nil, fmt.Errorf("no probe body binds (the binder said %v)", err)
}

// typeAt is the type of the value at path below a value of type t.
func (g *gen) typeAt(t *ast.Type, path []any) *ast.Type {
	for _, p := range path {
		switch p := p.(type) {
		case int:
			if t.Elem == nil {
				return nil
			}
			t = t.Elem
		case string:
			d := g.def(t)
			if t.Elem != nil || d == nil || d.Kind != ast.InputObject {
				return nil
			}
			f := d.Fields.ForName(p)
			if f == nil {
				return nil
			}
			t = f.Type
		}
	}
	return t
}

// jsonName names the JSON input at path of op's variables as
// loupe.JSONInputs does: the input field, or field(argument).
func jsonName(op *ast.OperationDefinition, path []any) string {
	for i := len(path) - 1; i > 0; i-- {
		if s, ok := path[i].(string); ok {
			return s
		}
	}
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			for _, a := range f.Arguments {
				if a.Value.Kind == ast.Variable && a.Value.Raw == path[0] {
					return f.Name + "(" + a.Name + ")"
				}
			}
		}
	}
	return ""
}

// lastName is the last key of path: the input's name in answers.
func lastName(path []any) string {
	for i := len(path) - 1; i >= 0; i-- {
		if s, ok := path[i].(string); ok {
			return s
		}
	}
	return ""
}
