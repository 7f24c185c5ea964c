package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The keys of a comment record (spec 2.5).
var commentRecordKeys = strings.Fields(`id type createdOn assignedOn modifiedOn deletedOn text textEditedOn
author assignee context reactions resolved`)

// absentID is a well-formed UUIDv7 no row has.
const absentID = "01a20242-9dca-771b-bd4e-ca31c13a56ec"

// postComment creates a comment through REST and returns the record.
func postComment(t *testing.T, c *loupetest.Client, itemID string, body map[string]any) map[string]any {
	t.Helper()
	return c.Post(t, "/api/v1/items/"+itemID+"/comments", body).Status(http.StatusOK).Object()
}

func TestCreateCommentAnswersTheCommentRecord(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "editor@a.test", nil, false)
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})

	got := postComment(t, a, item, map[string]any{
		"text":     "  Cut here  ",
		"context":  map[string]any{"type": "timeline", "startSecond": map[string]any{"approximate": 12.5}, "endSecond": map[string]any{"approximate": 14}},
		"assignee": map[string]any{"type": "user", "id": editor.UserID},
	})
	sameKeys(t, "comment record", got, commentRecordKeys)
	author, _ := got["author"].(map[string]any)
	assignee, _ := got["assignee"].(map[string]any)
	ctx, _ := got["context"].(map[string]any)
	if got["type"] != "top" || got["text"] != "Cut here" || got["resolved"] != false ||
		got["deletedOn"] != nil || got["textEditedOn"] != nil ||
		author["type"] != "user" || author["id"] != a.UserID ||
		assignee["type"] != "user" || assignee["id"] != editor.UserID ||
		got["assignedOn"] != got["createdOn"] || got["modifiedOn"] != got["createdOn"] {
		t.Fatalf("comment record = %v", got)
	}
	if s, _ := got["createdOn"].(string); !strings.HasSuffix(s, "Z") || len(s) != len("2026-01-02T03:04:05.000Z") {
		t.Fatalf("createdOn = %v, want an RFC 3339 UTC timestamp with milliseconds", got["createdOn"])
	}
	if fmt.Sprint(ctx) != "map[endSecond:map[approximate:14] startSecond:map[approximate:12.5] type:timeline]" {
		t.Fatalf("context = %v", ctx)
	}
	if r, ok := got["reactions"].([]any); !ok || len(r) != 0 {
		t.Fatalf("reactions = %v, want []", got["reactions"])
	}

	// Without context or assignee, those are null; a parentId makes a reply.
	reply := postComment(t, editor, item, map[string]any{"text": "Done", "parentId": got["id"]})
	sameKeys(t, "reply record", reply, commentRecordKeys)
	if reply["type"] != "reply" || reply["context"] != nil || reply["assignee"] != nil || reply["assignedOn"] != nil ||
		reply["author"].(map[string]any)["id"] != editor.UserID {
		t.Fatalf("reply record = %v", reply)
	}
	explicit := postComment(t, a, item, map[string]any{"text": "Also", "type": "reply", "parentId": got["id"]})
	if explicit["type"] != "reply" {
		t.Fatalf("explicit reply = %v", explicit)
	}
	// The longest text there may be.
	long := postComment(t, a, item, map[string]any{"text": strings.Repeat("é", 10000)})
	if long["text"] != strings.Repeat("é", 10000) {
		t.Fatal("a text of 10000 characters was not kept")
	}

	// The list has them oldest first, as created.
	var list struct {
		Comments  []map[string]any `json:"comments"`
		MScrollID *string          `json:"mScrollId"`
	}
	a.Get(t, "/api/v1/items/"+item+"/comments").Status(http.StatusOK).JSON(&list)
	if len(list.Comments) != 4 || list.MScrollID != nil {
		t.Fatalf("list = %+v", list)
	}
	for i, want := range []map[string]any{got, reply, explicit, long} {
		sameKeys(t, "listed comment", list.Comments[i], commentRecordKeys)
		if fmt.Sprint(list.Comments[i]) != fmt.Sprint(want) {
			t.Fatalf("listed comment %d = %v, want %v", i, list.Comments[i], want)
		}
	}
}

func TestCreateCommentOnAMissingItemAnswersTheSpecEnvelope(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	foreign := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "video"})
	binned := a.CreateItem(t, map[string]any{"title": "Binned", "itemType": "video"})
	a.Delete(t, "/api/v1/items/"+binned).Status(http.StatusOK)

	for _, tc := range []struct{ name, id string }{
		{"missing", absentID},
		{"not an id", "not-a-uuid"},
		{"in the recycle bin", binned},
		{"another tenant's", foreign},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := a.Post(t, "/api/v1/items/"+tc.id+"/comments", map[string]any{"text": "hello"}).
				Envelope(http.StatusNotFound, "Item not found")
			if env["developerMessage"] != "Item "+tc.id+" does not exist" {
				t.Fatalf("developerMessage = %v", env["developerMessage"])
			}
			if got := fmt.Sprint(env["payload"]); got != "map[debug:[NotFoundError]]" {
				t.Fatalf("payload = %v, want {debug: [NotFoundError]}", got)
			}
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM comments`); n != 0 {
		t.Fatalf("%d comments stored", n)
	}
	// Listing answers the generic 404 for the same items.
	for _, id := range []string{absentID, binned, foreign} {
		a.Get(t, "/api/v1/items/"+id+"/comments").Envelope(http.StatusNotFound, "The server can not find requested resource.")
	}
}

func TestCreateCommentRejectsBadBodiesAndChangesNothing(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	retired := a.User(t, "retired@a.test", nil, false)
	if _, err := api.DB.Exec(`UPDATE users SET deactivated = true WHERE id = $1`, retired.UserID); err != nil {
		t.Fatal(err)
	}
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	other := a.CreateItem(t, map[string]any{"title": "Other", "itemType": "video"})
	top := postComment(t, a, item, map[string]any{"text": "top"})["id"]
	reply := postComment(t, a, item, map[string]any{"text": "reply", "parentId": top})["id"]
	otherTop := postComment(t, a, other, map[string]any{"text": "elsewhere"})["id"]
	gone := postComment(t, a, item, map[string]any{"text": "gone"})["id"].(string)
	a.GraphQL(t, `mutation($id: ID!) { deleteComment(input: {id: $id}) { id } }`, map[string]any{"id": gone}).OK(nil)
	span := func(start, end float64) map[string]any {
		return map[string]any{"type": "timeline", "startSecond": map[string]any{"approximate": start},
			"endSecond": map[string]any{"approximate": end}}
	}
	noParent := func(id any) string { return fmt.Sprintf("parent comment %v does not exist on this item", id) }
	const badSpan = "context: need 0 <= startSecond.approximate <= endSecond.approximate"
	before := api.Count(t, `SELECT count(*) FROM comments`)

	cases := []struct {
		name    string
		body    any
		message string
	}{
		{"not JSON", `{"text": `, "The server could not understand the request due to invalid syntax."},
		{"not an object", `["text"]`, "the request body must be a JSON object"},
		{"no text", map[string]any{}, "text: must be defined"},
		{"empty text", map[string]any{"text": ""}, "text must be 1 to 10000 characters"},
		{"blank text", map[string]any{"text": " \n\t "}, "text must be 1 to 10000 characters"},
		{"text too long", map[string]any{"text": strings.Repeat("x", 10001)}, "text must be 1 to 10000 characters"},
		{"unknown key", map[string]any{"text": "hi", "colour": "red"}, "colour: unknown field"},
		{"unknown type", map[string]any{"text": "hi", "type": "note"}, "type: note is not a valid CommentType"},
		{"reply without parent", map[string]any{"text": "hi", "type": "reply"}, "a reply needs parentId"},
		{"top with parent", map[string]any{"text": "hi", "type": "top", "parentId": top}, "a top comment has no parentId"},
		{"parent is a reply", map[string]any{"text": "hi", "parentId": reply}, fmt.Sprintf("parent comment %s is a reply: replies answer top comments", reply)},
		{"parent on another item", map[string]any{"text": "hi", "parentId": otherTop}, noParent(otherTop)},
		{"parent missing", map[string]any{"text": "hi", "parentId": absentID}, noParent(absentID)},
		{"parent not an id", map[string]any{"text": "hi", "parentId": "x"}, noParent("x")},
		{"parent deleted", map[string]any{"text": "hi", "parentId": gone}, noParent(gone)},
		{"context not timeline", map[string]any{"text": "hi", "context": map[string]any{"type": "frames",
			"startSecond": map[string]any{"approximate": 1}, "endSecond": map[string]any{"approximate": 2}}}, "context.type must be timeline"},
		{"context starts before 0", map[string]any{"text": "hi", "context": span(-1, 2)}, badSpan},
		{"context ends before it starts", map[string]any{"text": "hi", "context": span(3, 2)}, badSpan},
		{"approximate a numeric string", map[string]any{"text": "hi", "context": map[string]any{"type": "timeline",
			"startSecond": map[string]any{"approximate": "1"}, "endSecond": map[string]any{"approximate": 2}}}, "context.startSecond.approximate: must be a number"},
		{"approximate a boolean", map[string]any{"text": "hi", "context": map[string]any{"type": "timeline",
			"startSecond": map[string]any{"approximate": 1}, "endSecond": map[string]any{"approximate": true}}}, "context.endSecond.approximate: cannot use bool as Float"},
		{"context without end", map[string]any{"text": "hi", "context": map[string]any{"startSecond": map[string]any{"approximate": 1}}}, "context.endSecond: must be defined"},
		{"assignee unknown", map[string]any{"text": "hi", "assignee": map[string]any{"id": absentID}}, "assignee " + absentID + " is not a user of the tenant"},
		{"assignee of another tenant", map[string]any{"text": "hi", "assignee": map[string]any{"id": b.UserID}}, "assignee " + b.UserID + " is not a user of the tenant"},
		{"assignee deactivated", map[string]any{"text": "hi", "assignee": map[string]any{"id": retired.UserID}}, "assignee " + retired.UserID + " is not a user of the tenant"},
		{"assignee not an id", map[string]any{"text": "hi", "assignee": map[string]any{"id": "bob"}}, "assignee bob is not a user of the tenant"},
		{"assignee a group", map[string]any{"text": "hi", "assignee": map[string]any{"type": "group", "id": a.UserID}}, "assignee.type must be user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a.Post(t, "/api/v1/items/"+item+"/comments", tc.body).Envelope(http.StatusBadRequest, tc.message)
		})
	}
	if after := api.Count(t, `SELECT count(*) FROM comments`); after != before {
		t.Fatalf("bad bodies changed the comments: %d, then %d", before, after)
	}
}

// commentPage is the answer of the comment list.
type commentPage struct {
	Comments []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"comments"`
	MScrollID *string `json:"mScrollId"`
}

func TestListCommentsPagesWithMScrollId(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	var want []string
	for i := range 25 {
		want = append(want, postComment(t, a, item, map[string]any{"text": fmt.Sprintf("c%02d", i)})["id"].(string))
	}
	// Another item's comments never show.
	other := a.CreateItem(t, map[string]any{"title": "Other", "itemType": "video"})
	postComment(t, a, other, map[string]any{"text": "elsewhere"})

	for _, tc := range []struct {
		name  string
		size  string
		pages []int
	}{
		{"default size", "", []int{20, 5}},
		{"size 10", "10", []int{10, 10, 5}},
		{"size 5 (ends exactly)", "5", []int{5, 5, 5, 5, 5}},
		{"size 1", "1", nil}, // 25 pages of 1
		{"size 100", "100", []int{25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var sizes []int
			scroll := ""
			for range 30 {
				q := []string{}
				if tc.size != "" {
					q = append(q, "size="+tc.size)
				}
				if scroll != "" {
					q = append(q, "mScrollId="+scroll)
				}
				path := "/api/v1/items/" + item + "/comments"
				if len(q) > 0 {
					path += "?" + strings.Join(q, "&")
				}
				r := a.Get(t, path).Status(http.StatusOK)
				sameKeys(t, "comment list", r.Object(), []string{"comments", "mScrollId"})
				var page commentPage
				r.JSON(&page)
				sizes = append(sizes, len(page.Comments))
				for _, c := range page.Comments {
					got = append(got, c.ID)
				}
				if page.MScrollID == nil {
					break
				}
				scroll = *page.MScrollID
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("paged ids:\n got %v\nwant %v", got, want)
			}
			if tc.pages != nil && fmt.Sprint(sizes) != fmt.Sprint(tc.pages) {
				t.Fatalf("page sizes %v, want %v", sizes, tc.pages)
			}
		})
	}

	for _, tc := range []struct{ name, query, message string }{
		{"size 0", "size=0", "first (size) must be between 1 and 100"},
		{"size 101", "size=101", "first (size) must be between 1 and 100"},
		{"size not a number", "size=ten", `query parameter size must be an integer, got "ten"`},
		{"mScrollId not a cursor", "mScrollId=%25%25%25", "invalid cursor (after / mScrollId)"},
		// base64url of "not-an-id"
		{"mScrollId of no id", "mScrollId=bm90LWFuLWlk", "invalid cursor (after / mScrollId)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.Get(t, "/api/v1/items/"+item+"/comments?"+tc.query).Envelope(http.StatusBadRequest, tc.message)
		})
	}

	// Another tenant sees no such item.
	b.Get(t, "/api/v1/items/"+item+"/comments").Envelope(http.StatusNotFound, "The server can not find requested resource.")
}

func TestDeletedCommentsStayListed(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	first := postComment(t, a, item, map[string]any{"text": "first"})["id"].(string)
	postComment(t, a, item, map[string]any{"text": "second"})
	a.GraphQL(t, `mutation($id: ID!) { deleteComment(input: {id: $id}) { id } }`, map[string]any{"id": first}).OK(nil)

	var list struct {
		Comments []map[string]any `json:"comments"`
	}
	a.Get(t, "/api/v1/items/"+item+"/comments").Status(http.StatusOK).JSON(&list)
	if len(list.Comments) != 2 {
		t.Fatalf("%d comments listed, want 2", len(list.Comments))
	}
	del := list.Comments[0]
	if del["id"] != first || del["text"] != "" || del["deletedOn"] == nil || del["modifiedOn"] != del["deletedOn"] {
		t.Fatalf("deleted comment = %v", del)
	}
	if list.Comments[1]["text"] != "second" || list.Comments[1]["deletedOn"] != nil {
		t.Fatalf("second comment = %v", list.Comments[1])
	}
}
