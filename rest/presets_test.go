package rest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const (
	presetsPath      = "/prime/api/v1/presets"
	msgPresetsAdmins = "Only administrators may create, change and delete presets."
)

// fmtJSON is v as compact JSON (object keys sorted).
func fmtJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// specPresetKeys are 2.20's keys, all required in the create answer.
var specPresetKeys = []string{"id", "type", "filters", "name", "capabilities", "audioMapping", "createdByUserId", "usage"}

// presetList reads GET /prime/api/v1/presets and checks the {l, i, s, t}
// shape.
func presetList(t *testing.T, c *loupetest.Client, query string) (l []map[string]any, next any, size, total float64) {
	t.Helper()
	var out struct {
		L []map[string]any `json:"l"`
		I any              `json:"i"`
		S float64          `json:"s"`
		T float64          `json:"t"`
	}
	r := c.Get(t, presetsPath+query).Status(http.StatusOK)
	sameKeys(t, "preset list", r.Object(), []string{"l", "i", "s", "t"})
	r.JSON(&out)
	return out.L, out.I, out.S, out.T
}

// awaitPresetType polls the list until the preset is checked (type no
// longer unresolved, or a checkError), and answers it.
func awaitPresetType(t *testing.T, c *loupetest.Client, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		l, _, _, _ := presetList(t, c, "?s=1000")
		for _, p := range l {
			if p["id"] == id && (p["type"] != "unresolved" || p["checkError"] != nil) {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("preset %s still unresolved: %v", id, l)
		}
	}
}

// A preset is created with the spec's record (type unresolved), resolved
// by a real dry run into what it makes, listed as {l, i, s, t} for every
// user, changed only to settings ffmpeg accepts, and deleted only when
// nothing uses it.
func TestPresets(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", nil, false)
	other := api.Tenant(t, "b")

	created := a.Post(t, presetsPath, map[string]any{"name": "HD delivery"}).Status(http.StatusOK).Object()
	for _, k := range specPresetKeys {
		if _, ok := created[k]; !ok {
			t.Fatalf("create answer lacks %s: %v", k, created)
		}
	}
	id := created["id"].(string)
	if created["type"] != "unresolved" || created["createdByUserId"] != a.UserID || created["name"] != "HD delivery" {
		t.Fatalf("created: %v", created)
	}
	mapping := created["audioMapping"].([]any)
	if len(mapping) != 16 {
		t.Fatalf("audioMapping has %d rows", len(mapping))
	}
	for r, want := range map[int]string{0: "[0,0,0,0]", 1: "[0,1,0,0]", 2: "[-1,0,0,0]", 15: "[-1,0,0,0]"} {
		if got := fmtJSON(mapping[r]); got != want {
			t.Fatalf("row %d = %s, want %s", r, got, want)
		}
	}
	if fmtJSON(created["capabilities"]) != `["rendering"]` || fmtJSON(created["filters"]) != `{"choices":[],"type":"all"}` ||
		fmtJSON(created["usage"]) != `[]` {
		t.Fatalf("defaults: %v", created)
	}

	// The dry run resolves the type: what ffmpeg made of a second of media.
	checked := awaitPresetType(t, a, id)
	if checked["type"] != "mp4/h264/1920x1080/25/aac/2ch" || checked["checkError"] != nil || checked["checkedOn"] == nil {
		t.Fatalf("checked: %v", checked)
	}

	// Every user lists presets; only admins write them; another tenant
	// sees none of them.
	l, next, size, total := presetList(t, ed, "")
	if len(l) != 1 || next != nil || size != 100 || total != 1 {
		t.Fatalf("list: %v %v %v %v", l, next, size, total)
	}
	ed.Post(t, presetsPath, map[string]any{"name": "mine"}).Envelope(http.StatusForbidden, msgPresetsAdmins)
	ed.Put(t, presetsPath+"/"+id, map[string]any{"name": "mine"}).Envelope(http.StatusForbidden, msgPresetsAdmins)
	ed.Delete(t, presetsPath+"/"+id).Envelope(http.StatusForbidden, msgPresetsAdmins)
	if l, _, _, total := presetList(t, other, ""); len(l) != 0 || total != 0 {
		t.Fatalf("b sees %v", l)
	}
	other.Put(t, presetsPath+"/"+id, map[string]any{"name": "theirs"}).Envelope(http.StatusNotFound, "")
	other.Delete(t, presetsPath+"/"+id).Envelope(http.StatusNotFound, "")

	// A 5.1 ProRes master: the mapping compiles, the dry run resolves it.
	sixRows := [][]int{{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, -3, 0}, {1, 0, 0, 1}, {0, 0, -6, 2}, {0, 1, -6, 0}}
	for len(sixRows) < 16 {
		sixRows = append(sixRows, []int{-1, 0, 0, 0})
	}
	master := a.Post(t, presetsPath, map[string]any{"name": "ProRes master", "audioMapping": sixRows,
		"output": map[string]any{"container": "mov",
			"video": map[string]any{"codec": "prores", "profile": "hq", "width": 1280, "height": 720, "frameRate": "30000/1001"},
			"audio": map[string]any{"codec": "pcm_s24le", "sampleRate": 48000}},
		"filters": map[string]any{"type": "itemType", "choices": []any{map[string]any{"label": "Video", "value": "video"}}},
	}).Status(http.StatusOK).Object()
	if got := awaitPresetType(t, a, master["id"].(string)); got["type"] != "mov/prores/1280x720/30000/1001/pcm_s24le/6ch" {
		t.Fatalf("master: %v", got)
	}

	// A change ffmpeg refuses (ProRes in MP4) is refused with its reason,
	// and changes nothing.
	before := a.Get(t, presetsPath).Object()
	env := a.Put(t, presetsPath+"/"+id, map[string]any{"output": map[string]any{"container": "mp4",
		"video": map[string]any{"codec": "prores", "width": 1920, "height": 1080, "frameRate": "25"}}}).
		Envelope(http.StatusBadRequest, "")
	if msg, _ := env["message"].(string); !strings.HasPrefix(msg, "output: the dry run failed:") {
		t.Fatalf("refused change: %v", env)
	}
	if after := a.Get(t, presetsPath).Object(); fmtJSON(after) != fmtJSON(before) {
		t.Fatalf("a refused change changed:\n%v\n%v", before, after)
	}

	// A change it accepts is resolved at once; a record read back is
	// written back as it is (its read-only keys dropped).
	changed := a.Put(t, presetsPath+"/"+id, map[string]any{"name": "HD 50", "output": map[string]any{"container": "mov",
		"video": map[string]any{"codec": "h264", "width": 1920, "height": 1080, "frameRate": "50"},
		"audio": map[string]any{"codec": "pcm_s16le", "sampleRate": 48000}}}).Status(http.StatusOK).Object()
	if changed["type"] != "mov/h264/1920x1080/50/pcm_s16le/2ch" || changed["name"] != "HD 50" {
		t.Fatalf("changed: %v", changed)
	}
	again := a.Put(t, presetsPath+"/"+id, changed).Status(http.StatusOK).Object()
	if again["type"] != changed["type"] || fmtJSON(again["audioMapping"]) != fmtJSON(changed["audioMapping"]) {
		t.Fatalf("written back: %v", again)
	}

	// Bad input names its field and changes nothing.
	rows := func(n int) [][]any {
		out := make([][]any, n)
		for i := range out {
			out[i] = []any{-1, 0, 0, 0}
		}
		return out
	}
	with := func(r int, row []any) [][]any { m := rows(16); m[r] = row; return m }
	for _, c := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"15 rows", map[string]any{"name": "x", "audioMapping": rows(15)}, "audioMapping must have exactly 16 rows, not 15"},
		{"3 integers", map[string]any{"name": "x", "audioMapping": with(4, []any{0, 0, 0})}, "audioMapping row 4 must have 4 integers"},
		{"strings", map[string]any{"name": "x", "audioMapping": with(2, []any{"left", 0, 0, 0})}, "audioMapping"},
		{"stream out of range", map[string]any{"name": "x", "audioMapping": with(2, []any{16, 0, 0, 0})}, "audioMapping row 2: stream 16"},
		{"gain out of range", map[string]any{"name": "x", "audioMapping": with(0, []any{0, 0, 30, 0})}, "audioMapping row 0: gain 30 dB"},
		{"flags out of range", map[string]any{"name": "x", "audioMapping": with(7, []any{0, 0, 0, 4})}, "audioMapping row 7: flags 4"},
		{"unused row with values", map[string]any{"name": "x", "audioMapping": with(9, []any{-1, 2, 0, 0})}, "audioMapping row 9: an unused row"},
		{"no name", map[string]any{"name": " "}, "name must be 1 to 200 characters"},
		{"container", map[string]any{"name": "x", "output": map[string]any{"container": "avi"}}, "output.container"},
		{"odd width", map[string]any{"name": "x", "output": map[string]any{"container": "mp4",
			"video": map[string]any{"codec": "h264", "width": 1919, "height": 1080, "frameRate": "25"}}}, "output.video.width 1919"},
		{"frame rate", map[string]any{"name": "x", "output": map[string]any{"container": "mp4",
			"video": map[string]any{"codec": "h264", "width": 1920, "height": 1080, "frameRate": "fast"}}}, "output.video.frameRate"},
		{"capability", map[string]any{"name": "x", "capabilities": []string{"flying"}}, "capabilities[0]"},
		{"filter type", map[string]any{"name": "x", "filters": map[string]any{"type": "colour"}}, "filters.type"},
		{"unknown folder", map[string]any{"name": "x", "filters": map[string]any{"type": "folder",
			"choices": []any{map[string]any{"label": "News", "value": "00000000-0000-4000-8000-000000000001"}}}}, "filters.choices[0].value"},
	} {
		env := a.Post(t, presetsPath, c.body).Envelope(http.StatusBadRequest, "")
		msg, _ := env["message"].(string)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, msg, c.want)
		}
	}
	if _, _, _, total := presetList(t, a, ""); total != 2 {
		t.Fatalf("bad input made presets: %v", total)
	}

	// In use (the tenant configuration's default subclip preset): refused
	// with the use; unused: deleted, and gone.
	a.Post(t, configPath, map[string]any{"defaultSubclipPresetId": id}).Status(http.StatusOK)
	l, _, _, _ = presetList(t, a, "")
	if i := slices.IndexFunc(l, func(p map[string]any) bool { return p["id"] == id }); fmtJSON(l[i]["usage"]) !=
		`[{"id":"defaultSubclipPresetId","itemId":"","state":"","type":"tenantConfig"}]` {
		t.Fatalf("usage: %v", l[i]["usage"])
	}
	env = a.Delete(t, presetsPath+"/"+id).Envelope(http.StatusConflict, "")
	if msgs := fmtJSON(env["payload"]); !strings.Contains(msgs, "tenantConfig defaultSubclipPresetId") {
		t.Fatalf("in use: %v", env)
	}
	a.Post(t, configPath, map[string]any{"defaultSubclipPresetId": nil}).Status(http.StatusOK)
	a.Delete(t, presetsPath+"/"+id).Status(http.StatusOK)
	a.Delete(t, presetsPath+"/"+id).Envelope(http.StatusNotFound, "")
	if _, _, _, total := presetList(t, a, ""); total != 1 {
		t.Fatalf("after the delete: %v presets", total)
	}

	// Paging: index and size.
	a.Post(t, presetsPath, map[string]any{"name": "third"}).Status(http.StatusOK)
	if l, next, size, total := presetList(t, a, "?i=0&s=1"); len(l) != 1 || next != float64(1) || size != 1 || total != 2 {
		t.Fatalf("page 1: %v %v %v %v", l, next, size, total)
	}
	if l, next, _, _ := presetList(t, a, "?i=1&s=1"); len(l) != 1 || l[0]["name"] != "third" || next != nil {
		t.Fatalf("page 2: %v %v", l, next)
	}
	a.Get(t, presetsPath+"?s=0").Envelope(http.StatusBadRequest, "")
	// One preset by id is no path of the spec's.
	a.Get(t, presetsPath+"/"+master["id"].(string)).Status(http.StatusNotFound)
}
