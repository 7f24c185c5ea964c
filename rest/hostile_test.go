package rest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/rest"
)

// The hostile-input suite (issue 18; docs/input-limits.md, "Hostile-input
// suite"): generated from the route table and the schema, so that a new
// route or mutation is covered without writing a test. For every REST route
// that reads a body it works out, by calling the route's Binder in-process,
// where the body lands in the stored operation's variables and so which
// input type it is; every mutation of the schema is taken as it is. Each
// is then sent hostile values, one at a time, in an otherwise plausible
// input: NUL, invalid UTF-8, wrong types, numeric strings, huge strings,
// deep and oversized JSON, unknown and duplicate keys. Every answer must be
// a 4xx (or the spec's status for the route) in the error envelope, naming
// the field at fault; no row of any table may change; the server must stay
// up.

const (
	// probeKey marks where a probe body lands in a route's variables.
	probeKey = "hostileProbe"
	// unknownKey is a key no input has.
	unknownKey = "zzHostileUnknown"
	// hugeLen is over 1 MiB: more than any text field holds.
	hugeLen = 1<<20 + 1
	// maxErrorAnswer bounds an error's answer: it may quote the input,
	// not all of it.
	maxErrorAnswer = 8 << 10
)

// ---------------------------------------------------------------------
// Nothing written: a digest of every table.

// snapshotExclusions are columns that change on requests that write
// nothing, left out of the digest (table: columns). Nothing else needs to
// be: the usage counters (usage_hourly, usage_users) are recorded in memory
// and written only when usage is read (loupetest's recorder), which no case
// does.
var snapshotExclusions = map[string][]string{
	// An API key's last use is recorded on authentication (at most once a
	// minute), whatever the request then does.
	"api_keys": {"last_used_on"},
}

// snapshotSkipped are the job queue's bookkeeping tables, which its
// workers write on their own (leader election, queue heartbeats) whatever
// requests do; jobs themselves (river_job) stay in the digest.
var snapshotSkipped = map[string]bool{
	"river_leader": true, "river_queue": true, "river_client": true, "river_client_queue": true,
	// The outbox's durable readers move on in the background, after the
	// events of earlier requests (docs/events.md).
	"event_readers": true,
	// Each job node's heartbeat (internal/jobs/liveness.go).
	"job_nodes": true,
	// Each caching node's beat and applied marker (internal/coherence).
	"cache_nodes": true,
}

// snapshotQuery digests every table of the public schema: one md5 of its
// rows (as jsonb text, sorted) per table.
func snapshotQuery(t *testing.T, db *sqlx.DB) string {
	t.Helper()
	var tables []string
	if err := db.Select(&tables, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 20 {
		t.Fatalf("only %d tables in schema public: %v", len(tables), tables)
	}
	var parts []string
	for _, tb := range tables {
		if snapshotSkipped[tb] {
			continue
		}
		row := "to_jsonb(t)"
		for _, c := range snapshotExclusions[tb] {
			row += " - '" + c + "'"
		}
		parts = append(parts, fmt.Sprintf(`SELECT '%s' AS tbl, md5(coalesce(string_agg((%s)::text, E'\n' ORDER BY (%s)::text), '')) AS digest FROM %q t`,
			tb, row, row, tb))
	}
	return strings.Join(parts, " UNION ALL ")
}

type snapshot map[string]string

func takeSnapshot(t *testing.T, db *sqlx.DB, q string) snapshot {
	t.Helper()
	var rows []struct {
		Tbl    string `db:"tbl"`
		Digest string `db:"digest"`
	}
	if err := db.Select(&rows, q); err != nil {
		t.Fatal(err)
	}
	s := snapshot{}
	for _, r := range rows {
		s[r.Tbl] = r.Digest
	}
	return s
}

// changed names the tables whose rows differ.
func (s snapshot) changed(after snapshot) []string {
	var out []string
	for k, v := range s {
		if after[k] != v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------
// The suite.

type hostileRun struct {
	api    *loupetest.API
	a      *loupetest.Client
	g      *gen
	doc    *ast.QueryDocument
	snapQ  string
	before snapshot
	// beforeTxs is the database's transaction snapshot (xmin:xmax:xip)
	// when before was taken, if no transaction was in progress then.
	beforeTxs string
	cases     int
	// snapTime is the time spent digesting the tables.
	snapTime time.Duration
	// controls send each plausible input unchanged, once every hostile
	// case has run (they write): each must be taken, or refused for
	// something other than its shape (a 404 of an id a control before it
	// deleted), else the hostile cases built on it prove little.
	controls []control
}

type control struct {
	name         string
	method, path string // "" for /graphql
	body         []byte
}

// written fails t when a table changed since the last look. Where no
// transaction has taken a transaction id since then (every write takes
// one, and none was in progress at the last look), nothing can have
// changed, and the tables are not digested again: a refused request writes
// nothing, so most looks are that cheap one.
func (h *hostileRun) written(t *testing.T) {
	t.Helper()
	start := time.Now()
	defer func() { h.snapTime += time.Since(start) }()
	txs := transactions(t, h.api.DB)
	if h.beforeTxs != "" && txs == h.beforeTxs {
		return
	}
	after := takeSnapshot(t, h.api.DB, h.snapQ)
	if ch := h.before.changed(after); len(ch) > 0 {
		t.Errorf("rows written: %s", strings.Join(ch, ", "))
	}
	h.before, h.beforeTxs = after, ""
	// The digest stands for the state at txs only if nothing was in
	// progress then and nothing began since.
	if now := transactions(t, h.api.DB); now == txs && idle(txs) {
		h.beforeTxs = txs
	}
}

// transactions is the database's current transaction snapshot,
// xmin:xmax:in-progress ids.
func transactions(t *testing.T, db *sqlx.DB) string {
	t.Helper()
	var s string
	if err := db.Get(&s, `SELECT pg_current_snapshot()::text`); err != nil {
		t.Fatal(err)
	}
	return s
}

// idle is whether a transaction snapshot has none in progress (xmin = xmax).
func idle(txs string) bool {
	parts := strings.Split(txs, ":")
	return len(parts) == 3 && parts[0] == parts[1] && parts[2] == ""
}

func (h *hostileRun) alive(t *testing.T) {
	t.Helper()
	h.a.Get(t, "/healthz").Status(http.StatusOK)
}

func TestHostileInput(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	start := time.Now()
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	fx := seed(t, a)
	doc, err := parser.ParseQuery(&ast.Source{Input: rest.Document})
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileRun{api: api, a: a, doc: doc,
		g: &gen{schema: graph.NewExecutableSchema(graph.Config{}).Schema(), fx: fx}}
	h.snapQ = snapshotQuery(t, api.DB)
	h.before = takeSnapshot(t, api.DB, h.snapQ)

	t.Run("REST", h.restRoutes)
	restCases := h.cases
	t.Run("GraphQL", h.mutations)
	if restCases < 1000 || h.cases-restCases < 800 {
		t.Errorf("%d REST and %d GraphQL cases: fewer than the routes and mutations make", restCases, h.cases-restCases)
	}
	t.Run("plausible inputs", h.runControls)
	t.Logf("%d hostile requests in %v (%v of them digesting tables)", h.cases,
		time.Since(start).Round(time.Millisecond), h.snapTime.Round(time.Millisecond))
}

// restRoutes walks the route table.
func (h *hostileRun) restRoutes(t *testing.T) {
	var bodyRoutes, pathRoutes []string
	for _, tg := range targets(t, h.g.fx) {
		t.Run(tg.name(), func(t *testing.T) {
			if len(tg.params) > 0 {
				pathRoutes = append(pathRoutes, tg.name())
				h.pathCases(t, tg)
			}
			_, read, _ := tg.run([]byte("{}"))
			if !read {
				h.alive(t)
				return
			}
			bodyRoutes = append(bodyRoutes, tg.name())
			op := h.doc.Operations.ForName(tg.op)
			l, err := h.g.land(tg, op)
			if err != nil {
				t.Fatalf("where the body lands: %v", err)
			}
			h.bodyCases(t, tg, l)
			h.alive(t)
		})
	}
	t.Logf("%d routes read a body, %d have path parameters", len(bodyRoutes), len(pathRoutes))
	if len(bodyRoutes) < 30 {
		t.Errorf("only %d routes read a body: %v", len(bodyRoutes), bodyRoutes)
	}
	for _, must := range []string{"POST /api/v1/items", "PUT /api/v1/mdfs/{mdfId}", "PATCH /api/v1/itemMetadata/{id}",
		"PUT /api/v1/items/{itemId}/timedMetadata", "POST /api/v1/folders/ancestry",
		"POST /api/v1/items/{itemId}/attachments?isPrecheck=true"} {
		if !slices.Contains(bodyRoutes, must) {
			t.Errorf("%s is not covered as a body route", must)
		}
	}
}

// pathCases send hostile path parameters: refused by the URL's gate.
func (h *hostileRun) pathCases(t *testing.T, tg target) {
	for _, name := range slices.Sorted(maps.Keys(tg.params)) {
		v := tg.params[name]
		for _, bad := range []struct{ what, esc string }{{"NUL", "a%00b"}, {"invalid UTF-8", "a%ffb"}} {
			t.Run("path "+name+": "+bad.what, func(t *testing.T) {
				segs := strings.Split(tg.path, "/")
				segs[slices.Index(segs, v)] = bad.esc
				p := strings.Join(segs, "/")
				if tg.query != "" {
					p += "?" + tg.query
				}
				h.cases++
				var body any
				if tg.method != "GET" && tg.method != "DELETE" {
					body = []byte("{}")
				}
				// 404 (such bytes name nothing that can exist) or 400.
				r := h.a.Do(t, tg.method, p, body)
				if r.Code < 400 || r.Code > 499 {
					t.Errorf("status %d, want a 4xx; body: %.300q", r.Code, r.Body)
				} else {
					r.Envelope(r.Code, "")
				}
				h.written(t)
			})
		}
	}
}

// bodyCases send hostile bodies to tg.
func (h *hostileRun) bodyCases(t *testing.T, tg target, l *landing) {
	field := lastName(l.path)
	base := h.g.plausible(l.t, "", field)
	if o, ok := base.(obj); ok { // the binder's own keys stay out
		base = slices.DeleteFunc(slices.Clone(o), func(e kv) bool { return l.skip[e.k] })
	}
	body := func(v any) []byte { return encode(fill(l.template, v)) }
	baseBody := fill(l.template, base)
	p := tg.path
	if tg.query != "" {
		p += "?" + tg.query
	}
	h.controls = append(h.controls, control{name: tg.name(), method: tg.method, path: p, body: encode(baseBody)})

	type rawCase struct {
		name        string
		body        []byte
		unparsable  bool // the spec's BadBody applies
		want        string
		allowBinder bool // skip when the binder takes it (another accepted shape)
	}
	valid := encode(baseBody)
	raw := []rawCase{
		{name: "not JSON", body: valid[:len(valid)-1], unparsable: true},
		{name: "empty body", body: nil, unparsable: true, allowBinder: true},
		{name: "two values", body: append(slices.Clone(valid), []byte(" {}")...), unparsable: true},
		{name: "10,000-deep nesting", body: body(deep(10000))},
		{name: "5 for the body", body: []byte("5"), allowBinder: true},
		{name: "string for the body", body: []byte(`"x"`), allowBinder: true},
		{name: "null for the body", body: []byte("null"), allowBinder: true},
		{name: "[] for the body", body: []byte("[]"), allowBinder: true},
		{name: "{} for the body", body: []byte("{}"), allowBinder: true},
	}
	if o, ok := baseBody.(obj); ok {
		dup := obj{{"zzDup", 1}, {"zzDup", 2}}
		if len(o) > 0 {
			dup = append(slices.Clone(o), o[0])
		}
		raw = append(raw,
			rawCase{name: "duplicate key", body: encode(dup), want: dup[len(dup)-1].k},
			rawCase{name: "invalid UTF-8 key", body: encode(append(obj{{"a\xff", 1}}, o...))},
			rawCase{name: "unknown key", body: encode(append(slices.Clone(o), kv{unknownKey, 1})), want: unknownKey})
	}
	for _, rc := range raw {
		if rc.allowBinder {
			if _, _, err := tg.run(rc.body); err == nil {
				// A shape the route takes ({} an empty update, [] an
				// empty list, no body where it means the default —
				// migrateMediaLocation's): not hostile. No route takes a
				// scalar.
				if rc.name != "{} for the body" && rc.name != "[] for the body" && rc.name != "empty body" {
					t.Errorf("%s: the binder takes %s", rc.name, rc.body)
				}
				continue
			}
		}
		t.Run(rc.name, func(t *testing.T) {
			h.sendREST(t, tg, rc.body, rc.unparsable, rc.want)
		})
	}
	// The answer names the input by its key in the variables, unless the
	// input is the body itself (the variable input, or an object a binder
	// unwraps: it answers for the body's shape in its own words).
	want := field
	if len(l.path) == 1 && l.path[0] == "input" || h.g.def(l.t).Kind == ast.InputObject {
		want = ""
	}
	for _, c := range h.g.cases(base, nil, l.t, want, l.jsonName, l.skip, 0) {
		t.Run(c.name, func(t *testing.T) {
			h.sendREST(t, tg, body(c.v), false, c.want)
		})
	}
}

// sendREST sends body and checks the refusal: a 4xx (the route's BadBody
// for an unparsable body) in the envelope, naming want, nothing written.
func (h *hostileRun) sendREST(t *testing.T, tg target, body []byte, unparsable bool, want string) {
	t.Helper()
	h.cases++
	p := tg.path
	if tg.query != "" {
		p += "?" + tg.query
	}
	var b any = body
	if body == nil {
		b = []byte{}
	}
	r := h.a.Do(t, tg.method, p, b)
	defer h.written(t)
	if body == nil && tg.rt.NoBody != nil {
		r.Envelope(graph.StatusOf(tg.rt.NoBody.Kind), tg.rt.NoBody.Message)
		return
	}
	if unparsable && tg.rt.BadBody != nil {
		r.Envelope(graph.StatusOf(tg.rt.BadBody.Kind), tg.rt.BadBody.Message)
		return
	}
	if r.Code < 400 || r.Code > 499 {
		t.Errorf("status %d, want a 4xx; body: %.300q", r.Code, r.Body)
		return
	}
	env := r.Envelope(r.Code, "")
	if len(r.Body) > maxErrorAnswer {
		t.Errorf("an answer of %d bytes: errors must not echo the input", len(r.Body))
	}
	if want != "" && r.Code == http.StatusBadRequest {
		msg, _ := env["message"].(string)
		dev, _ := env["developerMessage"].(string)
		if !strings.Contains(msg+"\n"+dev, want) {
			t.Errorf("the answer does not name %s: message %.200q, developerMessage %.200q", want, msg, dev)
		}
	}
}

// mutations walks the schema's mutations.
func (h *hostileRun) mutations(t *testing.T) {
	n := 0
	for _, f := range h.g.schema.Mutation.Fields {
		if len(f.Arguments) == 0 || strings.HasPrefix(f.Name, "__") {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			var decls, args []string
			vars := obj{}
			for _, a := range f.Arguments {
				decls = append(decls, "$"+a.Name+": "+a.Type.String())
				args = append(args, a.Name+": $"+a.Name)
				v := h.g.plausible(a.Type, f.Name, a.Name)
				// An update names what it overwrites (MdfInput.id is
				// optional for createMdf, required for updateMdf), unless
				// an argument of its own names it (updateStorage(id:)).
				if d := h.g.def(a.Type); strings.HasPrefix(f.Name, "update") && f.Arguments.ForName("id") == nil && d.Kind == ast.InputObject &&
					d.Fields.ForName("id") != nil && getAt(v, []any{"id"}) == nil {
					v = setAt(v, []any{"id"}, h.g.fx.id(d.Name))
				}
				vars = append(vars, kv{a.Name, v})
			}
			sel := ""
			if k := h.g.def(f.Type).Kind; k == ast.Object || k == ast.Interface || k == ast.Union {
				sel = " { __typename }"
			}
			q := fmt.Sprintf("mutation(%s) { %s(%s)%s }", strings.Join(decls, ", "), f.Name, strings.Join(args, ", "), sel)
			h.controls = append(h.controls, control{name: f.Name, body: encode(obj{{"query", q}, {"variables", vars}})})
			for _, a := range f.Arguments {
				// Errors name where in the arguments they are, the usual
				// argument input left out (graph.inputPath).
				want := a.Name
				if want == "input" {
					want = ""
				}
				for _, c := range h.g.cases(vars, []any{a.Name}, a.Type, want, f.Name+"("+a.Name+")", nil, 0) {
					t.Run(c.name, func(t *testing.T) {
						h.sendGraphQL(t, encode(obj{{"query", q}, {"variables", c.v}}), c.want)
					})
				}
			}
			h.alive(t)
		})
	}
	t.Run("raw bodies", func(t *testing.T) {
		q := `mutation($input: CreateItemInput!) { createItem(input: $input) { __typename } }`
		for _, c := range []struct {
			name string
			body []byte
		}{
			{"duplicate key in variables", []byte(`{"query":` + strconv.Quote(q) + `,"variables":{"input":{"itemType":"video","itemType":"image"}}}`)},
			{"duplicate variable", []byte(`{"query":` + strconv.Quote(q) + `,"variables":{"input":{"itemType":"video"},"input":{"itemType":"video"}}}`)},
			{"duplicate query", []byte(`{"query":"{ __typename }","query":` + strconv.Quote(q) + `,"variables":{"input":{"itemType":"video"}}}`)},
			{"10,000-deep variables", []byte(`{"query":` + strconv.Quote(q) + `,"variables":{"input":{"itemType":"video","metadata":{"formData":{"a":` + string(deep(10000)) + `}}}}}`)},
			{"invalid UTF-8 in a variable", []byte(`{"query":` + strconv.Quote(q) + `,"variables":{"input":{"itemType":"video","title":"a` + "\xff" + `"}}}`)},
			{"invalid UTF-8 in the query", []byte(`{"query":"mutation { createItem(input: {itemType: \"video\", title: \"a` + "\xff" + `\"}) { __typename } }"}`)},
			{"NUL in the query", []byte(`{"query":"mutation { createItem(input: {itemType: \"video\", title: \"a\\u0000\"}) { __typename } }"}`)},
			{"not JSON", []byte(`{"query":`)},
		} {
			t.Run(c.name, func(t *testing.T) { h.sendGraphQL(t, c.body, "") })
		}
		h.alive(t)
	})
	t.Logf("%d mutations with arguments", n)
	if n < 45 {
		t.Errorf("only %d mutations with arguments", n)
	}
}

// sendGraphQL posts body to /graphql and checks the refusal: errors with a
// 4xx code, no data, nothing written.
func (h *hostileRun) sendGraphQL(t *testing.T, body []byte, want string) {
	t.Helper()
	h.cases++
	r := h.a.Post(t, "/graphql", body)
	defer h.written(t)
	if r.Code >= 500 {
		t.Errorf("status %d: %.300q", r.Code, r.Body)
		return
	}
	var out struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	r.JSON(&out)
	for k, v := range out.Data {
		if string(v) != "null" {
			t.Errorf("data.%s: %.300q", k, v)
		}
	}
	if len(out.Errors) == 0 {
		t.Errorf("no error: %.300q", r.Body)
		return
	}
	e := out.Errors[0]
	status, _ := e.Extensions["statusCode"].(float64)
	if status < 400 || status > 499 || e.Extensions["code"] == "INTERNAL" {
		t.Errorf("error %.200q, code %v, statusCode %v: want a 4xx", e.Message, e.Extensions["code"], e.Extensions["statusCode"])
		return
	}
	dev, _ := e.Extensions["developerMessage"].(string)
	if want != "" && e.Extensions["code"] == "BAD_USER_INPUT" && !strings.Contains(e.Message+"\n"+dev, want) {
		t.Errorf("the error does not name %s: %.200q, developerMessage %.200q", want, e.Message, dev)
	}
	if len(r.Body) > maxErrorAnswer {
		t.Errorf("an answer of %d bytes: errors must not echo the input", len(r.Body))
	}
}

// runControls sends the plausible inputs the hostile cases were built on.
func (h *hostileRun) runControls(t *testing.T) {
	for _, c := range h.controls {
		if probedControls[c.name] {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.method != "" {
				r := h.a.Do(t, c.method, c.path, c.body)
				if r.Code == http.StatusBadRequest || r.Code >= 500 {
					t.Errorf("%s refused: %d %.300s", c.body, r.Code, r.Body)
				}
				return
			}
			r := h.a.Post(t, "/graphql", c.body)
			var out struct {
				Errors []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			r.JSON(&out)
			for _, e := range out.Errors {
				if code := e.Extensions["code"]; code == "BAD_USER_INPUT" || code == "INTERNAL" ||
					code == "GRAPHQL_VALIDATION_FAILED" {
					t.Errorf("%.300s refused: %s %q", c.body, code, e.Message)
				}
			}
		})
	}
}
