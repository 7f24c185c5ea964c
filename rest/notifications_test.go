package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const notificationsPath = "/prime/api/v1/notifications"

type notice struct {
	ID        string         `json:"id"`
	Type      string         `json:"type"`
	Title     string         `json:"title"`
	Message   string         `json:"message"`
	ItemID    *string        `json:"itemId"`
	SenderID  *string        `json:"senderId"`
	Dismissed bool           `json:"dismissed"`
	Data      map[string]any `json:"data"`
}

// inbox reads c's whole list through REST, page by page (size 1), and
// checks the container: both keys always there.
func inbox(t *testing.T, c *loupetest.Client) []notice {
	t.Helper()
	var all []notice
	token := ""
	for range 50 {
		r := c.Get(t, notificationsPath+"?size=1&nextToken="+token).Status(http.StatusOK)
		sameKeys(t, "notifications", r.Object(), []string{"notifications", "nextToken"})
		var page struct {
			Notifications []notice `json:"notifications"`
			NextToken     string   `json:"nextToken"`
		}
		r.JSON(&page)
		all = append(all, page.Notifications...)
		if page.NextToken == "" {
			return all
		}
		token = page.NextToken
	}
	t.Fatal("paging does not end")
	return nil
}

// waitInbox waits until c has n notifications (they are made from events
// by the notifications reader, a moment after the change).
func waitInbox(t *testing.T, c *loupetest.Client, n int) []notice {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := inbox(t, c)
		if len(got) >= n || time.Now().After(deadline) {
			if len(got) != n {
				t.Fatalf("%d notifications, want %d: %+v", len(got), n, got)
			}
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Notifications made by real events reach the people they concern — a
// comment assigned to me, mentioning me, answering mine — never the one who
// acted; users send their own to users and to their groups (any group for
// an admin); bad requests send nothing; read state is the user setting
// dismissedNotifications, and one notification by id stays the spec's 404.
func TestNotifications(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	kim := a.User(t, "kim@a.test", []string{"editors"}, false)
	sam := a.User(t, "sam@a.test", []string{"sales"}, false)
	outsider := api.Tenant(t, "b")
	item := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video"})

	// Ed asks Kim by mention and gives the comment to Sam.
	top := comment(t, ed, item, map[string]any{"text": "Can you check the sound, @kim@a.test? Also @nobody@a.test.",
		"assignee": map[string]any{"type": "user", "id": sam.UserID}})
	// Sam answers Ed.
	comment(t, sam, item, map[string]any{"text": "Will do.", "parentId": top})

	k := waitInbox(t, kim, 1)[0]
	if k.Type != "commentMention" || *k.ItemID != item || *k.SenderID != ed.UserID ||
		!strings.Contains(k.Message, `"Interview"`) || !strings.Contains(k.Message, "check the sound") || k.Dismissed {
		t.Fatalf("kim's: %+v", k)
	}
	if s := waitInbox(t, sam, 1)[0]; s.Type != "commentAssignment" || *s.SenderID != ed.UserID {
		t.Fatalf("sam's: %+v", s)
	}
	if e := waitInbox(t, ed, 1)[0]; e.Type != "commentReply" || *e.SenderID != sam.UserID || !strings.Contains(e.Message, "Will do.") {
		t.Fatalf("ed's: %+v", e)
	}

	// Sent ones: to a user and to one's own group (ed and kim).
	var sent struct {
		Sent int `json:"sent"`
	}
	ed.Post(t, notificationsPath, map[string]any{"message": "Rough cut is up.", "groups": []string{"editors"},
		"userIds": []string{sam.UserID}, "itemId": item}).Status(http.StatusOK).JSON(&sent)
	if sent.Sent != 3 {
		t.Fatalf("sent to %d users, want 3 (ed, kim, sam)", sent.Sent)
	}
	list := waitInbox(t, kim, 2)
	if n := list[0]; n.Type != "custom" || n.Message != "Rough cut is up." || n.Title != "Message from ed@a.test" ||
		*n.SenderID != ed.UserID {
		t.Fatalf("newest first, the sent one: %+v", list)
	}
	// An admin sends to any group.
	a.Post(t, notificationsPath, map[string]any{"title": "Maintenance", "message": "Tonight at 10.",
		"groups": []string{"sales"}}).Status(http.StatusOK).JSON(&sent)
	if sent.Sent != 1 {
		t.Fatalf("admin to sales: %d", sent.Sent)
	}

	// Refused, nothing sent.
	before := len(inbox(t, sam))
	for _, bad := range []struct {
		c      *loupetest.Client
		body   any
		status int
	}{
		{ed, map[string]any{"message": "hi", "groups": []string{"sales"}}, http.StatusForbidden}, // not ed's group
		{ed, map[string]any{"message": "hi"}, http.StatusBadRequest},                             // nobody
		{ed, map[string]any{"message": "hi", "userIds": []string{}, "groups": []string{}}, http.StatusBadRequest},
		{ed, map[string]any{"message": strings.Repeat("x", 2001), "userIds": []string{sam.UserID}}, http.StatusBadRequest},
		{ed, map[string]any{"message": "  ", "userIds": []string{sam.UserID}}, http.StatusBadRequest},
		{ed, map[string]any{"message": "hi", "userIds": []string{sam.UserID, outsider.UserID}}, http.StatusBadRequest},
		{ed, map[string]any{"message": "hi", "userIds": []string{sam.UserID, "not-an-id"}}, http.StatusBadRequest},
		{a, map[string]any{"message": "hi", "groups": []string{"no such group"}}, http.StatusBadRequest},
		{ed, map[string]any{"message": "hi", "userIds": []string{sam.UserID}, "colour": "red"}, http.StatusBadRequest},
		{ed, `{"message": "hi", "userIds": [`, http.StatusBadRequest},
		{ed, nil, http.StatusBadRequest},
	} {
		if r := bad.c.Post(t, notificationsPath, bad.body); r.Code != bad.status {
			t.Fatalf("%v: %d %s, want %d", bad.body, r.Code, r.Body, bad.status)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if after := len(inbox(t, sam)); after != before {
		t.Fatalf("refused sends reached sam: %d notifications, had %d", after, before)
	}
	// Another tenant sees none of it.
	if got := inbox(t, outsider); len(got) != 0 {
		t.Fatalf("the other tenant's admin has %+v", got)
	}

	// Dismissed (GraphQL), as the user setting says; the list shows it.
	var d struct {
		DismissNotifications []struct {
			ID        string
			Dismissed bool
		}
	}
	kim.GraphQL(t, `mutation($ids: [ID!]!) { dismissNotifications(ids: $ids) { id dismissed } }`,
		map[string]any{"ids": []string{k.ID, top}}).OK(&d)
	if len(d.DismissNotifications) != 1 || d.DismissNotifications[0].ID != k.ID || !d.DismissNotifications[0].Dismissed {
		t.Fatalf("dismissed: %+v (only kim's own count)", d)
	}
	var settings struct {
		DismissedNotifications map[string]bool `json:"dismissedNotifications"`
	}
	kim.Get(t, "/auxiliary/api/v1/userSettings").Status(http.StatusOK).JSON(&settings)
	if !settings.DismissedNotifications[k.ID] {
		t.Fatalf("user settings: %+v", settings)
	}
	for _, n := range inbox(t, kim) {
		if n.Dismissed != (n.ID == k.ID) {
			t.Fatalf("list: %+v", n)
		}
	}
	// Sam cannot dismiss Kim's.
	sam.GraphQL(t, `mutation($ids: [ID!]!) { dismissNotifications(ids: $ids) { id } }`,
		map[string]any{"ids": []string{list[0].ID}}).OK(&d)
	if len(d.DismissNotifications) != 0 {
		t.Fatalf("sam dismissed kim's: %+v", d)
	}

	// The spec's 404s stay: no path for one notification or its mark.
	kim.Get(t, notificationsPath+"/"+k.ID).Status(http.StatusNotFound)
	kim.Post(t, notificationsPath+"/"+k.ID+"/mark", map[string]any{}).Status(http.StatusNotFound)
	kim.Get(t, notificationsPath+"?nextToken=garbage").Status(http.StatusBadRequest)
	kim.Get(t, notificationsPath+"?size=0").Status(http.StatusBadRequest)
}
