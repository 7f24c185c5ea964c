package resolvers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// gqlComment is a Comment as these tests ask for it.
type gqlComment struct {
	ID           string  `json:"id"`
	ItemID       string  `json:"itemId"`
	Type         string  `json:"type"`
	ParentID     *string `json:"parentId"`
	CreatedOn    string  `json:"createdOn"`
	AssignedOn   *string `json:"assignedOn"`
	ModifiedOn   string  `json:"modifiedOn"`
	DeletedOn    *string `json:"deletedOn"`
	Text         string  `json:"text"`
	TextEditedOn *string `json:"textEditedOn"`
	Author       struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"author"`
	Assignee *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"assignee"`
	Context *struct {
		Type        string `json:"type"`
		StartSecond struct {
			Approximate float64 `json:"approximate"`
		} `json:"startSecond"`
		EndSecond struct {
			Approximate float64 `json:"approximate"`
		} `json:"endSecond"`
	} `json:"context"`
	Reactions []struct {
		Reaction  string `json:"reaction"`
		UserID    string `json:"userId"`
		CreatedOn string `json:"createdOn"`
	} `json:"reactions"`
	Resolved bool `json:"resolved"`
}

const commentFields = `id itemId type parentId createdOn assignedOn modifiedOn deletedOn text textEditedOn
author { type id } assignee { type id } context { type startSecond { approximate } endSecond { approximate } }
reactions { reaction userId createdOn } resolved`

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reactionsOf lists "reaction by user" in order.
func (c gqlComment) reactionsOf() []string {
	out := []string{}
	for _, r := range c.Reactions {
		out = append(out, r.Reaction+" by "+r.UserID)
	}
	return out
}

// commentMutation runs a comment mutation with input and answers the
// response; OK(&out) decodes {<mutation>: Comment}.
func commentMutation(t *testing.T, c *loupetest.Client, mutation string, input map[string]any) *loupetest.GraphQLResponse {
	t.Helper()
	return c.GraphQL(t, `mutation($in: `+inputType(mutation)+`!) { `+mutation+`(input: $in) { `+commentFields+` } }`,
		map[string]any{"in": input})
}

func inputType(mutation string) string {
	switch mutation {
	case "deleteComment":
		return "CommentIdInput"
	default:
		return strings.ToUpper(mutation[:1]) + mutation[1:] + "Input"
	}
}

// comment runs a comment mutation that must succeed and answers the comment.
func comment(t *testing.T, c *loupetest.Client, mutation string, input map[string]any) gqlComment {
	t.Helper()
	var out map[string]gqlComment
	commentMutation(t, c, mutation, input).OK(&out)
	return out[mutation]
}

func TestCreateCommentMutation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	editor := a.User(t, "editor@a.test", nil, false)
	item := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID

	top := comment(t, a, "createComment", map[string]any{"itemId": item, "text": "Look at 0:12",
		"context":  map[string]any{"startSecond": map[string]any{"approximate": 12}, "endSecond": map[string]any{"approximate": 13.25}},
		"assignee": map[string]any{"id": editor.UserID}})
	if top.ItemID != item || top.Type != "top" || top.ParentID != nil || top.Author.ID != a.UserID ||
		top.Assignee == nil || top.Assignee.Type != "user" || top.Assignee.ID != editor.UserID ||
		top.AssignedOn == nil || *top.AssignedOn != top.CreatedOn || top.Context == nil || top.Context.Type != "timeline" ||
		top.Context.StartSecond.Approximate != 12 || top.Context.EndSecond.Approximate != 13.25 || len(top.Reactions) != 0 {
		t.Fatalf("created %+v", top)
	}
	reply := comment(t, editor, "createComment", map[string]any{"itemId": item, "text": "On it", "parentId": top.ID})
	if reply.Type != "reply" || reply.ParentID == nil || *reply.ParentID != top.ID || reply.Author.ID != editor.UserID {
		t.Fatalf("reply %+v", reply)
	}

	// The spec's 404 for an unknown item, with its developer message and
	// debug kind, in GraphQL as in REST; another tenant's item is unknown.
	for _, id := range []string{missingID, item} {
		r := commentMutation(t, b, "createComment", map[string]any{"itemId": id, "text": "hi"})
		if msg := wantError(t, r, "NOT_FOUND", http.StatusNotFound); msg != "Item not found" {
			t.Fatalf("message %q", msg)
		}
		ext := r.Errors[0].Extensions
		if ext["developerMessage"] != "Item "+id+" does not exist" || fmt.Sprint(ext["payload"]) != "map[debug:[NotFoundError]]" {
			t.Fatalf("extensions %v", ext)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM comments`); n != 2 {
		t.Fatalf("%d comments, want 2", n)
	}
}

func TestUpdateCommentPermissionsAndFields(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	author := a.User(t, "author@a.test", nil, false)
	other := a.User(t, "other@a.test", nil, false)
	item := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	c := comment(t, author, "createComment", map[string]any{"itemId": item, "text": "first draft"})

	// Only the author edits the text; the admin may not either.
	for _, who := range []*loupetest.Client{other, a} {
		r := commentMutation(t, who, "updateComment", map[string]any{"id": c.ID, "text": "hijacked"})
		if msg := wantError(t, r, "FORBIDDEN", http.StatusForbidden); msg != "only the author may edit a comment's text" {
			t.Fatalf("message %q", msg)
		}
	}
	// A text edit with another change is refused as a whole.
	wantError(t, commentMutation(t, other, "updateComment", map[string]any{"id": c.ID, "text": "x", "resolved": true}),
		"FORBIDDEN", http.StatusForbidden)

	pause()
	edited := comment(t, author, "updateComment", map[string]any{"id": c.ID, "text": "  final  "})
	if edited.Text != "final" || edited.TextEditedOn == nil || *edited.TextEditedOn != edited.ModifiedOn ||
		edited.ModifiedOn <= c.ModifiedOn || edited.CreatedOn != c.CreatedOn || edited.Resolved {
		t.Fatalf("edited %+v (was %+v)", edited, c)
	}

	// Anyone in the tenant resolves and assigns; that is no text edit.
	pause()
	resolved := comment(t, other, "updateComment", map[string]any{"id": c.ID, "resolved": true})
	if !resolved.Resolved || *resolved.TextEditedOn != *edited.TextEditedOn || resolved.ModifiedOn <= edited.ModifiedOn {
		t.Fatalf("resolved %+v", resolved)
	}
	assigned := comment(t, other, "updateComment", map[string]any{"id": c.ID, "assignee": map[string]any{"id": other.UserID}})
	if assigned.Assignee == nil || assigned.Assignee.ID != other.UserID || assigned.AssignedOn == nil ||
		*assigned.AssignedOn != assigned.ModifiedOn || !assigned.Resolved {
		t.Fatalf("assigned %+v", assigned)
	}
	// The same assignee again keeps assignedOn; another one moves it.
	pause()
	again := comment(t, a, "updateComment", map[string]any{"id": c.ID, "assignee": map[string]any{"type": "user", "id": other.UserID}})
	if *again.AssignedOn != *assigned.AssignedOn {
		t.Fatalf("assignedOn moved on the same assignee: %s, then %s", *assigned.AssignedOn, *again.AssignedOn)
	}
	moved := comment(t, a, "updateComment", map[string]any{"id": c.ID, "assignee": map[string]any{"id": author.UserID}, "resolved": false})
	if moved.Assignee.ID != author.UserID || *moved.AssignedOn <= *assigned.AssignedOn || moved.Resolved {
		t.Fatalf("reassigned %+v", moved)
	}
	unassigned := comment(t, other, "updateComment", map[string]any{"id": c.ID, "unassign": true})
	if unassigned.Assignee != nil || unassigned.AssignedOn != nil {
		t.Fatalf("unassigned %+v", unassigned)
	}

	for _, tc := range []struct {
		name   string
		who    *loupetest.Client
		input  map[string]any
		code   string
		status int
		msg    string
	}{
		{"nothing to change", author, map[string]any{"id": c.ID}, "BAD_USER_INPUT", 400, "nothing to change: give text, resolved, assignee or unassign"},
		{"assignee and unassign", author, map[string]any{"id": c.ID, "assignee": map[string]any{"id": other.UserID}, "unassign": true},
			"BAD_USER_INPUT", 400, "give assignee or unassign, not both"},
		{"blank text", author, map[string]any{"id": c.ID, "text": "   "}, "BAD_USER_INPUT", 400, "text must be 1 to 10000 characters"},
		{"assignee of another tenant", author, map[string]any{"id": c.ID, "assignee": map[string]any{"id": b.UserID}},
			"BAD_USER_INPUT", 400, "assignee " + b.UserID + " is not a user of the tenant"},
		{"unknown comment", author, map[string]any{"id": missingID, "resolved": true}, "NOT_FOUND", 404, "The server can not find requested resource."},
		{"not an id", author, map[string]any{"id": "c-1", "resolved": true}, "NOT_FOUND", 404, "The server can not find requested resource."},
		{"another tenant", b, map[string]any{"id": c.ID, "resolved": true}, "NOT_FOUND", 404, "The server can not find requested resource."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := wantError(t, commentMutation(t, tc.who, "updateComment", tc.input), tc.code, tc.status); msg != tc.msg {
				t.Fatalf("message %q, want %q", msg, tc.msg)
			}
		})
	}
	if now := commentsOf(t, a, item, 20, nil).Nodes[0]; jsonOf(t, now) != jsonOf(t, unassigned) {
		t.Fatalf("refused updates changed the comment:\n%+v\nwas\n%+v", now, unassigned)
	}
}

func TestDeleteCommentIsSoftAndOwnersOnly(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a") // the tenant's admin
	b := api.Tenant(t, "b")
	author := a.User(t, "author@a.test", nil, false)
	other := a.User(t, "other@a.test", nil, false)
	item := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	mine := comment(t, author, "createComment", map[string]any{"itemId": item, "text": "mine"})
	theirs := comment(t, other, "createComment", map[string]any{"itemId": item, "text": "theirs"})
	comment(t, author, "reactToComment", map[string]any{"id": mine.ID, "reaction": "👍"})

	for _, tc := range []struct {
		name   string
		who    *loupetest.Client
		id     string
		code   string
		status int
	}{
		{"someone else's", other, mine.ID, "FORBIDDEN", 403},
		{"another tenant's", b, mine.ID, "NOT_FOUND", 404},
		{"missing", author, missingID, "NOT_FOUND", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, commentMutation(t, tc.who, "deleteComment", map[string]any{"id": tc.id}), tc.code, tc.status)
		})
	}
	if n := api.Count(t, `SELECT count(*) FROM comments WHERE deleted_on IS NOT NULL`); n != 0 {
		t.Fatalf("%d comments deleted by refused requests", n)
	}

	pause()
	del := comment(t, author, "deleteComment", map[string]any{"id": mine.ID})
	if del.DeletedOn == nil || del.Text != "" || *del.DeletedOn != del.ModifiedOn || del.ModifiedOn <= mine.ModifiedOn ||
		del.Author.ID != author.UserID || len(del.Reactions) != 1 {
		t.Fatalf("deleted %+v", del)
	}
	// Deleting again changes nothing.
	if again := comment(t, author, "deleteComment", map[string]any{"id": mine.ID}); *again.DeletedOn != *del.DeletedOn {
		t.Fatalf("second delete moved deletedOn: %s, then %s", *del.DeletedOn, *again.DeletedOn)
	}
	// A deleted comment takes no more changes.
	for _, tc := range []struct {
		mutation string
		input    map[string]any
	}{
		{"updateComment", map[string]any{"id": mine.ID, "text": "back"}},
		{"updateComment", map[string]any{"id": mine.ID, "resolved": true}},
		{"reactToComment", map[string]any{"id": mine.ID, "reaction": "🎉"}},
	} {
		r := commentMutation(t, author, tc.mutation, tc.input)
		if msg := wantError(t, r, "CONFLICT", http.StatusConflict); msg != "comment "+mine.ID+" is deleted" {
			t.Fatalf("%s: message %q", tc.mutation, msg)
		}
	}
	// A tenant admin deletes anyone's comment.
	if del := comment(t, a, "deleteComment", map[string]any{"id": theirs.ID}); del.DeletedOn == nil || del.Text != "" {
		t.Fatalf("admin delete %+v", del)
	}
	// Both stay listed, in order.
	page := commentsOf(t, a, item, 20, nil)
	if len(page.Nodes) != 2 || page.Nodes[0].ID != mine.ID || page.Nodes[0].DeletedOn == nil || page.Nodes[1].Text != "" {
		t.Fatalf("listed after delete: %+v", page.Nodes)
	}
}

func TestReactToComment(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	other := a.User(t, "other@a.test", nil, false)
	item := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	c := comment(t, a, "createComment", map[string]any{"itemId": item, "text": "Nice shot"})

	pause()
	r1 := comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "👍"})
	if got, want := r1.reactionsOf(), []string{"👍 by " + a.UserID}; !slices.Equal(got, want) || r1.ModifiedOn <= c.ModifiedOn {
		t.Fatalf("reactions %v (want %v), modifiedOn %s", got, want, r1.ModifiedOn)
	}
	comment(t, other, "reactToComment", map[string]any{"id": c.ID, "reaction": "👍"})
	comment(t, other, "reactToComment", map[string]any{"id": c.ID, "reaction": " wow "})
	// The same reaction again is no change.
	again := comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "👍"})
	want := []string{"👍 by " + a.UserID, "👍 by " + other.UserID, "wow by " + other.UserID}
	if got := again.reactionsOf(); !slices.Equal(got, want) {
		t.Fatalf("reactions %v, want %v", got, want)
	}
	// Removing takes back only the caller's; removing what is not there is no change.
	removed := comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "👍", "remove": true})
	comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "wow", "remove": true})
	if got, want := removed.reactionsOf(), want[1:]; !slices.Equal(got, want) {
		t.Fatalf("after remove %v, want %v", got, want)
	}
	// Reactions come with the listed comment.
	if got := commentsOf(t, a, item, 20, nil).Nodes[0].reactionsOf(); !slices.Equal(got, want[1:]) {
		t.Fatalf("listed reactions %v, want %v", got, want[1:])
	}
	// A list that asks only for bare fields reads its comments bare (no
	// reactions, no timestamps beyond createdOn: one query); one request
	// asking both ways gets each right, the whole ones also through edges.
	var both struct {
		Item struct {
			Bare struct{ Nodes []map[string]any }
			Full struct {
				Edges []struct{ Node map[string]any }
			}
		}
	}
	const bare = `id itemId type parentId text author { type id } resolved createdOn`
	api.Statements.Reset()
	a.GraphQL(t, `query($id: ID!) { item(id: $id) {
		bare: comments(first: 5) { nodes { `+bare+` } }
		full: comments(first: 5) { edges { node { `+commentFields+` } } } } }`, map[string]any{"id": item}).OK(&both)
	if n := api.Statements.Count(); n != 3 {
		t.Errorf("%d statements, want 3 (the item, bare comments, whole comments)", n)
	}
	bn, fe := both.Item.Bare.Nodes, both.Item.Full.Edges
	if len(bn) != 1 || len(fe) != 1 || bn[0]["id"] != c.ID || bn[0]["text"] != "Nice shot" || len(fe[0].Node["reactions"].([]any)) != 2 {
		t.Fatalf("bare %+v, full %+v", bn, fe)
	}
	for k, v := range bn[0] {
		if !reflect.DeepEqual(v, fe[0].Node[k]) {
			t.Errorf("bare %s = %v, whole %v", k, v, fe[0].Node[k])
		}
	}

	for _, tc := range []struct {
		name   string
		who    *loupetest.Client
		input  map[string]any
		code   string
		status int
	}{
		{"blank", a, map[string]any{"id": c.ID, "reaction": "  "}, "BAD_USER_INPUT", 400},
		{"33 characters", a, map[string]any{"id": c.ID, "reaction": strings.Repeat("x", 33)}, "BAD_USER_INPUT", 400},
		{"another tenant", b, map[string]any{"id": c.ID, "reaction": "👍"}, "NOT_FOUND", 404},
		{"missing", a, map[string]any{"id": missingID, "reaction": "👍"}, "NOT_FOUND", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, commentMutation(t, tc.who, "reactToComment", tc.input), tc.code, tc.status)
		})
	}
	// 32 characters are fine; a user's different reactions are limited.
	comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": strings.Repeat("é", 32)})
	for i := 1; i < 20; i++ {
		comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": fmt.Sprint("r", i)})
	}
	wantError(t, commentMutation(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "one more"}), "BAD_USER_INPUT", 400)
	// ...but adding one already there is still fine.
	comment(t, a, "reactToComment", map[string]any{"id": c.ID, "reaction": "r1"})
	if n := api.Count(t, `SELECT count(*) FROM comment_reactions WHERE user_id = $1`, a.UserID); n != 20 {
		t.Fatalf("%d reactions of the admin, want 20", n)
	}
}

// commentsConn is Item.comments as these tests ask for it.
type commentsConn struct {
	Edges []struct {
		Cursor string     `json:"cursor"`
		Node   gqlComment `json:"node"`
	} `json:"edges"`
	Nodes    []gqlComment `json:"nodes"`
	PageInfo struct {
		HasPreviousPage bool    `json:"hasPreviousPage"`
		HasNextPage     bool    `json:"hasNextPage"`
		StartCursor     *string `json:"startCursor"`
		EndCursor       *string `json:"endCursor"`
	} `json:"pageInfo"`
	MScrollID *string `json:"mScrollId"`
}

func commentsOf(t *testing.T, c *loupetest.Client, itemID string, first int, after *string) commentsConn {
	t.Helper()
	var out struct {
		Item struct{ Comments commentsConn }
	}
	c.GraphQL(t, `query($id: ID!, $first: Int, $after: String) { item(id: $id) { comments(first: $first, after: $after) {
		edges { cursor node { id } } nodes { `+commentFields+` } pageInfo { hasPreviousPage hasNextPage startCursor endCursor } mScrollId } } }`,
		map[string]any{"id": itemID, "first": first, "after": after}).OK(&out)
	return out.Item.Comments
}

func TestItemCommentsIsAConnectionWithMScrollId(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := createItem(t, a, map[string]any{"title": "Clip", "itemType": "video"}).ID
	var want []string
	for i := range 7 {
		want = append(want, comment(t, a, "createComment", map[string]any{"itemId": item, "text": fmt.Sprint("c", i)}).ID)
	}
	var got []string
	var after *string
	for page := 0; ; page++ {
		conn := commentsOf(t, a, item, 3, after)
		if len(conn.Edges) != len(conn.Nodes) {
			t.Fatalf("%d edges, %d nodes", len(conn.Edges), len(conn.Nodes))
		}
		for i, e := range conn.Edges {
			if e.Node.ID != conn.Nodes[i].ID {
				t.Fatalf("edge %d is %s, node %s", i, e.Node.ID, conn.Nodes[i].ID)
			}
			got = append(got, e.Node.ID)
		}
		last := conn.Edges[len(conn.Edges)-1].Cursor
		if conn.PageInfo.EndCursor == nil || *conn.PageInfo.EndCursor != last {
			t.Fatalf("endCursor %v, last cursor %s", conn.PageInfo.EndCursor, last)
		}
		if conn.PageInfo.StartCursor == nil || *conn.PageInfo.StartCursor != conn.Edges[0].Cursor {
			t.Fatalf("startCursor %v, first cursor %s", conn.PageInfo.StartCursor, conn.Edges[0].Cursor)
		}
		if conn.PageInfo.HasPreviousPage != (page > 0) {
			t.Fatalf("page %d: hasPreviousPage %v", page, conn.PageInfo.HasPreviousPage)
		}
		more := page < 2
		if conn.PageInfo.HasNextPage != more || (conn.MScrollID != nil) != more ||
			(more && *conn.MScrollID != last) {
			t.Fatalf("page %d: hasNextPage %v, mScrollId %v, want more=%v", page, conn.PageInfo.HasNextPage, conn.MScrollID, more)
		}
		if !more {
			break
		}
		after = conn.MScrollID
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged %v, want %v", got, want)
	}
	// An item without comments has an empty page.
	empty := createItem(t, a, map[string]any{"title": "Quiet", "itemType": "video"}).ID
	if conn := commentsOf(t, a, empty, 3, nil); len(conn.Nodes) != 0 || conn.PageInfo.HasNextPage || conn.PageInfo.HasPreviousPage ||
		conn.PageInfo.StartCursor != nil || conn.PageInfo.EndCursor != nil || conn.MScrollID != nil {
		t.Fatalf("empty item's comments %+v", conn)
	}
	// Bad paging is refused.
	for _, tc := range []struct {
		first int
		after string
	}{{0, ""}, {101, ""}, {3, "!"}, {3, "bm90LWFuLWlk"}} {
		vars := map[string]any{"id": item, "first": tc.first}
		if tc.after != "" {
			vars["after"] = tc.after
		}
		r := a.GraphQL(t, `query($id: ID!, $first: Int, $after: String) { item(id: $id) { comments(first: $first, after: $after) { mScrollId } } }`, vars)
		wantError(t, r, "BAD_USER_INPUT", 400)
	}
}

// orderBy: CREATED_DESC pages newest first (a grid's "latest comments"),
// its cursor continues newest first, and a page of items with both orders
// costs one comments statement per order, whatever the number of items.
func TestItemCommentsNewestFirst(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	items := make([]string, 4)
	want := map[string][]string{} // item -> comment ids, oldest first
	for i := range items {
		items[i] = createItem(t, a, map[string]any{"title": fmt.Sprint("Clip ", i), "itemType": "video"}).ID
		for j := range 2 + i {
			want[items[i]] = append(want[items[i]],
				comment(t, a, "createComment", map[string]any{"itemId": items[i], "text": fmt.Sprint("c", j)}).ID)
		}
	}
	newest := func(id string, n int) []string {
		all := slices.Clone(want[id])
		slices.Reverse(all)
		return all[:min(n, len(all))]
	}

	// One item, paged newest first to the end.
	item := items[3] // 5 comments
	var got []string
	var after *string
	for {
		var out struct {
			Item struct{ Comments commentsConn }
		}
		a.GraphQL(t, `query($id: ID!, $after: String) { item(id: $id) { comments(first: 2, after: $after, orderBy: CREATED_DESC) {
			edges { cursor node { id } } nodes { id } pageInfo { hasNextPage endCursor } mScrollId } } }`,
			map[string]any{"id": item, "after": after}).OK(&out)
		for _, n := range out.Item.Comments.Nodes {
			got = append(got, n.ID)
		}
		if after = out.Item.Comments.MScrollID; after == nil {
			break
		}
	}
	if w := newest(item, 5); !slices.Equal(got, w) {
		t.Fatalf("newest first %v, want %v", got, w)
	}

	// A page of items, each with its 3 latest and its first comment.
	api.Statements.Reset()
	var page struct {
		Items struct {
			Nodes []struct {
				ID     string
				Latest struct{ Nodes []struct{ ID string } }
				First  struct{ Nodes []struct{ ID string } }
			}
		}
	}
	a.GraphQL(t, `{ items(first: 10, orderBy: CREATED_ASC) { nodes { id
		latest: comments(first: 3, orderBy: CREATED_DESC) { nodes { id } }
		first: comments(first: 1) { nodes { id } } } } }`, nil).OK(&page)
	if n := api.Statements.Count(); n != 3 {
		t.Errorf("a page with latest and first comments cost %d statements, want 3 (items, one per order)", n)
	}
	seen := 0
	for _, n := range page.Items.Nodes {
		if want[n.ID] == nil {
			continue // not one of ours (the tenant's own items)
		}
		seen++
		var latest, first []string
		for _, c := range n.Latest.Nodes {
			latest = append(latest, c.ID)
		}
		for _, c := range n.First.Nodes {
			first = append(first, c.ID)
		}
		if w := newest(n.ID, 3); !slices.Equal(latest, w) {
			t.Errorf("item %s latest %v, want %v", n.ID, latest, w)
		}
		if !slices.Equal(first, want[n.ID][:1]) {
			t.Errorf("item %s first %v, want %v", n.ID, first, want[n.ID][:1])
		}
	}
	if seen != len(items) {
		t.Fatalf("the page had %d of the %d items", seen, len(items))
	}
}
