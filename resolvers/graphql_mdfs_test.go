package resolvers_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// Metadata definition forms and option lists through GraphQL, and
// ItemMetadata.form through the form loader.

const (
	gqlMdfFields = `id label displayName active flavor color icon rule isDefault modifiedOn views viewSections permissions usageRules
fields { id fieldId label type required readOnly sortable systemDefaultField defaultValue alternatives { value label } optionListId }
retiredFields { id label type alternatives { value label } }`
	gqlOptionListFields = `id name optionListType alternatives { value label } modifiedOn`
	gqlMsgAdminOnly     = "Only administrators may change metadata forms and option lists."
)

type gqlAlternative struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

type gqlMdfField struct {
	ID                 string           `json:"id"`
	FieldID            string           `json:"fieldId"`
	Label              string           `json:"label"`
	Type               string           `json:"type"`
	Required           bool             `json:"required"`
	ReadOnly           bool             `json:"readOnly"`
	SystemDefaultField bool             `json:"systemDefaultField"`
	DefaultValue       any              `json:"defaultValue"`
	Alternatives       []gqlAlternative `json:"alternatives"`
	OptionListID       *string          `json:"optionListId"`
}

type gqlMdf struct {
	ID            string        `json:"id"`
	Label         string        `json:"label"`
	DisplayName   string        `json:"displayName"`
	Active        bool          `json:"active"`
	Flavor        *string       `json:"flavor"`
	Color         *string       `json:"color"`
	Rule          *string       `json:"rule"`
	IsDefault     bool          `json:"isDefault"`
	ModifiedOn    string        `json:"modifiedOn"`
	Permissions   any           `json:"permissions"`
	Fields        []gqlMdfField `json:"fields"`
	RetiredFields []gqlMdfField `json:"retiredFields"`
}

func (m gqlMdf) fieldIDs() []string {
	out := make([]string, len(m.Fields))
	for i, f := range m.Fields {
		out[i] = f.ID
	}
	return out
}

func (m gqlMdf) field(t *testing.T, id string) gqlMdfField {
	t.Helper()
	for _, f := range m.Fields {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("form %s has no field %s", m.ID, id)
	return gqlMdfField{}
}

type gqlOptionList struct {
	ID             string           `json:"id"`
	Name           string           `json:"name"`
	OptionListType string           `json:"optionListType"`
	Alternatives   []gqlAlternative `json:"alternatives"`
}

func gqlCreateOptionList(t *testing.T, c *loupetest.Client, input map[string]any) gqlOptionList {
	t.Helper()
	var out struct {
		CreateOptionList struct{ OptionList gqlOptionList } `json:"createOptionList"`
	}
	c.GraphQL(t, `mutation($in: OptionListInput!) { createOptionList(input: $in) { optionList { `+gqlOptionListFields+` } } }`,
		map[string]any{"in": input}).OK(&out)
	return out.CreateOptionList.OptionList
}

func gqlMdfMutation(t *testing.T, c *loupetest.Client, mutation string, input map[string]any) gqlMdf {
	t.Helper()
	var out map[string]struct{ Mdf gqlMdf }
	c.GraphQL(t, `mutation($in: MdfInput!) { `+mutation+`(input: $in) { mdf { `+gqlMdfFields+` } } }`,
		map[string]any{"in": input}).OK(&out)
	return out[mutation].Mdf
}

func gqlGetMdf(t *testing.T, c *loupetest.Client, id string) gqlMdf {
	t.Helper()
	var out struct{ Mdf gqlMdf }
	c.GraphQL(t, `query($id: ID!) { mdf(id: $id) { `+gqlMdfFields+` } }`, map[string]any{"id": id}).OK(&out)
	return out.Mdf
}

func gqlMdfIDs(t *testing.T, c *loupetest.Client) []string {
	t.Helper()
	var out struct {
		Mdfs struct {
			Total    int
			Embedded struct{ Collection []struct{ ID string } } `json:"_embedded"`
		}
	}
	c.GraphQL(t, `{ mdfs { total _embedded { collection { id } } } }`, nil).OK(&out)
	ids := make([]string, len(out.Mdfs.Embedded.Collection))
	for i, m := range out.Mdfs.Embedded.Collection {
		ids[i] = m.ID
	}
	if out.Mdfs.Total != len(ids) {
		t.Fatalf("mdfs total %d, %d listed", out.Mdfs.Total, len(ids))
	}
	return ids
}

func TestGraphQLFormsAndOptionLists(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	defaults := []string{"default", "default_audio", "default_detected_text", "default_folder", "default_image",
		"default_restricted", "default_video"}
	if ids := gqlMdfIDs(t, a); !slices.Equal(ids, defaults) {
		t.Fatalf("forms of a new tenant = %v", ids)
	}
	if d := gqlGetMdf(t, a, "default"); !d.IsDefault || d.field(t, "default_title").Label != "Title" ||
		d.field(t, "default_description").Label != "Description" || d.field(t, "default_title").Type != "text" {
		t.Fatalf("default form = %+v", d)
	}

	list := gqlCreateOptionList(t, a, map[string]any{"name": "Genres", "alternatives": []any{
		map[string]any{"value": "report", "label": "Report"}, map[string]any{"value": "interview"}}})
	if len(list.ID) != 36 || list.OptionListType != "choice" ||
		!reflect.DeepEqual(list.Alternatives, []gqlAlternative{{"report", "Report"}, {"interview", "interview"}}) {
		t.Fatalf("option list = %+v", list)
	}
	news := gqlMdfMutation(t, a, "createMdf", map[string]any{"id": "news", "label": "News", "color": "#00FF00FF",
		"rule": "{title} ({genre})", "fields": []any{
			map[string]any{"fieldId": "genre", "label": "Genre", "type": "choice", "required": true, "optionListId": list.ID},
			map[string]any{"fieldId": "notes", "label": "Notes", "type": "text"},
			map[string]any{"fieldId": "editor", "type": "user", "defaultValue": a.UserID},
		}})
	if news.ID != "news" || news.IsDefault || news.DisplayName != "News" || *news.Color != "#00FF00FF" ||
		!slices.Equal(news.fieldIDs(), []string{"default_title", "default_description", "genre", "notes", "editor"}) {
		t.Fatalf("created form = %+v", news)
	}
	if g := news.field(t, "genre"); g.OptionListID == nil || *g.OptionListID != list.ID || len(g.Alternatives) != 2 {
		t.Fatalf("genre = %+v", g)
	}
	if e := news.field(t, "editor"); e.DefaultValue != a.UserID || e.Alternatives != nil {
		t.Fatalf("editor = %+v", e)
	}
	if got := gqlGetMdf(t, a, "news"); !reflect.DeepEqual(got, news) {
		t.Fatalf("mdf(id) = %+v, want %+v", got, news)
	}

	// An update that drops a field retires it.
	news = gqlMdfMutation(t, a, "updateMdf", map[string]any{"id": "news", "label": "News", "fields": []any{
		map[string]any{"fieldId": "genre", "label": "Category", "type": "choice", "optionListId": list.ID}}})
	if !slices.Equal(news.fieldIDs(), []string{"default_title", "default_description", "genre"}) || len(news.RetiredFields) != 2 ||
		news.RetiredFields[0].ID != "notes" || news.RetiredFields[0].Label != "Notes" || news.RetiredFields[1].ID != "editor" {
		t.Fatalf("updated form = %+v", news)
	}

	var lists struct {
		OptionLists struct {
			Total    int
			Embedded struct{ Collection []gqlOptionList } `json:"_embedded"`
		}
		OptionList gqlOptionList
	}
	a.GraphQL(t, `query($id: ID!) { optionLists { total _embedded { collection { `+gqlOptionListFields+` } } }
		optionList(id: $id) { `+gqlOptionListFields+` } }`, map[string]any{"id": list.ID}).OK(&lists)
	if lists.OptionLists.Total != 1 || !reflect.DeepEqual(lists.OptionLists.Embedded.Collection[0], list) ||
		!reflect.DeepEqual(lists.OptionList, list) {
		t.Fatalf("option lists = %+v", lists)
	}

	// Errors carry their codes.
	r := a.GraphQL(t, `{ mdf(id: "nope") { id } }`, nil)
	wantError(t, r, "NOT_FOUND", 404)
	wantError(t, a.GraphQL(t, `{ optionList(id: "01a20242-9dca-771b-bd4e-ca31c13a56ec") { id } }`, nil), "NOT_FOUND", 404)
	if msg := wantError(t, a.GraphQL(t, `mutation { deleteMdf(input: {id: "default"}) { id } }`, nil), "BAD_USER_INPUT", 400); msg != "Cannot delete default form" {
		t.Fatalf("delete default form: %q", msg)
	}
	r = a.GraphQL(t, `mutation { createOptionList(input: {name: "GENRES", alternatives: []}) { optionList { id } } }`, nil)
	if msg := wantError(t, r, "FORBIDDEN", 403); msg != "Name GENRES is already used by another option list" {
		t.Fatalf("name in use: %q", msg)
	}
	r = a.GraphQL(t, `mutation { createMdf(input: {id: "news", label: "Again"}) { mdf { id } } }`, nil)
	wantError(t, r, "CONFLICT", 409)
	r = a.GraphQL(t, `mutation($id: ID!) { deleteOptionList(input: {id: $id}) { id } }`, map[string]any{"id": list.ID})
	wantError(t, r, "CONFLICT", 409)
	r = a.GraphQL(t, `mutation { updateMdf(input: {id: "nope", label: "X", fields: []}) { mdf { id } } }`, nil)
	wantError(t, r, "NOT_FOUND", 404)
	r = a.GraphQL(t, `mutation { updateMdf(input: {label: "X", fields: []}) { mdf { id } } }`, nil)
	if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != "id is required: the form to overwrite" {
		t.Fatalf("update without id: %q", msg)
	}
	r = a.GraphQL(t, `mutation { updateOptionList(input: {name: "X", alternatives: []}) { optionList { id } } }`, nil)
	if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != "id is required: the option list to replace" {
		t.Fatalf("update without id: %q", msg)
	}

	// Update and delete the option list, then the form.
	var upd struct {
		UpdateOptionList struct{ OptionList gqlOptionList }
	}
	a.GraphQL(t, `mutation($in: OptionListInput!) { updateOptionList(input: $in) { optionList { `+gqlOptionListFields+` } } }`,
		map[string]any{"in": map[string]any{"id": list.ID, "name": "Kinds", "alternatives": []any{map[string]any{"value": "feature"}}}}).OK(&upd)
	if upd.UpdateOptionList.OptionList.Name != "Kinds" || len(upd.UpdateOptionList.OptionList.Alternatives) != 1 {
		t.Fatalf("updated list = %+v", upd)
	}
	if g := gqlGetMdf(t, a, "news").field(t, "genre"); !reflect.DeepEqual(g.Alternatives, []gqlAlternative{{"feature", "feature"}}) {
		t.Fatalf("genre after the list changed = %+v", g)
	}
	// (Left out, the rule would be kept, and it names genre.)
	gqlMdfMutation(t, a, "updateMdf", map[string]any{"id": "news", "label": "News", "rule": nil, "fields": []any{}})
	a.GraphQL(t, `mutation($id: ID!) { deleteOptionList(input: {id: $id}) { id } }`, map[string]any{"id": list.ID}).OK(nil)
	var del struct{ DeleteMdf struct{ ID string } }
	a.GraphQL(t, `mutation { deleteMdf(input: {id: "news"}) { id } }`, nil).OK(&del)
	if del.DeleteMdf.ID != "news" || slices.Contains(gqlMdfIDs(t, a), "news") {
		t.Fatalf("after delete: %+v, %v", del, gqlMdfIDs(t, a))
	}
}

func TestGraphQLDefinitionWritesAreForAdminsAndRecorded(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)

	for _, c := range []struct{ query string }{
		{`mutation { createMdf(input: {id: "mine", label: "Mine"}) { mdf { id } } }`},
		{`mutation { updateMdf(input: {id: "default", label: "Mine", fields: []}) { mdf { id } } }`},
		{`mutation { deleteMdf(input: {id: "default"}) { id } }`},
		{`mutation { createOptionList(input: {name: "Mine", alternatives: []}) { optionList { id } } }`},
		{`mutation { updateOptionList(input: {id: "01a20242-9dca-771b-bd4e-ca31c13a56ec", name: "Mine", alternatives: []}) { optionList { id } } }`},
		{`mutation { deleteOptionList(input: {id: "01a20242-9dca-771b-bd4e-ca31c13a56ec"}) { id } }`},
		{`{ definitionChanges { total } }`},
	} {
		if msg := wantError(t, ed.GraphQL(t, c.query, nil), "FORBIDDEN", 403); msg != gqlMsgAdminOnly {
			t.Fatalf("%s: %q", c.query, msg)
		}
	}

	list := gqlCreateOptionList(t, a, map[string]any{"name": "Genres", "alternatives": []any{map[string]any{"value": "report"}}})
	gqlMdfMutation(t, a, "createMdf", map[string]any{"id": "news", "label": "News"})
	gqlMdfMutation(t, a, "updateMdf", map[string]any{"id": "news", "label": "World news", "fields": []any{}})
	a.Delete(t, "/api/v1/mdfs/news").Status(200) // REST writes are recorded alike

	type change struct {
		SubjectType, SubjectID, Action, ExecutedBy, Email string
		Before, After                                     map[string]any
	}
	var out struct {
		DefinitionChanges struct {
			Total int
			Hits  []change
		}
	}
	const q = `query($s: ID) { definitionChanges(subjectId: $s) { total hits { subjectType subjectId action executedBy email before after } } }`
	a.GraphQL(t, q, nil).OK(&out)
	hits := out.DefinitionChanges.Hits
	if out.DefinitionChanges.Total != 4 || len(hits) != 4 {
		t.Fatalf("changes = %+v", out.DefinitionChanges)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.SubjectType+":"+h.Action)
		if h.ExecutedBy != a.UserID || h.Email != "admin@a.test" {
			t.Fatalf("change by %s %s", h.ExecutedBy, h.Email)
		}
	}
	if want := []string{"mdf:delete", "mdf:update", "mdf:create", "optionList:create"}; !slices.Equal(got, want) {
		t.Fatalf("changes newest first = %v, want %v", got, want)
	}
	if hits[0].After != nil || hits[0].Before["label"] != "World news" || hits[1].Before["label"] != "News" ||
		hits[1].After["label"] != "World news" || hits[2].Before != nil || hits[3].SubjectID != list.ID {
		t.Fatalf("before and after: %+v", hits)
	}
	a.GraphQL(t, q, map[string]any{"s": list.ID}).OK(&out)
	if out.DefinitionChanges.Total != 1 || out.DefinitionChanges.Hits[0].After["name"] != "Genres" {
		t.Fatalf("changes of the list = %+v", out.DefinitionChanges)
	}
	// Refused writes record nothing.
	a.GraphQL(t, `mutation { createMdf(input: {id: "bad", label: "Bad", color: "red"}) { mdf { id } } }`, nil).ErrorCode("BAD_USER_INPUT")
	a.GraphQL(t, q, nil).OK(&out)
	if out.DefinitionChanges.Total != 4 {
		t.Fatalf("a refused write was recorded: %+v", out.DefinitionChanges)
	}
}

func TestGraphQLFormInputIsTakenAsTyped(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for _, c := range []struct {
		input map[string]any
		msg   string
	}{
		{map[string]any{"label": 5}, "label: must be a string"},
		{map[string]any{"label": "X", "active": 1}, ""},
		{map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a", "type": "text", "required": "true"}}}, ""},
		{map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": 7, "type": "text"}}}, "fields[0].fieldId: must be a string"},
		{map[string]any{"label": "X", "fields": []any{map[string]any{"fieldId": "a", "type": "choice",
			"alternatives": []any{map[string]any{"value": 5}}}}}, "fields[0].alternatives[0].value: must be a string"},
	} {
		r := a.GraphQL(t, `mutation($in: MdfInput!) { createMdf(input: $in) { mdf { id } } }`, map[string]any{"in": c.input})
		if len(r.Errors) == 0 || r.Errors[0].Extensions["statusCode"] != 400.0 {
			t.Fatalf("%v: %+v, want a 400 error", c.input, r.Errors)
		}
		if c.msg != "" {
			if msg := r.ErrorCode("BAD_USER_INPUT"); msg != c.msg {
				t.Fatalf("%v: %q, want %q", c.input, msg, c.msg)
			}
		}
	}
	if ids := gqlMdfIDs(t, a); len(ids) != 7 {
		t.Fatalf("forms after refused creates: %v", ids)
	}
}

func TestGraphQLMetadataWritesAreCheckedAgainstTheirForm(t *testing.T) {
	api := loupetest.New(t)
	a, b := api.Tenant(t, "a"), api.Tenant(t, "b")
	gqlMdfMutation(t, a, "createMdf", map[string]any{"id": "matrix", "label": "Matrix", "fields": []any{
		map[string]any{"fieldId": "f_text", "type": "text"},
		map[string]any{"fieldId": "f_date", "type": "date"},
		map[string]any{"fieldId": "f_choice", "type": "choice", "alternatives": []any{map[string]any{"value": "a"}}},
		map[string]any{"fieldId": "f_checkbox", "type": "checkbox"},
		map[string]any{"fieldId": "f_number", "type": "number"},
		map[string]any{"fieldId": "f_multi", "type": "multiplechoice", "alternatives": []any{map[string]any{"value": "a"}, map[string]any{"value": "b"}}},
		map[string]any{"fieldId": "f_link", "type": "link"},
		map[string]any{"fieldId": "f_user", "type": "user"},
		map[string]any{"fieldId": "f_required", "type": "text", "required": true, "defaultValue": "set"},
	}})
	existing := createItem(t, a, map[string]any{"title": "Existing", "itemType": "video", "metadata": map[string]any{"formId": "matrix"}})
	cases := []struct {
		field string
		value any
		valid bool
	}{
		{"f_text", "words", true}, {"f_text", 1, false},
		{"f_date", "2026-01-31", true}, {"f_date", "31/01/2026", false},
		{"f_choice", "a", true}, {"f_choice", "b", false},
		{"f_checkbox", true, true}, {"f_checkbox", "yes", false},
		{"f_number", 42.5, true}, {"f_number", "42", false},
		{"f_multi", []any{"b", "a"}, true}, {"f_multi", []any{"a", "z"}, false},
		{"f_link", "https://loupe.example/x", true}, {"f_link", "loupe.example", false},
		{"f_user", a.UserID, true}, {"f_user", b.UserID, false},
		{"f_required", "given", true}, {"f_required", "", false},
	}
	const create = `mutation($in: CreateItemInput!) { createItem(input: $in) { item { id metadata { formData } } } }`
	const update = `mutation($in: UpdateItemMetadataInput!) { updateItemMetadata(input: $in) { item { metadataVersion metadata { formData } } } }`
	for _, c := range cases {
		enc, _ := json.Marshal(c.value)
		t.Run(fmt.Sprintf("%s=%s", c.field, enc), func(t *testing.T) {
			in := map[string]any{"title": "Clip", "itemType": "video",
				"metadata": map[string]any{"formId": "matrix", "formData": map[string]any{c.field: c.value}}}
			delta := map[string]any{"id": existing.ID, "metadataDelta": map[string]any{"formData": map[string]any{c.field: c.value}}}
			if c.valid {
				var out struct {
					CreateItem struct {
						Item struct {
							Metadata struct{ FormData map[string]any }
						}
					}
				}
				a.GraphQL(t, create, map[string]any{"in": in}).OK(&out)
				if got, _ := json.Marshal(out.CreateItem.Item.Metadata.FormData[c.field]); string(got) != string(enc) {
					t.Fatalf("stored %s, want %s", got, enc)
				}
				a.GraphQL(t, update, map[string]any{"in": delta}).OK(nil)
				return
			}
			want := fmt.Sprintf("invalid value %s for field: %q", enc, c.field)
			if c.field == "f_required" {
				want = `missing value for required field: "f_required"`
			}
			for _, r := range []*loupetest.GraphQLResponse{
				a.GraphQL(t, create, map[string]any{"in": in}), a.GraphQL(t, update, map[string]any{"in": delta}),
			} {
				if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != want {
					t.Fatalf("message %q, want %q", msg, want)
				}
				if p, _ := r.Errors[0].Extensions["payload"].(map[string]any); !reflect.DeepEqual(p["messages"], []any{want}) {
					t.Fatalf("payload %v", p)
				}
			}
		})
	}
	// The new item got the default; a form nobody has is refused.
	var out struct {
		CreateItem struct {
			Item struct {
				Metadata struct{ FormData map[string]any }
			}
		}
	}
	a.GraphQL(t, create, map[string]any{"in": map[string]any{"title": "Defaults", "itemType": "video",
		"metadata": map[string]any{"formId": "matrix"}}}).OK(&out)
	if out.CreateItem.Item.Metadata.FormData["f_required"] != "set" {
		t.Fatalf("form data of a new item = %v", out.CreateItem.Item.Metadata.FormData)
	}
	r := a.GraphQL(t, create, map[string]any{"in": map[string]any{"title": "x", "itemType": "video", "metadata": map[string]any{"formId": "nope"}}})
	if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != `unknown form: "nope"` {
		t.Fatalf("unknown form: %q", msg)
	}
	// b cannot use a's form.
	r = b.GraphQL(t, create, map[string]any{"in": map[string]any{"title": "x", "itemType": "video", "metadata": map[string]any{"formId": "matrix"}}})
	if msg := wantError(t, r, "BAD_USER_INPUT", 400); msg != `unknown form: "matrix"` {
		t.Fatalf("another tenant's form: %q", msg)
	}
	wantError(t, b.GraphQL(t, `{ mdf(id: "matrix") { id } }`, nil), "NOT_FOUND", 404)
}

func TestGraphQLFormOfItemsAndReadableValuesAfterAFormUpdate(t *testing.T) {
	api := loupetest.New(t)
	a, b := api.Tenant(t, "a"), api.Tenant(t, "b")
	gqlMdfMutation(t, a, "createMdf", map[string]any{"id": "news", "label": "News", "fields": []any{
		map[string]any{"fieldId": "tone", "label": "Tone", "type": "choice", "alternatives": []any{
			map[string]any{"value": "calm", "label": "Calm"}, map[string]any{"value": "urgent", "label": "Urgent"}}},
		map[string]any{"fieldId": "topics", "label": "Topics", "type": "multiplechoice", "alternatives": []any{
			map[string]any{"value": "pol", "label": "Politics"}, map[string]any{"value": "spo", "label": "Sport"}}},
		map[string]any{"fieldId": "notes", "label": "Notes", "type": "text"},
	}})
	it := createItem(t, a, map[string]any{"title": "Story", "itemType": "video", "metadata": map[string]any{"formId": "news",
		"formData": map[string]any{"tone": "urgent", "topics": []any{"spo", "pol"}, "notes": "n", "reel": "A1"}}})
	const q = `query($id: ID!) { item(id: $id) { metadata { formId form { id label retiredFields { id label } }
		formData(readableFields: true) } } }`
	type answer struct {
		Item struct {
			Metadata struct {
				FormID string
				Form   *struct {
					ID, Label     string
					RetiredFields []struct{ ID, Label string }
				}
				FormData map[string]any
			}
		}
	}
	var out answer
	a.GraphQL(t, q, map[string]any{"id": it.ID}).OK(&out)
	md := out.Item.Metadata
	if md.Form == nil || md.Form.ID != "news" || md.Form.Label != "News" || len(md.Form.RetiredFields) != 0 {
		t.Fatalf("form = %+v", md.Form)
	}
	want := map[string]any{"Title": "Story", "Tone": "Urgent", "Topics": []any{"Sport", "Politics"}, "Notes": "n", "reel": "A1"}
	if !reflect.DeepEqual(md.FormData, want) {
		t.Fatalf("readable form data = %v, want %v", md.FormData, want)
	}

	// The form changes under the item: notes and topics go, tone is relabelled.
	gqlMdfMutation(t, a, "updateMdf", map[string]any{"id": "news", "label": "World news", "fields": []any{
		map[string]any{"fieldId": "tone", "label": "Mood", "type": "choice", "alternatives": []any{
			map[string]any{"value": "calm", "label": "Calm"}, map[string]any{"value": "urgent", "label": "Pressing"}}}}})
	out = answer{}
	a.GraphQL(t, q, map[string]any{"id": it.ID}).OK(&out)
	md = out.Item.Metadata
	if md.Form.Label != "World news" || len(md.Form.RetiredFields) != 2 || md.Form.RetiredFields[0].ID != "topics" {
		t.Fatalf("form after the update = %+v", md.Form)
	}
	want = map[string]any{"Title": "Story", "Mood": "Pressing", "Topics": []any{"Sport", "Politics"}, "Notes": "n", "reel": "A1"}
	if !reflect.DeepEqual(md.FormData, want) {
		t.Fatalf("readable form data after the update = %v, want %v", md.FormData, want)
	}

	// Forms are looked up in the item's tenant only: an item of b naming
	// a's form (written behind the API) has no form.
	other := createItem(t, b, map[string]any{"title": "B", "itemType": "video"})
	if _, err := api.DB.Exec(`UPDATE items SET metadata_form_id = 'news' WHERE id = $1`, other.ID); err != nil {
		t.Fatal(err)
	}
	out = answer{}
	b.GraphQL(t, q, map[string]any{"id": other.ID}).OK(&out)
	if out.Item.Metadata.FormID != "news" || out.Item.Metadata.Form != nil || out.Item.Metadata.FormData["Title"] != "B" {
		t.Fatalf("b's item naming a's form: %+v", out.Item.Metadata)
	}
}

func TestItemFormsAreBatched(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	forms := []string{"default", "default_video", "news"}
	gqlMdfMutation(t, a, "createMdf", map[string]any{"id": "news", "label": "News", "fields": []any{
		map[string]any{"fieldId": "tone", "type": "choice", "alternatives": []any{map[string]any{"value": "calm", "label": "Calm"}}}}})
	for i := range 40 {
		fd := map[string]any{}
		if forms[i%3] == "news" {
			fd["tone"] = "calm"
		}
		createItem(t, a, map[string]any{"title": fmt.Sprintf("Clip %02d", i), "itemType": "video",
			"metadata": map[string]any{"formId": forms[i%3], "formData": fd}})
	}
	const query = `query($first: Int) { items(first: $first) { nodes { id
		metadata { formId form { id label fields { id label alternatives { label } } } formData(readableFields: true) } } } }`
	counts := map[int][]int64{}
	for range rounds {
		for _, n := range []int{5, 40} {
			var out struct {
				Items struct {
					Nodes []struct {
						Metadata struct {
							FormID   string
							Form     struct{ ID string }
							FormData map[string]any
						}
					}
				}
			}
			api.Statements.Reset()
			r := a.GraphQL(t, query, map[string]any{"first": n})
			counts[n] = append(counts[n], api.Statements.Count())
			r.OK(&out)
			if len(out.Items.Nodes) != n {
				t.Fatalf("first %d: %d nodes", n, len(out.Items.Nodes))
			}
			for _, node := range out.Items.Nodes {
				md := node.Metadata
				if md.Form.ID != md.FormID || (md.FormID == "news" && md.FormData["tone"] != "Calm") {
					t.Fatalf("item metadata %+v", md)
				}
			}
		}
	}
	t.Logf("statements of items(first: N) with metadata { form formData(readableFields) }: %v", counts)
	// 1 authentication + 1 page + 1 forms, whatever N.
	sameCost(t, "items(first: N) with their forms", counts)
	if c := counts[40][0]; c > 3 {
		t.Fatalf("a page of items with their forms cost %d statements, want 3", c)
	}
}
