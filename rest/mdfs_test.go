package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// Metadata definition forms and option lists (spec 2.22, 2.23, 4.8), and
// the checks of every metadata write against its form.

const (
	mdfPath         = "/api/v1/mdfs"
	olPath          = "/api/v1/optionLists"
	mdfMsgAdminOnly = "Only administrators may change metadata forms and option lists."
	mdfMsgNotFound  = "The server can not find requested resource."
)

var (
	// The whole form: what get-one, create and overwrite answer.
	mdfRecordKeys = strings.Fields(`id label displayName active flavor color icon rule fields views viewSections
permissions usageRules modifiedOn`)
	// A list entry of spec 2.22, with the form's fields; the optional keys
	// are there only when set.
	mdfEntryKeys         = strings.Fields(`id label active modifiedOn fields`)
	mdfEntryOptionalKeys = strings.Fields(`flavor color icon rule usageRules`)
	mdfFieldKeys         = strings.Fields(`id fieldId label type required readOnly sortable systemDefaultField defaultValue alternatives optionListId`)
	optionListKeys       = strings.Fields(`id name optionListType alternatives modifiedOn`)
	defaultFormIDs       = []string{"default", "default_audio", "default_detected_text", "default_folder", "default_image",
		"default_restricted", "default_video"}
)

// mdfList is the forms c lists, each entry checked for the spec's keys.
func mdfList(t *testing.T, c *loupetest.Client) []map[string]any {
	t.Helper()
	var out struct {
		Embedded struct {
			Collection []map[string]any `json:"collection"`
		} `json:"_embedded"`
	}
	got := c.Get(t, mdfPath).Status(http.StatusOK)
	sameKeys(t, "form list", got.Object(), []string{"_embedded"})
	got.JSON(&out)
	for _, e := range out.Embedded.Collection {
		want := slices.Clone(mdfEntryKeys)
		for _, k := range mdfEntryOptionalKeys {
			if v, ok := e[k]; ok {
				if v == nil {
					t.Fatalf("form list entry %v: %s is null, want it left out", e["id"], k)
				}
				want = append(want, k)
			}
		}
		sameKeys(t, "form list entry", e, want)
		fields, _ := e["fields"].([]any)
		for i, f := range fields {
			sameKeys(t, fmt.Sprintf("form list entry %v field %d", e["id"], i), f.(map[string]any), mdfFieldKeys)
		}
	}
	return out.Embedded.Collection
}

func mdfIDsOf(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i], _ = e["id"].(string)
	}
	return out
}

// mdfRecord checks a form record's keys and its fields' keys.
func mdfRecord(t *testing.T, what string, got map[string]any) map[string]any {
	t.Helper()
	sameKeys(t, what, got, mdfRecordKeys)
	fields, _ := got["fields"].([]any)
	for i, f := range fields {
		sameKeys(t, fmt.Sprintf("%s field %d", what, i), f.(map[string]any), mdfFieldKeys)
	}
	return got
}

// fieldOf is the field of id in a form record.
func fieldOf(t *testing.T, form map[string]any, id string) map[string]any {
	t.Helper()
	for _, f := range form["fields"].([]any) {
		if m := f.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("form %v has no field %s", form["id"], id)
	return nil
}

func fieldIDs(form map[string]any) []string {
	var out []string
	for _, f := range form["fields"].([]any) {
		out = append(out, f.(map[string]any)["id"].(string))
	}
	return out
}

// olCreate makes an option list as c.
func olCreate(t *testing.T, c *loupetest.Client, name string, values ...string) map[string]any {
	t.Helper()
	alts := make([]any, len(values))
	for i, v := range values {
		alts[i] = map[string]any{"value": v, "label": strings.ToUpper(v[:1]) + v[1:]}
	}
	got := c.Post(t, olPath, map[string]any{"name": name, "alternatives": alts}).Status(http.StatusOK).Object()
	sameKeys(t, "option list", got, optionListKeys)
	return got
}

// newsForm is a form with a field of every type, an option list's
// alternatives, a read-only field with a default and every optional key.
func newsForm(listID string) map[string]any {
	return map[string]any{
		"id": "news", "label": "News", "displayName": "News story", "color": "#FF8800CC", "icon": "newspaper",
		"rule": "{title} – {genre}", "flavor": "technical_data",
		"fields": []any{
			map[string]any{"fieldId": "genre", "label": "Genre", "type": "choice", "required": true, "optionListId": listID},
			map[string]any{"fieldId": "aired", "label": "Aired", "type": "date", "sortable": true},
			map[string]any{"fieldId": "topics", "label": "Topics", "type": "multiplechoice", "alternatives": []any{
				map[string]any{"value": "politics", "label": "Politics"}, map[string]any{"value": "sport"}}},
			map[string]any{"fieldId": "breaking", "label": "Breaking", "type": "checkbox"},
			map[string]any{"fieldId": "duration", "label": "Duration", "type": "number"},
			map[string]any{"fieldId": "source", "label": "Source", "type": "link"},
			map[string]any{"fieldId": "editor", "label": "Editor", "type": "user"},
			map[string]any{"id": "news_desk", "fieldId": "desk", "label": "Desk", "type": "text", "readOnly": true,
				"defaultValue": "national"},
		},
		"views":        map[string]any{"compact": []any{"genre", "aired"}},
		"viewSections": map[string]any{"main": map[string]any{"label": "Main", "fields": []any{"genre"}}},
		"permissions":  map[string]any{"read": map[string]any{"groups": []any{"news"}}, "write": map[string]any{}},
		"usageRules": []any{map[string]any{
			"identifier": map[string]any{"key": "embargo", "label": "Embargo"},
			"contexts": []any{map[string]any{"name": "web", "warningLevel": "always",
				"validity": map[string]any{"from": map[string]any{"offsetFrom": "forever"}, "to": map[string]any{"offsetFrom": "forever"}}}},
		}},
	}
}

func TestEveryTenantStartsWithTheDefaultForms(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	list := mdfList(t, a)
	if got := mdfIDsOf(list); !slices.Equal(got, defaultFormIDs) {
		t.Fatalf("forms of a new tenant = %v, want %v", got, defaultFormIDs)
	}
	for _, e := range list {
		if e["active"] != true || e["label"] == "" || e["modifiedOn"] == nil {
			t.Fatalf("default form entry %v", e)
		}
	}
	def := mdfRecord(t, "default form", a.Get(t, mdfPath+"/default").Status(http.StatusOK).Object())
	for id, label := range map[string]string{"default_title": "Title", "default_description": "Description"} {
		f := fieldOf(t, def, id)
		if f["label"] != label || f["type"] != "text" || f["systemDefaultField"] != true || f["required"] != false {
			t.Fatalf("default form field %s = %v", id, f)
		}
	}
	if def["label"] != "Default" || def["displayName"] != "Default" || def["flavor"] != nil {
		t.Fatalf("default form = %v", def)
	}
	sameJSON(t, "default permissions", def["permissions"], map[string]any{"read": map[string]any{}, "write": map[string]any{}})
	if f := a.Get(t, mdfPath+"/default_detected_text").Status(http.StatusOK).Object(); f["flavor"] != "timed-metadata" {
		t.Fatalf("default_detected_text flavor = %v", f["flavor"])
	}
	// Every default form has the system fields and cannot be deleted.
	for _, id := range defaultFormIDs {
		f := mdfRecord(t, id, a.Get(t, mdfPath+"/"+id).Status(http.StatusOK).Object())
		if ids := fieldIDs(f); len(ids) < 2 || ids[0] != "default_title" || ids[1] != "default_description" {
			t.Fatalf("form %s fields %v", id, ids)
		}
		a.Delete(t, mdfPath+"/"+id).Envelope(http.StatusBadRequest, "Cannot delete default form")
	}
	if got := mdfIDsOf(mdfList(t, a)); !slices.Equal(got, defaultFormIDs) {
		t.Fatalf("forms after refused deletes = %v", got)
	}
	// Items made with the default form keep working as before forms.
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video",
		"metadata": map[string]any{"formData": map[string]any{"default_description": "raw", "reel": "A001"}}})
	fd := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()["metadata"].(map[string]any)["formData"]
	sameJSON(t, "form data", fd, map[string]any{"default_title": "Clip", "default_description": "raw", "reel": "A001"})
}

// A list entry leaves out the optional keys of a form that has none set
// (the spec's "or absent"), has those that are set, and carries the form's
// fields as get-one answers them — read in the list's one statement,
// however many forms and option lists there are.
func TestFormListEntries(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	listID := olCreate(t, a, "Genres", "report", "interview")["id"].(string)
	news := mdfRecord(t, "news", a.Post(t, mdfPath, newsForm(listID)).Status(http.StatusOK).Object())
	plain := mdfRecord(t, "plain", a.Post(t, mdfPath, map[string]any{"id": "plain", "label": "Plain"}).Status(http.StatusOK).Object())
	if plain["color"] != nil || plain["rule"] != nil || plain["flavor"] != nil || plain["icon"] != nil || plain["usageRules"] != nil {
		t.Fatalf("plain form = %v", plain)
	}

	entries := map[string]map[string]any{}
	for _, e := range mdfList(t, a) { // checks the keys of every entry
		entries[e["id"].(string)] = e
	}
	for _, k := range mdfEntryOptionalKeys {
		if _, ok := entries["plain"][k]; ok {
			t.Fatalf("plain entry has %s: %v", k, entries["plain"])
		}
	}
	for _, k := range append(slices.Clone(mdfEntryKeys), mdfEntryOptionalKeys...) {
		sameJSON(t, "news entry "+k, entries["news"][k], news[k])
	}
	sameJSON(t, "plain entry fields", entries["plain"]["fields"], plain["fields"])
	if f := entries["default_detected_text"]; f["flavor"] != "timed-metadata" || len(f["fields"].([]any)) < 2 {
		t.Fatalf("default_detected_text entry = %v", f)
	}

	// The list costs the same statements with more forms and option lists.
	api.Statements.Reset()
	mdfList(t, a)
	before := api.Statements.Count()
	for i := range 3 {
		id := olCreate(t, a, fmt.Sprintf("List %d", i), "x", "y")["id"].(string)
		a.Post(t, mdfPath, map[string]any{"id": fmt.Sprintf("more%d", i), "label": "More", "fields": []any{
			map[string]any{"fieldId": "pick", "type": "choice", "optionListId": id}}}).Status(http.StatusOK)
	}
	api.Statements.Reset()
	if got := mdfList(t, a); len(got) != len(defaultFormIDs)+5 {
		t.Fatalf("%d forms listed", len(got))
	}
	if after := api.Statements.Count(); after != before {
		t.Fatalf("the list cost %d statements with 3 more forms, %d before", after, before)
	}
}

func TestCreateReadOverwriteAndDeleteAForm(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	list := olCreate(t, a, "Genres", "report", "interview")
	listID := list["id"].(string)

	created := mdfRecord(t, "created form", a.Post(t, mdfPath, newsForm(listID)).Status(http.StatusOK).Object())
	if created["id"] != "news" || created["label"] != "News" || created["displayName"] != "News story" ||
		created["active"] != true || created["color"] != "#FF8800CC" || created["icon"] != "newspaper" ||
		created["rule"] != "{title} – {genre}" || created["flavor"] != "technical_data" {
		t.Fatalf("created form = %v", created)
	}
	// The system fields come first; fields without an id take their fieldId.
	wantIDs := []string{"default_title", "default_description", "genre", "aired", "topics", "breaking", "duration",
		"source", "editor", "news_desk"}
	if got := fieldIDs(created); !slices.Equal(got, wantIDs) {
		t.Fatalf("field ids = %v, want %v", got, wantIDs)
	}
	genre := fieldOf(t, created, "genre")
	sameJSON(t, "genre", genre, map[string]any{"id": "genre", "fieldId": "genre", "label": "Genre", "type": "choice",
		"required": true, "readOnly": false, "sortable": false, "systemDefaultField": false, "defaultValue": nil,
		"optionListId": listID, "alternatives": []any{map[string]any{"value": "report", "label": "Report"},
			map[string]any{"value": "interview", "label": "Interview"}}})
	sameJSON(t, "topics alternatives", fieldOf(t, created, "topics")["alternatives"], []any{
		map[string]any{"value": "politics", "label": "Politics"}, map[string]any{"value": "sport", "label": "sport"}})
	if d := fieldOf(t, created, "news_desk"); d["fieldId"] != "desk" || d["readOnly"] != true || d["defaultValue"] != "national" ||
		d["alternatives"] != nil {
		t.Fatalf("desk field = %v", d)
	}
	for _, k := range []string{"views", "viewSections", "permissions", "usageRules"} {
		sameJSON(t, k, created[k], newsForm(listID)[k])
	}

	// A read answers what the create answered, and is in the list.
	got := mdfRecord(t, "read form", a.Get(t, mdfPath+"/news").Status(http.StatusOK).Object())
	sameJSON(t, "read form", got, created)
	if ids := mdfIDsOf(mdfList(t, a)); !slices.Contains(ids, "news") || len(ids) != len(defaultFormIDs)+1 {
		t.Fatalf("list = %v", ids)
	}

	// What a read answers can be written back as it is.
	again := mdfRecord(t, "rewritten form", a.Put(t, mdfPath+"/news", got).Status(http.StatusOK).Object())
	delete(again, "modifiedOn")
	delete(got, "modifiedOn")
	sameJSON(t, "form written back", again, got)

	// An overwrite replaces every key it is given; keys it leaves out keep
	// their stored values, keys given as null take their defaults.
	over := mdfRecord(t, "overwritten form", a.Put(t, mdfPath+"/news", map[string]any{
		"id": "ignored", "label": "News 2", "color": nil, "rule": nil, "usageRules": nil, "flavor": nil, "views": nil,
		"fields": []any{map[string]any{"fieldId": "genre", "type": "text"}},
	}).Status(http.StatusOK).Object())
	if over["id"] != "news" || over["label"] != "News 2" || over["displayName"] != "News story" || over["color"] != nil ||
		over["rule"] != nil || over["usageRules"] != nil || over["flavor"] != nil || over["icon"] != "newspaper" {
		t.Fatalf("overwritten form = %v", over)
	}
	sameJSON(t, "views given as null", over["views"], map[string]any{})
	sameJSON(t, "viewSections left out", over["viewSections"], newsForm(listID)["viewSections"])
	if ids := fieldIDs(over); !slices.Equal(ids, []string{"default_title", "default_description", "genre"}) {
		t.Fatalf("overwritten fields = %v", ids)
	}
	sameJSON(t, "overwrite answer", over, a.Get(t, mdfPath+"/news").Status(http.StatusOK).Object())

	// A form without an id gets a UUIDv7; an id in use is a conflict.
	anon := mdfRecord(t, "form without id", a.Post(t, mdfPath, map[string]any{"label": "Anon"}).Status(http.StatusOK).Object())
	if id, _ := anon["id"].(string); len(id) != 36 || id[14] != '7' {
		t.Fatalf("id = %v, want a UUIDv7", anon["id"])
	}
	a.Post(t, mdfPath, map[string]any{"id": "news", "label": "Twice"}).Envelope(http.StatusConflict, `A form with id "news" already exists`)
	a.Post(t, mdfPath, map[string]any{"id": "default", "label": "Twice"}).Envelope(http.StatusConflict, `A form with id "default" already exists`)

	// Delete answers the id; the form is gone.
	// The original service's clients type the answer as a string: the id.
	var deleted any
	a.Delete(t, mdfPath+"/news").Status(http.StatusOK).JSON(&deleted)
	if deleted != "news" {
		t.Fatalf("delete answered %#v, want the JSON string \"news\"", deleted)
	}
	a.Get(t, mdfPath+"/news").Envelope(http.StatusNotFound, mdfMsgNotFound)
	a.Delete(t, mdfPath+"/news").Envelope(http.StatusNotFound, mdfMsgNotFound)
	a.Put(t, mdfPath+"/news", map[string]any{"label": "x", "fields": []any{}}).Envelope(http.StatusNotFound, mdfMsgNotFound)
	if ids := mdfIDsOf(mdfList(t, a)); slices.Contains(ids, "news") {
		t.Fatalf("list after delete = %v", ids)
	}
}

// PUT with only some top-level keys — clients of the original service
// send just {fields} — keeps the others as stored and answers the whole
// stored form (spec 2.22). Kept keys are checked with the given ones as if
// written; a key given as null takes its default; fields given as null and
// unknown keys are still refused. GraphQL's updateMdf does the same.
func TestPartialFormOverwriteKeepsWhatItLeavesOut(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	listID := olCreate(t, a, "Genres", "report", "interview")["id"].(string)
	stored := mdfRecord(t, "created", a.Post(t, mdfPath, newsForm(listID)).Status(http.StatusOK).Object())
	same := func(what string, got map[string]any, except ...string) {
		t.Helper()
		for k, v := range stored {
			if k != "modifiedOn" && !slices.Contains(except, k) {
				sameJSON(t, what+": "+k, got[k], v)
			}
		}
		sameJSON(t, what+": answer and read", got, a.Get(t, mdfPath+"/news").Status(http.StatusOK).Object())
	}

	// Only fields: the rest is kept; genre keeps its option list, a field
	// given without an id keeps its id (news_desk).
	fields := []any{
		map[string]any{"fieldId": "genre", "label": "Genre", "type": "choice", "required": true, "optionListId": listID},
		map[string]any{"fieldId": "desk", "label": "Desk", "type": "text", "readOnly": true, "defaultValue": "national"},
		map[string]any{"fieldId": "mood", "type": "text"},
	}
	got := mdfRecord(t, "fields only", a.Put(t, mdfPath+"/news", map[string]any{"fields": fields}).Status(http.StatusOK).Object())
	same("fields only", got, "fields")
	if ids := fieldIDs(got); !slices.Equal(ids, []string{"default_title", "default_description", "genre", "news_desk", "mood"}) {
		t.Fatalf("fields only: field ids %v", ids)
	}
	stored = got

	// Only the label: the fields are kept as they are, the option list's
	// alternatives included.
	got = mdfRecord(t, "label only", a.Put(t, mdfPath+"/news", map[string]any{"label": "Nachrichten"}).Status(http.StatusOK).Object())
	if got["label"] != "Nachrichten" || got["displayName"] != "News story" {
		t.Fatalf("label only: %v", got)
	}
	same("label only", got, "label")
	stored = got

	// What is read can be written back whole, as before.
	same("written back", mdfRecord(t, "written back", a.Put(t, mdfPath+"/news", got).Status(http.StatusOK).Object()))

	// A kept rule is checked against the given fields: {genre} must stay.
	a.Put(t, mdfPath+"/news", map[string]any{"fields": []any{map[string]any{"fieldId": "mood", "type": "text"}}}).
		Envelope(http.StatusBadRequest, "rule: {genre} names no fieldId of the form")
	// null is not "left out": label is required, fields cannot be emptied
	// by null; unknown keys are refused.
	for _, body := range []map[string]any{
		{"label": nil},
		{"fields": nil},
		{"fields": fields, "colour": "#FF0000FF"},
		{"fields": fields, "modifiedBy": "me"},
	} {
		a.Put(t, mdfPath+"/news", body).Envelope(http.StatusBadRequest, "")
	}
	same("after refused overwrites", a.Get(t, mdfPath+"/news").Status(http.StatusOK).Object())

	// The same through GraphQL.
	var out struct {
		UpdateMdf struct {
			Mdf map[string]any `json:"mdf"`
		} `json:"updateMdf"`
	}
	a.GraphQL(t, `mutation { updateMdf(input: {id: "news", icon: "radio"}) { mdf { id label icon rule color fields { id } } } }`, nil).OK(&out)
	m := out.UpdateMdf.Mdf
	if m["icon"] != "radio" || m["label"] != "Nachrichten" || m["rule"] != "{title} – {genre}" || m["color"] != "#FF8800CC" ||
		len(m["fields"].([]any)) != 5 {
		t.Fatalf("GraphQL partial update: %v", m)
	}
	a.GraphQL(t, `mutation($in: MdfInput!) { updateMdf(input: $in) { mdf { icon color } } }`,
		map[string]any{"in": map[string]any{"id": "news", "color": nil}}).OK(&out)
	if m := out.UpdateMdf.Mdf; m["icon"] != "radio" || m["color"] != nil {
		t.Fatalf("GraphQL update with color null: %v", m)
	}
}

func TestBadFormDefinitionsAreRefusedAndChangeNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	listID := olCreate(t, a, "Genres", "report")["id"].(string)
	a.Post(t, mdfPath, map[string]any{"id": "kept", "label": "Kept", "fields": []any{
		map[string]any{"fieldId": "genre", "type": "text"}}}).Status(http.StatusOK)
	choice := func(extra map[string]any) map[string]any {
		f := map[string]any{"fieldId": "genre", "type": "choice", "alternatives": []any{map[string]any{"value": "a"}}}
		for k, v := range extra {
			f[k] = v
		}
		return map[string]any{"label": "X", "fields": []any{f}}
	}
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"not JSON", "{", "The server could not understand the request due to invalid syntax."},
		{"no label", map[string]any{"fields": []any{}}, "label is required"},
		{"label not a string", map[string]any{"label": 5}, "label: must be a string"},
		{"active not a boolean", map[string]any{"label": "X", "active": "yes"}, ""},
		{"unknown key", map[string]any{"label": "X", "colour": "#00000000"}, ""},
		{"bad id", map[string]any{"id": "a b", "label": "X"}, `id: invalid "a b": 1 to 128 letters, digits, _ and -`},
		{"color without alpha", map[string]any{"label": "X", "color": "#FF8800"}, `color: expected #RRGGBBAA (8 hex digits), got "#FF8800"`},
		{"color not hex", map[string]any{"label": "X", "color": "#GG8800CC"}, `color: expected #RRGGBBAA (8 hex digits), got "#GG8800CC"`},
		{"unknown flavor", map[string]any{"label": "X", "flavor": "timed"}, `flavor: expected technical_data or timed-metadata, got "timed"`},
		{"rule names no field", map[string]any{"label": "X", "rule": "{title} {nope}"}, "rule: {nope} names no fieldId of the form"},
		{"rule braces", map[string]any{"label": "X", "rule": "{title"}, "rule: unbalanced braces: placeholders are {fieldId}"},
		{"field without type", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a"}}}, "fields[0].type is required"},
		{"field of unknown type", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a", "type": "texty"}}}, ""},
		{"field without fieldId", map[string]any{"label": "X", "fields": []any{map[string]any{"type": "text"}}}, "fields[0].fieldId is required"},
		{"bad fieldId", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a.b", "type": "text"}}},
			`fields[0].fieldId: invalid "a.b": 1 to 128 letters, digits, _ and -`},
		{"fieldId twice", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a", "type": "text"},
			map[string]any{"id": "b", "fieldId": "a", "type": "text"}}}, `fields[1].fieldId: "a" is given twice`},
		{"id twice", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a", "type": "text"},
			map[string]any{"id": "a", "fieldId": "b", "type": "text"}}}, `fields[1].id: "a" is given twice`},
		{"system field retyped", map[string]any{"label": "X", "fields": []any{map[string]any{"id": "default_title", "fieldId": "title", "type": "number"}}},
			`fields[0].type: "default_title" is a system field and always text`},
		{"choice without alternatives", choice(map[string]any{"alternatives": []any{}}), "fields[0]: a choice field needs alternatives or an optionListId"},
		{"alternative twice", choice(map[string]any{"alternatives": []any{map[string]any{"value": "a"}, map[string]any{"value": "a"}}}),
			`fields[0].alternatives[1].value: "a" is given twice`},
		{"empty alternative", choice(map[string]any{"alternatives": []any{map[string]any{"value": ""}}}),
			"fields[0].alternatives[0].value: 1 to 1024 characters"},
		{"unknown option list", choice(map[string]any{"alternatives": nil, "optionListId": "01a20242-9dca-771b-bd4e-ca31c13a56ec"}),
			"fields[0].optionListId: option list 01a20242-9dca-771b-bd4e-ca31c13a56ec does not exist"},
		{"alternatives on text", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a", "type": "text", "optionListId": listID}}},
			"fields[0]: only choice and multiplechoice fields take alternatives"},
		{"default not among alternatives", choice(map[string]any{"defaultValue": "b"}), `fields[0].defaultValue: expected one of "a"`},
		{"default of wrong type", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "n", "type": "number", "defaultValue": "5"}}},
			"fields[0].defaultValue: expected a number"},
		{"default user of nobody", map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "u", "type": "user",
			"defaultValue": "01a20242-9dca-771b-bd4e-ca31c13a56ec"}}}, "fields[0].defaultValue: expected the id of a user of the tenant"},
		{"permissions not an object", map[string]any{"label": "X", "permissions": []any{}}, "permissions must be an object {read: object, write: object}"},
		{"permissions with more", map[string]any{"label": "X", "permissions": map[string]any{"read": map[string]any{}, "admin": map[string]any{}}},
			"permissions.admin: unknown field (expected read and write)"},
		{"views not an object", map[string]any{"label": "X", "views": "compact"}, "views must be an object"},
		{"usage rule without identifier", map[string]any{"label": "X", "usageRules": []any{map[string]any{"contexts": []any{}}}},
			"usageRules[0].identifier needs key and label"},
		{"usage rule context without validity", map[string]any{"label": "X", "usageRules": []any{map[string]any{
			"identifier": map[string]any{"key": "k", "label": "K"}, "contexts": []any{map[string]any{"name": "web", "warningLevel": "always"}}}}},
			"usageRules[0].contexts[0].validity needs from.offsetFrom and to.offsetFrom"},
	}
	before := mdfIDsOf(mdfList(t, a))
	changes := api.Count(t, `SELECT count(*) FROM definition_changes`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a.Post(t, mdfPath, c.body).Envelope(http.StatusBadRequest, c.msg)
			// The same definition overwriting a form is refused too (a
			// body's id aside: the path's wins on an overwrite).
			if body, ok := c.body.(map[string]any); ok && body["label"] != nil && c.name != "bad id" {
				a.Put(t, mdfPath+"/kept", c.body).Envelope(http.StatusBadRequest, "")
			}
		})
	}
	if got := mdfIDsOf(mdfList(t, a)); !slices.Equal(got, before) {
		t.Fatalf("forms after refused writes = %v, want %v", got, before)
	}
	if n := api.Count(t, `SELECT count(*) FROM definition_changes`); n != changes {
		t.Fatalf("refused writes recorded %d changes", n-changes)
	}
	if kept := a.Get(t, mdfPath+"/kept").Status(http.StatusOK).Object(); kept["label"] != "Kept" || len(fieldIDs(kept)) != 3 {
		t.Fatalf("kept form changed: %v", kept)
	}
	// An overwrite cannot empty the fields with null (left out, they are
	// kept); a default form stays active.
	a.Put(t, mdfPath+"/kept", map[string]any{"label": "Kept", "fields": nil}).
		Envelope(http.StatusBadRequest, "fields is required (the full list of the form's fields)")
	a.Put(t, mdfPath+"/default", map[string]any{"label": "Default", "active": false, "fields": []any{}}).
		Envelope(http.StatusBadRequest, `active: default form "default" cannot be made inactive`)
}

func TestFormAndOptionListWritesAreForAdmins(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	listID := olCreate(t, a, "Genres", "report")["id"].(string)
	a.Post(t, mdfPath, map[string]any{"id": "news", "label": "News"}).Status(http.StatusOK)
	changes := api.Count(t, `SELECT count(*) FROM definition_changes`)

	ed.Post(t, mdfPath, map[string]any{"id": "mine", "label": "Mine"}).Envelope(http.StatusForbidden, mdfMsgAdminOnly)
	ed.Put(t, mdfPath+"/news", map[string]any{"label": "Hijacked", "fields": []any{}}).Envelope(http.StatusForbidden, mdfMsgAdminOnly)
	ed.Delete(t, mdfPath+"/news").Envelope(http.StatusForbidden, mdfMsgAdminOnly)
	ed.Delete(t, mdfPath+"/default").Envelope(http.StatusForbidden, mdfMsgAdminOnly)
	ed.Post(t, olPath, map[string]any{"name": "Mine", "alternatives": []any{}}).Envelope(http.StatusForbidden, mdfMsgAdminOnly)
	ed.Put(t, olPath+"/"+listID, map[string]any{"name": "Hijacked", "alternatives": []any{}}).Envelope(http.StatusForbidden, mdfMsgAdminOnly)
	ed.Delete(t, olPath+"/"+listID).Envelope(http.StatusForbidden, mdfMsgAdminOnly)

	// Everyone reads them.
	if ids := mdfIDsOf(mdfList(t, ed)); !slices.Contains(ids, "news") || slices.Contains(ids, "mine") {
		t.Fatalf("forms as the editor sees them: %v", ids)
	}
	if got := ed.Get(t, mdfPath+"/news").Status(http.StatusOK).Object(); got["label"] != "News" {
		t.Fatalf("news = %v", got)
	}
	var lists struct {
		Embedded struct{ Collection []map[string]any } `json:"_embedded"`
	}
	ed.Get(t, olPath).Status(http.StatusOK).JSON(&lists)
	if len(lists.Embedded.Collection) != 1 || lists.Embedded.Collection[0]["name"] != "Genres" {
		t.Fatalf("option lists as the editor sees them: %v", lists)
	}
	if n := api.Count(t, `SELECT count(*) FROM definition_changes`); n != changes {
		t.Fatalf("refused writes recorded %d changes", n-changes)
	}
}

func TestAnotherTenantsFormsAndListsAnswerLikeMissingOnes(t *testing.T) {
	api := loupetest.New(t)
	a, b := api.Tenant(t, "a"), api.Tenant(t, "b")
	listID := olCreate(t, a, "Genres", "report")["id"].(string)
	a.Post(t, mdfPath, map[string]any{"id": "news", "label": "News", "fields": []any{
		map[string]any{"fieldId": "genre", "type": "choice", "optionListId": listID}}}).Status(http.StatusOK)

	for _, c := range []struct{ method, path string }{
		{"GET", mdfPath + "/news"},
		{"PUT", mdfPath + "/news"},
		{"DELETE", mdfPath + "/news"},
		{"PUT", olPath + "/" + listID},
		{"DELETE", olPath + "/" + listID},
		{"GET", mdfPath + "/no-such-form"},
		{"DELETE", olPath + "/01a20242-9dca-771b-bd4e-ca31c13a56ec"},
		{"DELETE", olPath + "/not-an-id"},
		// The spec lists reading one option list as a path that does not exist.
		{"GET", olPath + "/" + listID},
	} {
		body := map[string]any{"label": "Mine", "name": "Mine", "alternatives": []any{}, "fields": []any{}}
		if c.method == "PUT" && strings.HasPrefix(c.path, olPath) {
			body = map[string]any{"name": "Mine", "alternatives": []any{}}
		} else if c.method == "PUT" {
			body = map[string]any{"label": "Mine", "fields": []any{}}
		}
		if c.method != "PUT" {
			body = nil
		}
		b.Do(t, c.method, c.path, body).Envelope(http.StatusNotFound, mdfMsgNotFound)
	}
	if ids := mdfIDsOf(mdfList(t, b)); !slices.Equal(ids, defaultFormIDs) {
		t.Fatalf("b's forms = %v", ids)
	}
	var lists struct {
		Embedded struct{ Collection []map[string]any } `json:"_embedded"`
	}
	b.Get(t, olPath).Status(http.StatusOK).JSON(&lists)
	if len(lists.Embedded.Collection) != 0 {
		t.Fatalf("b's option lists = %v", lists.Embedded.Collection)
	}
	// b's items cannot use a's form; b may have a form of the same id.
	b.Post(t, "/api/v1/items", map[string]any{"title": "x", "itemType": "video", "metadata": map[string]any{"formId": "news"}}).
		Envelope(http.StatusBadRequest, `unknown form: "news"`)
	b.Post(t, mdfPath, map[string]any{"id": "news", "label": "B News"}).Status(http.StatusOK)
	b.Post(t, olPath, map[string]any{"name": "Genres", "alternatives": []any{}}).Status(http.StatusOK)
	if got := a.Get(t, mdfPath+"/news").Status(http.StatusOK).Object(); got["label"] != "News" {
		t.Fatalf("a's news = %v", got)
	}
}

func TestOptionLists(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	genres := olCreate(t, a, "Genres", "report", "interview")
	id := genres["id"].(string)
	if len(id) != 36 || genres["name"] != "Genres" || genres["optionListType"] != "choice" {
		t.Fatalf("created list = %v", genres)
	}
	sameJSON(t, "alternatives", genres["alternatives"], []any{
		map[string]any{"value": "report", "label": "Report"}, map[string]any{"value": "interview", "label": "Interview"}})
	olCreate(t, a, "Desks", "national")

	var lists struct {
		Embedded struct{ Collection []map[string]any } `json:"_embedded"`
	}
	a.Get(t, olPath).Status(http.StatusOK).JSON(&lists)
	if len(lists.Embedded.Collection) != 2 || lists.Embedded.Collection[0]["name"] != "Desks" {
		t.Fatalf("lists by name = %v", lists.Embedded.Collection)
	}
	for _, l := range lists.Embedded.Collection {
		sameKeys(t, "listed option list", l, optionListKeys)
	}

	// A name in use, whatever its case, is the spec's 403 — on create and update.
	a.Post(t, olPath, map[string]any{"name": "genres", "alternatives": []any{}}).
		Envelope(http.StatusForbidden, "Name genres is already used by another option list")
	a.Put(t, olPath+"/"+id, map[string]any{"name": "Desks", "alternatives": []any{}}).
		Envelope(http.StatusForbidden, "Name Desks is already used by another option list")

	// A field that names the list offers its alternatives, current ones.
	a.Post(t, mdfPath, map[string]any{"id": "news", "label": "News", "fields": []any{
		map[string]any{"fieldId": "genre", "type": "choice", "optionListId": id}}}).Status(http.StatusOK)
	// What a read answers (modifiedOn included) can be written back.
	genres["name"] = "Story types"
	genres["alternatives"] = []any{map[string]any{"value": "report", "label": "News report"}, map[string]any{"value": "feature"}}
	updated := a.Put(t, olPath+"/"+id, genres).Status(http.StatusOK).Object()
	sameKeys(t, "updated list", updated, optionListKeys)
	if updated["id"] != id || updated["name"] != "Story types" {
		t.Fatalf("updated list = %v", updated)
	}
	sameJSON(t, "genre alternatives after the update",
		fieldOf(t, a.Get(t, mdfPath+"/news").Status(http.StatusOK).Object(), "genre")["alternatives"],
		[]any{map[string]any{"value": "report", "label": "News report"}, map[string]any{"value": "feature", "label": "feature"}})

	for _, c := range []struct {
		name string
		body any
		msg  string
	}{
		{"no name", map[string]any{"alternatives": []any{}}, "name is required"},
		{"no alternatives", map[string]any{"name": "X"}, "alternatives is required (an array of {value, label})"},
		{"other type", map[string]any{"name": "X", "optionListType": "tree", "alternatives": []any{}}, `optionListType: expected choice, got "tree"`},
		{"value twice", map[string]any{"name": "X", "alternatives": []any{map[string]any{"value": "a"}, map[string]any{"value": "a"}}},
			`alternatives[1].value: "a" is given twice`},
		{"value not a string", map[string]any{"name": "X", "alternatives": []any{map[string]any{"value": 5}}}, "alternatives[0].value: must be a string"},
		{"unknown key", map[string]any{"name": "X", "alternatives": []any{}, "sorted": true}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a.Post(t, olPath, c.body).Envelope(http.StatusBadRequest, c.msg)
			a.Put(t, olPath+"/"+id, c.body).Envelope(http.StatusBadRequest, c.msg)
		})
	}

	// A list a field uses cannot go; once unused it can.
	a.Delete(t, olPath+"/"+id).Envelope(http.StatusConflict, `Option list Story types is used by field "genre" of form "news" and cannot be deleted`)
	a.Put(t, mdfPath+"/news", map[string]any{"label": "News", "fields": []any{}}).Status(http.StatusOK)
	sameJSON(t, "delete answer", a.Delete(t, olPath+"/"+id).Status(http.StatusOK).Object(), map[string]any{"id": id})
	a.Delete(t, olPath+"/"+id).Envelope(http.StatusNotFound, mdfMsgNotFound)
	a.Put(t, olPath+"/"+id, map[string]any{"name": "Again", "alternatives": []any{}}).Envelope(http.StatusNotFound, mdfMsgNotFound)
	a.Get(t, olPath).Status(http.StatusOK).JSON(&lists)
	if len(lists.Embedded.Collection) != 1 {
		t.Fatalf("lists after delete = %v", lists.Embedded.Collection)
	}
}

// matrixForm has one optional field of every type.
var matrixForm = map[string]any{"id": "matrix", "label": "Matrix", "fields": []any{
	map[string]any{"fieldId": "f_text", "type": "text"},
	map[string]any{"fieldId": "f_date", "type": "date"},
	map[string]any{"fieldId": "f_choice", "type": "choice", "alternatives": []any{
		map[string]any{"value": "a", "label": "Alpha"}, map[string]any{"value": "b", "label": "Beta"}}},
	map[string]any{"fieldId": "f_checkbox", "type": "checkbox"},
	map[string]any{"fieldId": "f_number", "type": "number"},
	map[string]any{"fieldId": "f_multi", "type": "multiplechoice", "alternatives": []any{
		map[string]any{"value": "a"}, map[string]any{"value": "b"}, map[string]any{"value": "c"}}},
	map[string]any{"fieldId": "f_link", "type": "link"},
	map[string]any{"fieldId": "f_user", "type": "user"},
}}

// matrixCase is a value of a field, valid or not.
type matrixCase struct {
	field string
	value any
	valid bool
}

// matrixCases are, for every field type, values it takes and values it
// refuses. user ids come from the tenants of the test.
func matrixCases(ownUser, otherUser, otherTenantUser string) []matrixCase {
	return []matrixCase{
		{"f_text", "hello", true}, {"f_text", "", true}, {"f_text", "ünïcödé ✓", true},
		{"f_text", 5, false}, {"f_text", true, false}, {"f_text", []any{"x"}, false}, {"f_text", map[string]any{"a": 1}, false},
		{"f_text", strings.Repeat("x", 100001), false},
		{"f_date", "2026-11-22", true}, {"f_date", "2026-11-22T08:15:00Z", true}, {"f_date", "2026-11-22T08:15:00.123+02:00", true},
		{"f_date", "22.11.2026", false}, {"f_date", "2026-13-01", false}, {"f_date", 20261122, false}, {"f_date", "tomorrow", false},
		{"f_choice", "a", true}, {"f_choice", "b", true},
		{"f_choice", "z", false}, {"f_choice", "A", false}, {"f_choice", "Alpha", false}, {"f_choice", 1, false}, {"f_choice", []any{"a"}, false},
		{"f_checkbox", true, true}, {"f_checkbox", false, true},
		{"f_checkbox", "true", false}, {"f_checkbox", 1, false},
		{"f_number", 0, true}, {"f_number", -3.5, true}, {"f_number", 1e6, true},
		{"f_number", "5", false}, {"f_number", true, false}, {"f_number", []any{1}, false},
		{"f_multi", []any{"a", "c"}, true}, {"f_multi", []any{}, true},
		{"f_multi", []any{"a", "a"}, false}, {"f_multi", []any{"z"}, false}, {"f_multi", "a", false}, {"f_multi", []any{1}, false},
		{"f_link", "https://example.com/a?b=1", true}, {"f_link", "http://host:8080/", true},
		{"f_link", "example.com", false}, {"f_link", "ftp://host/file", false}, {"f_link", "https://", false},
		{"f_link", "javascript:alert(1)", false}, {"f_link", 5, false},
		{"f_user", ownUser, true}, {"f_user", otherUser, true},
		{"f_user", otherTenantUser, false}, {"f_user", "01a20242-9dca-771b-bd4e-ca31c13a56ec", false},
		{"f_user", "someone", false}, {"f_user", 5, false},
	}
}

func (c matrixCase) name() string {
	b, _ := json.Marshal(c.value)
	s := string(b)
	if len(s) > 40 {
		s = s[:40]
	}
	return fmt.Sprintf("%s=%s", c.field, s)
}

// invalidValueMsg is the message of a value that does not fit its field.
func invalidValueMsg(field string, v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return fmt.Sprintf("invalid value %s for field: %q", s, field)
}

func TestEveryFieldTypeTakesItsValuesAndRefusesOthers(t *testing.T) {
	api := loupetest.New(t)
	a, b := api.Tenant(t, "a"), api.Tenant(t, "b")
	ed := a.User(t, "ed@a.test", nil, false)
	a.Post(t, mdfPath, matrixForm).Status(http.StatusOK)
	existing := a.CreateItem(t, map[string]any{"title": "Existing", "itemType": "video", "metadata": map[string]any{"formId": "matrix"}})
	patchPath := "/api/v1/itemMetadata/" + existing

	for _, c := range matrixCases(a.UserID, ed.UserID, b.UserID) {
		t.Run(c.name(), func(t *testing.T) {
			items := api.Count(t, `SELECT count(*) FROM items`)
			version := a.Get(t, "/api/v1/items/"+existing).Status(http.StatusOK).Object()["metadataVersion"]
			create := map[string]any{"title": "Clip", "itemType": "video",
				"metadata": map[string]any{"formId": "matrix", "formData": map[string]any{c.field: c.value}}}
			patch := map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{c.field: c.value}}}
			if c.valid {
				id := a.CreateItem(t, create)
				fd := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()["metadata"].(map[string]any)["formData"].(map[string]any)
				sameJSON(t, "stored value", fd[c.field], c.value)
				got := a.Patch(t, patchPath, patch).Status(http.StatusOK).Object()
				sameJSON(t, "patched value", got["metadata"].(map[string]any)["formData"].(map[string]any)[c.field], c.value)
				return
			}
			msg := invalidValueMsg(c.field, c.value)
			env := a.Post(t, "/api/v1/items", create).Envelope(http.StatusBadRequest, msg)
			if dev, _ := env["developerMessage"].(string); !strings.Contains(dev, `field "`+c.field+`" of form "matrix" is `) {
				t.Fatalf("developerMessage %q", dev)
			}
			a.Patch(t, patchPath, patch).Envelope(http.StatusBadRequest, msg)
			// Nothing was written.
			if n := api.Count(t, `SELECT count(*) FROM items`); n != items {
				t.Fatalf("a refused create left %d items", n-items)
			}
			if v := a.Get(t, "/api/v1/items/"+existing).Status(http.StatusOK).Object()["metadataVersion"]; v != version {
				t.Fatalf("a refused patch moved metadataVersion %v -> %v", version, v)
			}
		})
	}
}

func TestFormRulesOfWrites(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	a.Post(t, mdfPath, map[string]any{"id": "story", "label": "Story", "fields": []any{
		map[string]any{"fieldId": "status", "type": "choice", "required": true, "alternatives": []any{
			map[string]any{"value": "draft"}, map[string]any{"value": "final"}}},
		map[string]any{"fieldId": "slug", "type": "text", "required": true},
		map[string]any{"fieldId": "code", "type": "text", "readOnly": true},
		map[string]any{"fieldId": "desk", "type": "text", "readOnly": true, "defaultValue": "national"},
		map[string]any{"fieldId": "tags", "type": "multiplechoice", "required": true, "defaultValue": []any{"news"},
			"alternatives": []any{map[string]any{"value": "news"}, map[string]any{"value": "web"}}},
	}}).Status(http.StatusOK)
	a.Post(t, mdfPath, map[string]any{"id": "retired", "label": "Retired", "active": false}).Status(http.StatusOK)
	item := func(fd map[string]any) map[string]any {
		return map[string]any{"title": "Story", "itemType": "video", "metadata": map[string]any{"formId": "story", "formData": fd}}
	}

	cases := []struct {
		name   string
		body   map[string]any
		msg    string
		others []string // the payload's further messages
	}{
		{"required fields missing", item(map[string]any{}), `missing value for required field: "status"`,
			[]string{`missing value for required field: "slug"`}},
		{"required field empty", item(map[string]any{"status": "draft", "slug": ""}), `missing value for required field: "slug"`, nil},
		{"required list emptied", item(map[string]any{"status": "draft", "slug": "s", "tags": []any{}}), `missing value for required field: "tags"`, nil},
		{"unknown form", map[string]any{"title": "x", "itemType": "video", "metadata": map[string]any{"formId": "nope"}}, `unknown form: "nope"`, nil},
		{"inactive form", map[string]any{"title": "x", "itemType": "video", "metadata": map[string]any{"formId": "retired"}}, `inactive form: "retired"`, nil},
		{"default_ key of no field", item(map[string]any{"status": "draft", "slug": "s", "default_subtitle": "x"}), `unknown field: "default_subtitle"`, nil},
		{"alias and id of one field", item(map[string]any{"status": "draft", "slug": "s", "default_slug": "t"}), `field given twice: "slug"`, nil},
		{"several problems", item(map[string]any{"status": "maybe", "slug": 7}), `invalid value "maybe" for field: "status"`,
			[]string{`invalid value 7 for field: "slug"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := a.Post(t, "/api/v1/items", c.body).Envelope(http.StatusBadRequest, c.msg)
			var msgs []any
			if p, ok := env["payload"].(map[string]any); ok {
				msgs, _ = p["messages"].([]any)
			}
			want := append([]any{c.msg}, func() []any {
				var o []any
				for _, m := range c.others {
					o = append(o, m)
				}
				return o
			}()...)
			sameJSON(t, "payload.messages", msgs, want)
		})
	}

	// A new item gets the defaults; read-only fields may be given then.
	id := a.CreateItem(t, item(map[string]any{"status": "draft", "default_slug": "s1", "code": "C-1"}))
	path := "/api/v1/itemMetadata/" + id
	fd := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()["metadata"].(map[string]any)["formData"]
	sameJSON(t, "new item's form data", fd, map[string]any{"default_title": "Story", "status": "draft", "slug": "s1",
		"code": "C-1", "desk": "national", "tags": []any{"news"}})

	// Later writes cannot change read-only fields, empty required ones or
	// set default_ keys of no field; they can keep them as they are.
	for _, c := range []struct {
		delta map[string]any
		msg   string
	}{
		{map[string]any{"code": "C-2"}, `cannot change read-only field: "code"`},
		{map[string]any{"desk": nil}, `cannot change read-only field: "desk"`},
		{map[string]any{"status": nil}, `missing value for required field: "status"`},
		{map[string]any{"slug": ""}, `missing value for required field: "slug"`},
		{map[string]any{"default_subtitle": "x"}, `unknown field: "default_subtitle"`},
		{map[string]any{"status": "maybe"}, `invalid value "maybe" for field: "status"`},
	} {
		a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": c.delta}}).Envelope(http.StatusBadRequest, c.msg)
	}
	got := a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{
		"code": "C-1", "status": "final", "reel": "A001"}}}).Status(http.StatusOK).Object()
	if got["metadataVersion"] != 2.0 {
		t.Fatalf("metadataVersion after one accepted write = %v", got["metadataVersion"])
	}
	sameJSON(t, "form data after the patch", got["metadata"].(map[string]any)["formData"], map[string]any{
		"default_title": "Story", "status": "final", "slug": "s1", "code": "C-1", "desk": "national", "tags": []any{"news"}, "reel": "A001"})

	// Switching form: the new form's rules apply, other values are kept.
	a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formId": "retired"}}).
		Envelope(http.StatusBadRequest, `inactive form: "retired"`)
	got = a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formId": "default",
		"formData": map[string]any{"default_rating": 4}}}).Status(http.StatusOK).Object()
	md := got["metadata"].(map[string]any)
	if md["formId"] != "default" || md["formData"].(map[string]any)["status"] != "final" || md["formData"].(map[string]any)["default_rating"] != 4.0 {
		t.Fatalf("after the switch: %v", md)
	}
	a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formId": "story", "formData": map[string]any{"slug": nil}}}).
		Envelope(http.StatusBadRequest, `missing value for required field: "slug"`)
}

func TestFolderAndTimedMetadataAreCheckedAgainstTheirForms(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	a.Post(t, mdfPath, map[string]any{"id": "project", "label": "Project", "fields": []any{
		map[string]any{"fieldId": "client", "type": "text", "required": true},
		map[string]any{"fieldId": "budget", "type": "number"}}}).Status(http.StatusOK)
	a.Post(t, mdfPath, map[string]any{"id": "scene", "label": "Scene", "flavor": "timed-metadata", "fields": []any{
		map[string]any{"fieldId": "shot", "type": "choice", "required": true, "alternatives": []any{
			map[string]any{"value": "wide"}, map[string]any{"value": "close"}}}}}).Status(http.StatusOK)

	f := folder(t, a, "Promo")
	path := "/api/v1/folders/" + f + "/metadata"
	a.Put(t, path, map[string]any{"metadata": map[string]any{"formId": "project", "formData": map[string]any{"budget": 5}}}).
		Envelope(http.StatusBadRequest, `missing value for required field: "client"`)
	a.Put(t, path, map[string]any{"metadata": map[string]any{"formId": "project", "formData": map[string]any{"client": "ACME", "budget": "lots"}}}).
		Envelope(http.StatusBadRequest, `invalid value "lots" for field: "budget"`)
	a.Put(t, path, map[string]any{"metadata": map[string]any{"formId": "nope", "formData": map[string]any{}}}).
		Envelope(http.StatusBadRequest, `unknown form: "nope"`)
	if md := a.Get(t, path).Status(http.StatusOK).Object()["metadata"].(map[string]any); md["formId"] != "default_folder" {
		t.Fatalf("refused writes changed the folder's metadata: %v", md)
	}
	got := a.Put(t, path, map[string]any{"metadata": map[string]any{"formId": "project", "formData": map[string]any{"client": "ACME", "budget": 5}}}).
		Status(http.StatusOK).Object()["metadata"].(map[string]any)
	sameJSON(t, "folder form data", got["formData"], map[string]any{"client": "ACME", "budget": 5, "default_title": "Promo"})

	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	tm := "/api/v1/items/" + id + "/timedMetadata"
	entry := func(shot any) map[string]any {
		return map[string]any{"startMs": 0, "endMs": 1000, "data": map[string]any{"formId": "scene", "formData": map[string]any{"shot": shot}}}
	}
	a.Put(t, tm, map[string]any{"items": map[string]any{"e1": entry("wide"), "e2": entry("zoom")}}).
		Envelope(http.StatusBadRequest, `timed metadata "e2": invalid value "zoom" for field: "shot"`)
	a.Put(t, tm, map[string]any{"items": map[string]any{"e1": entry(nil)}}).
		Envelope(http.StatusBadRequest, `timed metadata "e1": missing value for required field: "shot"`)
	a.Put(t, tm, map[string]any{"items": map[string]any{"e1": map[string]any{"startMs": 0, "endMs": 1,
		"data": map[string]any{"formId": "nope"}}}}).Envelope(http.StatusBadRequest, `timed metadata "e1": unknown form: "nope"`)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	a.Get(t, tm).Status(http.StatusOK).JSON(&list)
	if len(list.Items) != 0 {
		t.Fatalf("refused writes left entries: %v", list.Items)
	}
	a.Put(t, tm, map[string]any{"items": map[string]any{"e1": entry("wide"), "e2": entry("close")}}).Status(http.StatusOK).JSON(&list)
	if len(list.Items) != 2 {
		t.Fatalf("entries = %v", list.Items)
	}
}

func TestUpdatingAFormWhileItemsUseIt(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	listID := olCreate(t, a, "Genres", "report", "interview")["id"].(string)
	a.Post(t, mdfPath, map[string]any{"id": "news", "label": "News", "fields": []any{
		map[string]any{"fieldId": "genre", "label": "Genre", "type": "choice", "required": true, "optionListId": listID},
		map[string]any{"fieldId": "rating", "label": "Rating", "type": "number"},
		map[string]any{"fieldId": "notes", "label": "Notes", "type": "text"},
		map[string]any{"fieldId": "tone", "label": "Tone", "type": "choice", "alternatives": []any{
			map[string]any{"value": "calm", "label": "Calm"}, map[string]any{"value": "urgent", "label": "Urgent"}}},
	}}).Status(http.StatusOK)
	one := a.CreateItem(t, map[string]any{"title": "One", "itemType": "video", "metadata": map[string]any{"formId": "news",
		"formData": map[string]any{"genre": "interview", "rating": 4, "notes": "first cut", "tone": "urgent"}}})
	two := a.CreateItem(t, map[string]any{"title": "Two", "itemType": "video", "metadata": map[string]any{"formId": "news",
		"formData": map[string]any{"genre": "report"}}})
	beforeOne := a.Get(t, "/api/v1/items/"+one).Status(http.StatusOK).Object()

	// The form changes under the items: notes and tone go, rating becomes
	// text, genre is relabelled, a required status with a default comes.
	a.Put(t, mdfPath+"/news", map[string]any{"label": "News", "fields": []any{
		map[string]any{"fieldId": "genre", "label": "Category", "type": "choice", "required": true, "optionListId": listID},
		map[string]any{"fieldId": "rating", "label": "Rating", "type": "text"},
		map[string]any{"fieldId": "status", "label": "Status", "type": "choice", "required": true, "defaultValue": "draft",
			"alternatives": []any{map[string]any{"value": "draft"}, map[string]any{"value": "final"}}},
	}}).Status(http.StatusOK)
	// The option list changes too: interview goes, report is relabelled.
	a.Put(t, olPath+"/"+listID, map[string]any{"name": "Genres", "alternatives": []any{
		map[string]any{"value": "report", "label": "News report"}, map[string]any{"value": "feature", "label": "Feature"}}}).Status(http.StatusOK)

	// Items were not rewritten: same values, version and modifiedOn.
	afterOne := a.Get(t, "/api/v1/items/"+one).Status(http.StatusOK).Object()
	for _, k := range []string{"metadata", "metadataVersion", "modifiedOn", "title"} {
		sameJSON(t, k+" of an item after the form changed", afterOne[k], beforeOne[k])
	}
	// Read with labels: retired fields keep theirs, choice values show
	// their alternatives' labels where one still has the value.
	readable := a.Get(t, "/api/v1/items/"+one+"?readableMetadataFields=true").Status(http.StatusOK).Object()
	sameJSON(t, "readable form data", readable["metadata"].(map[string]any)["formData"], map[string]any{
		"Title": "One", "Category": "interview", "Rating": 4, "Notes": "first cut", "Tone": "Urgent"})
	readable = a.Get(t, "/api/v1/items/"+two+"?readableMetadataFields=true").Status(http.StatusOK).Object()
	sameJSON(t, "readable form data", readable["metadata"].(map[string]any)["formData"], map[string]any{
		"Title": "Two", "Category": "News report"})

	// A write is checked for what it changes: values left as they are stay
	// (rating 4 in what is now a text field, no status, a retired field).
	path := "/api/v1/itemMetadata/" + one
	got := a.Patch(t, path+"?readableMetadataFields=true", map[string]any{"metadataDelta": map[string]any{
		"formData": map[string]any{"default_description": "recut"}}}).Status(http.StatusOK).Object()
	sameJSON(t, "readable answer of the patch", got["metadata"].(map[string]any)["formData"], map[string]any{
		"Title": "One", "Description": "recut", "Category": "interview", "Rating": 4, "Notes": "first cut", "Tone": "Urgent"})
	for _, c := range []struct {
		delta map[string]any
		msg   string
	}{
		{map[string]any{"notes": "second cut"}, `unknown field: "notes"`},
		{map[string]any{"rating": 5}, `invalid value 5 for field: "rating"`},
		{map[string]any{"genre": "opinion", "default_description": "again"}, `invalid value "opinion" for field: "genre"`},
		{map[string]any{"genre": nil}, `missing value for required field: "genre"`},
	} {
		a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": c.delta}}).Envelope(http.StatusBadRequest, c.msg)
	}
	// Writing back what a read answered changes nothing, so it is accepted.
	asRead := a.Get(t, "/api/v1/items/"+one).Status(http.StatusOK).Object()["metadata"].(map[string]any)["formData"]
	a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": asRead}}).Status(http.StatusOK)
	got = a.Patch(t, path, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{
		"notes": nil, "rating": "four", "genre": "feature", "status": "final"}}}).Status(http.StatusOK).Object()
	sameJSON(t, "form data after fixing", got["metadata"].(map[string]any)["formData"], map[string]any{
		"default_title": "One", "default_description": "recut", "genre": "feature", "rating": "four", "status": "final", "tone": "urgent"})

	// New items follow the new form: status defaults, interview is gone.
	three := a.CreateItem(t, map[string]any{"title": "Three", "itemType": "video", "metadata": map[string]any{"formId": "news",
		"formData": map[string]any{"genre": "feature"}}})
	fd := a.Get(t, "/api/v1/items/"+three).Status(http.StatusOK).Object()["metadata"].(map[string]any)["formData"]
	sameJSON(t, "new item", fd, map[string]any{"default_title": "Three", "genre": "feature", "status": "draft"})
	a.Post(t, "/api/v1/items", map[string]any{"title": "Four", "itemType": "video", "metadata": map[string]any{"formId": "news",
		"formData": map[string]any{"genre": "interview"}}}).Envelope(http.StatusBadRequest, `invalid value "interview" for field: "genre"`)

	// Bringing a retired field back brings its values back under its id.
	a.Put(t, mdfPath+"/news", map[string]any{"label": "News", "fields": []any{
		map[string]any{"fieldId": "genre", "type": "choice", "required": true, "optionListId": listID},
		map[string]any{"fieldId": "tone", "label": "Mood", "type": "text"}}}).Status(http.StatusOK)
	readable = a.Get(t, "/api/v1/items/"+one+"?readableMetadataFields=true").Status(http.StatusOK).Object()
	sameJSON(t, "readable after tone came back as text", readable["metadata"].(map[string]any)["formData"], map[string]any{
		"Title": "One", "Description": "recut", "genre": "Feature", "Rating": "four", "Status": "final", "Mood": "urgent"})

	// A form in use cannot be deleted; once nothing uses it, it can.
	a.Delete(t, mdfPath+"/news").Envelope(http.StatusConflict,
		`Form "news" is used by items or timed metadata and cannot be deleted: move them to another form first`)
	for _, id := range []string{one, two, three} {
		a.Patch(t, "/api/v1/itemMetadata/"+id, map[string]any{"metadataDelta": map[string]any{"formId": "default"}}).Status(http.StatusOK)
	}
	a.Delete(t, mdfPath+"/news").Status(http.StatusOK)
	// The items keep their values, under their keys.
	fd = a.Get(t, "/api/v1/items/"+three).Status(http.StatusOK).Object()["metadata"].(map[string]any)["formData"]
	sameJSON(t, "item of a deleted form", fd, map[string]any{"default_title": "Three", "genre": "feature", "status": "draft"})
}
