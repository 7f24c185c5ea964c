package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

const sharesPath = "/prime/api/v1/shares"

var shareKeys = []string{"id", "targetId", "targetType", "access", "title", "message", "createdBy", "createdOn",
	"expiresOn", "maxUses", "uses", "passwordProtected", "publicLink", "recipients", "options", "state",
	"revokedOn", "revokedBy"}

type shareLink struct {
	Recipient *string `json:"recipient"`
	URL       string  `json:"url"`
	Token     string  `json:"token"`
}

type createdShare struct {
	Share struct {
		ID      string `json:"id"`
		State   string `json:"state"`
		Uses    int    `json:"uses"`
		Options struct {
			DownloadProxy  bool     `json:"downloadProxy"`
			Comments       bool     `json:"comments"`
			MetadataFields []string `json:"metadataFields"`
		} `json:"options"`
	} `json:"share"`
	Links []shareLink `json:"links"`
}

func createShare(t *testing.T, c *loupetest.Client, body map[string]any) createdShare {
	t.Helper()
	var out createdShare
	c.Post(t, sharesPath, body).Status(http.StatusOK).JSON(&out)
	return out
}

// open opens token with password, answering the response.
func openShare(t *testing.T, api *loupetest.API, token, password string) *loupetest.Response {
	t.Helper()
	body := map[string]any{}
	if password != "" {
		body["password"] = password
	}
	return api.Anonymous().Do(t, "POST", "/share/api/links/"+token+"/open", body)
}

func sessionGet(t *testing.T, api *loupetest.API, session, path string) *loupetest.Response {
	t.Helper()
	return api.Anonymous().DoWithHeaders(t, "GET", path, map[string]string{"Authorization": "Share " + session})
}

// Shares are made through REST and GraphQL alike: the record with every
// key, each link's token once (a public link and one per recipient), the
// list never showing a secret again; a bad body is the spec's 400 with
// the reason in developerMessage and stores nothing, a target of another
// tenant the same 400; one share by id stays the spec's 404.
func TestShareCreation(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	b := api.Tenant(t, "b")
	cut := a.CreateItem(t, map[string]any{"title": "Final cut", "itemType": "video"})
	theirs := b.CreateItem(t, map[string]any{"title": "Theirs", "itemType": "video"})

	r := a.Post(t, sharesPath, map[string]any{"targetId": cut, "message": "For review", "password": "correct horse",
		"maxUses": 3, "recipients": []string{"client@example.com", "Dana"}, "publicLink": true,
		"options": map[string]any{"metadataFields": []string{"default_description"}}}).Status(http.StatusOK)
	var made createdShare
	r.JSON(&made)
	rec := r.Object()["share"].(map[string]any)
	sameKeys(t, "share", rec, shareKeys)
	if rec["title"] != "Final cut" || rec["targetType"] != "item" || rec["access"] != "view" || rec["uses"] != 0.0 ||
		rec["passwordProtected"] != true || rec["state"] != "active" || rec["maxUses"] != 3.0 {
		t.Fatalf("record %v", rec)
	}
	if fmt.Sprint(rec["recipients"]) != "[Dana client@example.com]" || rec["publicLink"] != true {
		t.Fatalf("recipients %v, public %v", rec["recipients"], rec["publicLink"])
	}
	if len(made.Links) != 3 {
		t.Fatalf("links %+v", made.Links)
	}
	for _, l := range made.Links {
		if !strings.HasPrefix(l.Token, "s_") || len(l.Token) != 45 || !strings.HasSuffix(l.URL, "/share/"+l.Token) {
			t.Fatalf("link %+v", l)
		}
	}
	if n := api.Count(t, `SELECT count(*) FROM share_tokens WHERE token_hash = sha256($1::bytea)`, made.Links[0].Token); n != 1 {
		t.Fatalf("the token's hash is stored %d times", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM shares WHERE password_hash LIKE '$argon2id$%'`); n != 1 {
		t.Fatal("the password is not kept as an argon2id hash")
	}
	expires := rec["expiresOn"].(string)
	if at, _ := time.Parse(time.RFC3339, expires); at.Sub(time.Now()) < 6*24*time.Hour || at.Sub(time.Now()) > 8*24*time.Hour {
		t.Fatalf("expiresOn %s: want the default of 7 days", expires)
	}

	// The list: the container's keys, no secret; Ed sees only his own.
	edShare := createShare(t, ed, map[string]any{"targetId": cut, "access": "view"})
	list := a.Get(t, sharesPath+"?size=1").Status(http.StatusOK)
	sameKeys(t, "shares", list.Object(), []string{"shares", "nextToken"})
	if strings.Contains(string(list.Body), "s_") || strings.Contains(string(list.Body), "argon2") {
		t.Fatalf("the list shows a secret: %s", list.Body)
	}
	var page struct {
		Shares []struct {
			ID string `json:"id"`
		} `json:"shares"`
		NextToken string `json:"nextToken"`
	}
	list.JSON(&page)
	if len(page.Shares) != 1 || page.Shares[0].ID != edShare.Share.ID || page.NextToken == "" {
		t.Fatalf("first page %+v", page)
	}
	a.Get(t, sharesPath+"?size=1&nextToken="+page.NextToken).Status(http.StatusOK).JSON(&page)
	if len(page.Shares) != 1 || page.Shares[0].ID != made.Share.ID || page.NextToken != "" {
		t.Fatalf("second page %+v", page)
	}
	ed.Get(t, sharesPath).Status(http.StatusOK).JSON(&page)
	if len(page.Shares) != 1 || page.Shares[0].ID != edShare.Share.ID {
		t.Fatalf("Ed's list %+v", page)
	}
	// GraphQL answers the same list.
	var gq struct {
		Shares struct {
			Shares []struct {
				ID     string `json:"id"`
				Target struct {
					Title string `json:"title"`
				} `json:"target"`
			} `json:"shares"`
		} `json:"shares"`
	}
	a.GraphQL(t, `{ shares(first: 10) { shares { id target { title } } } }`, nil).OK(&gq)
	if len(gq.Shares.Shares) != 2 || gq.Shares.Shares[1].Target.Title != "Final cut" {
		t.Fatalf("GraphQL shares %+v", gq)
	}
	a.Get(t, sharesPath+"/"+made.Share.ID).Envelope(http.StatusNotFound, "")

	before := api.Count(t, `SELECT count(*) FROM shares`)
	for _, tc := range []struct {
		name string
		body any
		why  string
	}{
		{"another tenant's item", map[string]any{"targetId": theirs}, "targetId"},
		{"no item", map[string]any{"targetId": "00000000-0000-7000-8000-000000000000"}, "targetId"},
		{"not an id", map[string]any{"targetId": "cut"}, "targetId"},
		{"an unknown key", map[string]any{"targetId": cut, "colour": "red"}, "colour"},
		{"expiry past the cap", map[string]any{"targetId": cut, "expiresOn": time.Now().Add(31 * 24 * time.Hour).Format(time.RFC3339)}, "maxValidityDays"},
		{"expiry past", map[string]any{"targetId": cut, "expiresOn": "2020-01-01T00:00:00Z"}, "future"},
		{"a bad access", map[string]any{"targetId": cut, "access": "edit"}, "access"},
		{"a short password", map[string]any{"targetId": cut, "password": "short"}, "password"},
		{"no link at all", map[string]any{"targetId": cut, "publicLink": false}, "publicLink"},
		{"a bad email", map[string]any{"targetId": cut, "recipients": []string{"a@b@c"}}, "recipients[0]"},
		{"a recipient twice", map[string]any{"targetId": cut, "recipients": []string{"x@y.test", "X@y.test"}}, "recipients[1]"},
		{"zero uses", map[string]any{"targetId": cut, "maxUses": 0}, "maxUses"},
		{"an option a non-admin may not change", map[string]any{"targetId": cut, "options": map[string]any{"downloadOriginal": true}}, "downloadOriginal"},
		{"not JSON", "{", ""},
	} {
		c := a
		if tc.name == "an option a non-admin may not change" {
			c = ed
		}
		env := c.Post(t, sharesPath, tc.body).Envelope(http.StatusBadRequest, "Invalid share creation body")
		if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, tc.why) {
			t.Errorf("%s: developerMessage %q, want it to name %q", tc.name, dm, tc.why)
		}
	}
	// A tenant that asks for passwords refuses a share without one.
	a.Post(t, "/config/api/v1/config", map[string]any{"shareLimits": map[string]any{"requirePassword": true}}).Status(http.StatusOK)
	env := a.Post(t, sharesPath, map[string]any{"targetId": cut}).Envelope(http.StatusBadRequest, "Invalid share creation body")
	if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, "requirePassword") {
		t.Errorf("developerMessage %q", dm)
	}
	a.Post(t, "/config/api/v1/config", map[string]any{"shareLimits": map[string]any{"requirePasword": true}}).
		Envelope(http.StatusBadRequest, "")
	if after := api.Count(t, `SELECT count(*) FROM shares`); after != before {
		t.Fatalf("refused bodies stored shares: %d → %d", before, after)
	}
}

// The outsider's side: a link's GETs and HEADs count no use; a wrong
// password is refused, audited and throttled (never locked); an open
// mints a session that reaches the share's root and what lies under it,
// and nothing else — every id route tried with ids outside the root, of
// another tenant, deleted, answers 404; the creator losing access, or a
// revocation, ends it.
func TestShareOutsider(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	b := api.Tenant(t, "b")
	top := folder(t, a, "Projects")
	shared := folder(t, a, "Client review", top)
	sub := folder(t, a, "Selects", shared)
	inside := a.CreateItem(t, map[string]any{"title": "Cut 3", "itemType": "video", "folderParents": []string{shared},
		"metadata": map[string]any{"formData": map[string]any{"default_description": "third cut"}}})
	deep := a.CreateItem(t, map[string]any{"title": "Select 1", "itemType": "video", "folderParents": []string{sub}})
	sibling := a.CreateItem(t, map[string]any{"title": "Budget", "itemType": "video", "folderParents": []string{top}})
	loose := a.CreateItem(t, map[string]any{"title": "Loose", "itemType": "video"})
	binned := a.CreateItem(t, map[string]any{"title": "Binned", "itemType": "video", "folderParents": []string{shared}})
	a.Delete(t, "/api/v1/items/"+binned).Status(http.StatusOK)
	theirs := b.CreateItem(t, map[string]any{"title": "Theirs", "itemType": "video"})

	made := createShare(t, ed, map[string]any{"targetId": shared, "password": "open sesame",
		"options": map[string]any{"metadataFields": []string{"default_description"}}})
	token := made.Links[0].Token

	// Scanners and previews: GETs and HEADs of the link count no use.
	for i := range 20 {
		m := "GET"
		if i%2 == 1 {
			m = "HEAD"
		}
		r := api.Anonymous().DoWithHeaders(t, m, "/share/api/links/"+token, nil).Status(http.StatusOK)
		if m == "GET" {
			var v map[string]any
			r.JSON(&v)
			if v["passwordRequired"] != true || v["title"] != "Client review" || v["state"] != "active" {
				t.Fatalf("link %v", v)
			}
		}
	}
	if n := api.Count(t, `SELECT uses FROM shares WHERE id = $1`, made.Share.ID); n != 0 {
		t.Fatalf("%d uses after GETs and HEADs", n)
	}
	api.Anonymous().Get(t, "/share/api/links/s_"+strings.Repeat("A", 43)).Envelope(http.StatusNotFound, "")

	// A wrong password: 401, audited; the next attempt waits (429 with
	// Retry-After), even with the right one; after the wait it opens.
	openShare(t, api, token, "").Envelope(http.StatusUnauthorized, "This share needs its password.")
	openShare(t, api, token, "open says me").Envelope(http.StatusUnauthorized, "Wrong password.")
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE action_type = 'sharePasswordFailed' AND executed_by = $1`, made.Share.ID); n != 1 {
		t.Fatalf("%d password failures audited", n)
	}
	r := openShare(t, api, token, "open sesame")
	r.Envelope(http.StatusTooManyRequests, "")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	time.Sleep(1100 * time.Millisecond)
	var opened struct {
		Session string `json:"session"`
	}
	r = openShare(t, api, token, "open sesame").Status(http.StatusOK)
	r.JSON(&opened)
	if !strings.HasPrefix(opened.Session, "ss_") || !strings.Contains(r.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("session %q, cookie %q", opened.Session, r.Header.Get("Set-Cookie"))
	}
	if n := api.Count(t, `SELECT uses FROM shares WHERE id = $1`, made.Share.ID); n != 1 {
		t.Fatalf("%d uses after one open", n)
	}
	s := opened.Session

	var root struct {
		Root struct {
			ID       string `json:"id"`
			ItemType string `json:"itemType"`
		} `json:"root"`
	}
	sessionGet(t, api, s, "/share/api/session").Status(http.StatusOK).JSON(&root)
	if root.Root.ID != shared || root.Root.ItemType != "folder" {
		t.Fatalf("root %+v", root)
	}
	var content struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
		NextToken string `json:"nextToken"`
	}
	sessionGet(t, api, s, "/share/api/folders/"+shared+"/content").Status(http.StatusOK).JSON(&content)
	if len(content.Items) != 2 { // the subfolder and Cut 3; not the binned one
		t.Fatalf("content %+v", content)
	}
	var item struct {
		Title    string         `json:"title"`
		Metadata map[string]any `json:"metadata"`
	}
	sessionGet(t, api, s, "/share/api/items/"+inside).Status(http.StatusOK).JSON(&item)
	if item.Title != "Cut 3" || item.Metadata["default_description"] != "third cut" || len(item.Metadata) != 1 {
		t.Fatalf("item %+v", item)
	}
	sessionGet(t, api, s, "/share/api/items/"+deep).Status(http.StatusOK)
	sessionGet(t, api, s, "/share/api/folders/"+sub+"/content").Status(http.StatusOK)

	// The matrix: every id route with ids outside the root answers 404.
	outside := map[string]string{"the parent folder": top, "a sibling": sibling, "an item in no folder": loose,
		"a deleted item inside": binned, "another tenant's item": theirs, "no item": "00000000-0000-7000-8000-000000000000",
		"not an id": "x"}
	for name, id := range outside {
		t.Run(name, func(t *testing.T) {
			sessionGet(t, api, s, "/share/api/items/"+id).Envelope(http.StatusNotFound, "")
			sessionGet(t, api, s, "/share/api/folders/"+id+"/content").Envelope(http.StatusNotFound, "")
			api.Anonymous().Send(t, "POST", "/share/api/items/"+id+"/downloads", map[string]any{"file": "proxy"},
				map[string]string{"Authorization": "Share " + s}).Envelope(http.StatusNotFound, "")
			sessionGet(t, api, s, "/share/api/items/"+id+"/comments").Envelope(http.StatusNotFound, "")
			api.Anonymous().Send(t, "POST", "/share/api/items/"+id+"/comments", map[string]any{"text": "hi"},
				map[string]string{"Authorization": "Share " + s}).Envelope(http.StatusNotFound, "")
		})
	}
	// A file (not a folder) is no folder to list, even inside.
	sessionGet(t, api, s, "/share/api/folders/"+inside+"/content").Envelope(http.StatusNotFound, "")
	// Without a session, or with another's, nothing.
	api.Anonymous().Get(t, "/share/api/items/"+inside).Envelope(http.StatusUnauthorized, "")
	sessionGet(t, api, "ss_"+strings.Repeat("A", 43), "/share/api/items/"+inside).Envelope(http.StatusUnauthorized, "")
	// The API's keys mean nothing here, the session nothing in the API.
	a.Get(t, "/share/api/items/"+inside).Envelope(http.StatusUnauthorized, "")
	api.WithKey(s).Get(t, "/api/v1/items/"+inside).Status(http.StatusUnauthorized)

	// Ed loses the folder: the share reaches nothing more.
	a.Post(t, "/api/v1/folders/"+shared, map[string]any{"visibleTo": map[string]any{"level": "selected_groups",
		"groups": []string{a.TenantID + ":sales"}}}).Status(http.StatusOK)
	sessionGet(t, api, s, "/share/api/items/"+inside).Envelope(http.StatusNotFound, "")
	sessionGet(t, api, s, "/share/api/session").Envelope(http.StatusGone, "")
	a.Post(t, "/api/v1/folders/"+shared, map[string]any{"visibleTo": map[string]any{"level": "tenant"}}).Status(http.StatusOK)
	sessionGet(t, api, s, "/share/api/items/"+inside).Status(http.StatusOK)

	// Revoked: the session ends at once, the link answers 410.
	var revoked struct {
		RevokeShare struct {
			State string `json:"state"`
		} `json:"revokeShare"`
	}
	ed.GraphQL(t, `mutation($id: ID!) { revokeShare(id: $id) { state } }`, map[string]any{"id": made.Share.ID}).OK(&revoked)
	if revoked.RevokeShare.State != "revoked" {
		t.Fatalf("revoked %+v", revoked)
	}
	sessionGet(t, api, s, "/share/api/items/"+inside).Envelope(http.StatusUnauthorized, "")
	env := openShare(t, api, token, "open sesame").Envelope(http.StatusGone, "This share was revoked by the person who made it.")
	if p, _ := env["payload"].(map[string]any); p["state"] != "revoked" {
		t.Fatalf("payload %v", env["payload"])
	}
}

// maxUses holds under concurrent opens: of 50 at once, exactly maxUses
// succeed, the others hear the share is exhausted.
func TestShareMaxUsesUnderConcurrency(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	item := a.CreateItem(t, map[string]any{"title": "Teaser", "itemType": "video"})
	made := createShare(t, a, map[string]any{"targetId": item, "maxUses": 5})
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = openShare(t, api, made.Links[0].Token, "").Code
		}()
	}
	wg.Wait()
	n := map[int]int{}
	for _, c := range codes {
		n[c]++
	}
	if n[http.StatusOK] != 5 || n[http.StatusGone] != 45 {
		t.Fatalf("answers %v: want 5 × 200 and 45 × 410", n)
	}
	if u := api.Count(t, `SELECT uses FROM shares WHERE id = $1`, made.Share.ID); u != 5 {
		t.Fatalf("%d uses", u)
	}
	openShare(t, api, made.Links[0].Token, "").Envelope(http.StatusGone, "This share was opened as many times as it allows.")

	// Expired: the link says so, the open is refused, an open session ends.
	later := createShare(t, a, map[string]any{"targetId": item, "recipients": []string{"a@example.com", "b@example.com"}})
	var opened struct {
		Session string `json:"session"`
	}
	openShare(t, api, later.Links[0].Token, "").Status(http.StatusOK).JSON(&opened)
	if n := api.Count(t, `WITH u AS (UPDATE shares SET expires_on = now() - interval '1 second' WHERE id = $1 RETURNING 1)
SELECT count(*) FROM u`, later.Share.ID); n != 1 {
		t.Fatal("no share to expire")
	}
	var link map[string]any
	api.Anonymous().Get(t, "/share/api/links/"+later.Links[1].Token).Status(http.StatusOK).JSON(&link)
	if link["state"] != "expired" {
		t.Fatalf("link %v", link)
	}
	openShare(t, api, later.Links[1].Token, "").Envelope(http.StatusGone, "This share has expired.")
	sessionGet(t, api, opened.Session, "/share/api/session").Envelope(http.StatusGone, "This share has expired.")

	// The statistics count what happened: two item view shares, three links.
	var stats struct {
		Counts map[string]struct {
			Sum int `json:"sum"`
		} `json:"counts"`
	}
	a.Get(t, "/api/v1/stats").Status(http.StatusOK).JSON(&stats)
	if stats.Counts["shares_created_item_view"].Sum != 2 || stats.Counts["shares_tokens"].Sum != 3 ||
		stats.Counts["shares_created_folder_view"].Sum != 0 {
		t.Fatalf("stats %+v", stats.Counts)
	}
}

// An outsider comments on a shared item at a time of its media: the
// comment is the item's like any other, its author the share with the
// name given (no account's email is shown to the outsider), audited; the
// share's creator hears of the open and of the comment. A share without
// comments refuses both reading and writing them.
func TestShareComments(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	item := a.CreateItem(t, map[string]any{"title": "Trailer", "itemType": "video"})
	a.GraphQL(t, `mutation($i: ID!) { createComment(input: {itemId: $i, text: "Colour is off at 0:12"}) { id } }`,
		map[string]any{"i": item}).OK(nil)
	made := createShare(t, ed, map[string]any{"targetId": item, "recipients": []string{"client@example.com"}})
	var opened struct {
		Session string `json:"session"`
	}
	openShare(t, api, made.Links[0].Token, "").Status(http.StatusOK).JSON(&opened)
	post := func(session string, body any) *loupetest.Response {
		return api.Anonymous().Send(t, "POST", "/share/api/items/"+item+"/comments", body,
			map[string]string{"Authorization": "Share " + session})
	}
	var c struct {
		ID           string   `json:"id"`
		AuthorName   string   `json:"authorName"`
		FromOutsider bool     `json:"fromOutsider"`
		StartSecond  *float64 `json:"startSecond"`
	}
	post(opened.Session, map[string]any{"text": "Love the ending", "startSecond": 12.5, "name": "Dana"}).Status(http.StatusOK).JSON(&c)
	if c.AuthorName != "Dana" || !c.FromOutsider || c.StartSecond == nil || *c.StartSecond != 12.5 {
		t.Fatalf("comment %+v", c)
	}
	// Without a name, the link's recipient signs.
	post(opened.Session, map[string]any{"text": "And the titles"}).Status(http.StatusOK).JSON(&c)
	if c.AuthorName != "client@example.com" || c.StartSecond != nil {
		t.Fatalf("comment %+v", c)
	}
	post(opened.Session, map[string]any{"text": " "}).Envelope(http.StatusBadRequest, "")
	post(opened.Session, map[string]any{"text": "x", "startSecond": -1}).Envelope(http.StatusBadRequest, "")
	post(opened.Session, map[string]any{"text": "x", "colour": "red"}).Envelope(http.StatusBadRequest, "")

	var list struct {
		Comments []struct {
			Text       string `json:"text"`
			AuthorName string `json:"authorName"`
		} `json:"comments"`
	}
	sessionGet(t, api, opened.Session, "/share/api/items/"+item+"/comments").Status(http.StatusOK).JSON(&list)
	if len(list.Comments) != 3 || list.Comments[0].AuthorName != "Team" || list.Comments[1].AuthorName != "Dana" {
		t.Fatalf("comments %+v", list)
	}
	if strings.Contains(fmt.Sprint(list), "@a.test") {
		t.Fatal("an account's email reached the outsider")
	}
	// In the API the comment is the item's, its author the share.
	var gq struct {
		Item struct {
			Comments struct {
				Nodes []struct {
					Author struct {
						Type string  `json:"type"`
						ID   string  `json:"id"`
						Name *string `json:"name"`
					} `json:"author"`
				} `json:"nodes"`
			} `json:"comments"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($i: ID!) { item(id: $i) { comments(first: 10) { nodes { author { type id name } } } } }`,
		map[string]any{"i": item}).OK(&gq)
	nodes := gq.Item.Comments.Nodes
	if len(nodes) != 3 || nodes[1].Author.Type != "share" || nodes[1].Author.ID != made.Share.ID || *nodes[1].Author.Name != "Dana" {
		t.Fatalf("GraphQL comments %+v", nodes)
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE action_type = 'shareComment' AND executed_by = $1`, made.Share.ID); n != 2 {
		t.Fatalf("%d shareComment records", n)
	}
	// Ed, who made the share, hears of the open and of both comments.
	got := waitInbox(t, ed, 3)
	types := map[string]int{}
	for _, n := range got {
		types[n.Type]++
	}
	if types["shareOpening"] != 1 || types["shareComment"] != 2 {
		t.Fatalf("Ed's notifications %v", types)
	}

	// A share without comments: neither read nor written.
	quiet := createShare(t, a, map[string]any{"targetId": item, "options": map[string]any{"comments": false}})
	openShare(t, api, quiet.Links[0].Token, "").Status(http.StatusOK).JSON(&opened)
	sessionGet(t, api, opened.Session, "/share/api/items/"+item+"/comments").Envelope(http.StatusForbidden, "")
	post(opened.Session, map[string]any{"text": "hello"}).Envelope(http.StatusForbidden, "")
}

// An upload share takes an outsider's file into the shared folder by tus,
// resumably (half, the offset asked again, the rest), as its creator's
// item, which then processes like any other: a 2 s clip of 25 fps becomes
// a 50-frame item. The session reaches no other upload; a view share takes
// none.
func TestShareUpload(t *testing.T) {
	mediatest.Need(t)
	data := lavfiClip(t, "clip.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p")
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	drop := folder(t, a, "Client drop")
	made := createShare(t, ed, map[string]any{"targetId": drop, "access": "upload"})
	var opened struct {
		Session string `json:"session"`
	}
	openShare(t, api, made.Links[0].Token, "").Status(http.StatusOK).JSON(&opened)
	h := map[string]string{"Authorization": "Share " + opened.Session}

	var up struct {
		UploadID  string `json:"uploadId"`
		UploadURL string `json:"uploadUrl"`
		ItemID    string `json:"itemId"`
	}
	api.Anonymous().Send(t, "POST", "/share/api/uploads", map[string]any{"fileName": "clip.mp4", "size": len(data),
		"fileType": "video/mp4"}, h).Status(http.StatusOK).JSON(&up)
	if up.UploadURL != "/share/api/uploads/"+up.UploadID || up.ItemID == "" {
		t.Fatalf("upload %+v", up)
	}
	patch := func(offset int, part []byte) *http.Response {
		req, _ := http.NewRequest(http.MethodPatch, api.URL+up.UploadURL, bytes.NewReader(part))
		req.Header.Set("Authorization", "Share "+opened.Session)
		req.Header.Set("Tus-Resumable", "1.0.0")
		req.Header.Set("Upload-Offset", fmt.Sprint(offset))
		req.Header.Set("Content-Type", "application/offset+octet-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	half := len(data) / 2
	if r := patch(0, data[:half]); r.StatusCode != http.StatusNoContent {
		t.Fatalf("first half: %d", r.StatusCode)
	}
	head := api.Anonymous().DoWithHeaders(t, http.MethodHead, up.UploadURL,
		map[string]string{"Authorization": "Share " + opened.Session, "Tus-Resumable": "1.0.0"}).Status(http.StatusOK)
	if head.Header.Get("Upload-Offset") != fmt.Sprint(half) {
		t.Fatalf("offset %q, want %d", head.Header.Get("Upload-Offset"), half)
	}
	if r := patch(half, data[half:]); r.StatusCode != http.StatusNoContent {
		t.Fatalf("second half: %d", r.StatusCode)
	}
	it := waitState(t, api, a, up.ItemID, nil, "complete", "failed")
	if it["transcodingState"] != "complete" || it["frameCount"] != 50.0 {
		t.Fatalf("processed: state %v, frames %v, %v", it["transcodingState"], it["frameCount"], it["progressInfo"])
	}
	if it["title"] != "clip.mp4" || fmt.Sprint(it["folderParents"]) != "["+drop+"]" {
		t.Fatalf("item %v in %v", it["title"], it["folderParents"])
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE id = $1 AND created_by = $2`, up.ItemID, ed.UserID); n != 1 {
		t.Fatal("the item is not the share creator's")
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE action_type = 'shareUpload' AND executed_by = $1`, made.Share.ID); n != 1 {
		t.Fatalf("%d shareUpload records", n)
	}

	// The upload share's session sees where files go, nothing of what is
	// there: the processed clip's links stay out of its view of the root.
	var root struct {
		Root map[string]any `json:"root"`
	}
	sessionGet(t, api, opened.Session, "/share/api/session").Status(http.StatusOK).JSON(&root)
	if root.Root["proxy"] != nil || root.Root["thumbnail"] != nil || root.Root["canUpload"] != true {
		t.Fatalf("the upload share's root %v", root.Root)
	}
	sessionGet(t, api, opened.Session, "/share/api/folders/"+drop+"/content").Envelope(http.StatusForbidden, "")
	sessionGet(t, api, opened.Session, "/share/api/items/"+up.ItemID).Envelope(http.StatusForbidden, "")

	// The admin shares the uploaded clip with its original: the link's
	// bytes are the uploaded file's; the proxy's are an MP4 of its own.
	withOriginal := createShare(t, a, map[string]any{"targetId": up.ItemID, "options": map[string]any{"downloadOriginal": true}})
	var viewer struct {
		Session string `json:"session"`
	}
	openShare(t, api, withOriginal.Links[0].Token, "").Status(http.StatusOK).JSON(&viewer)
	var view struct {
		CanDownload []string `json:"canDownload"`
	}
	sessionGet(t, api, viewer.Session, "/share/api/items/"+up.ItemID).Status(http.StatusOK).JSON(&view)
	if fmt.Sprint(view.CanDownload) != "[proxy original]" {
		t.Fatalf("canDownload %v", view.CanDownload)
	}
	fetch := func(file string) []byte {
		var link struct {
			URL      string `json:"url"`
			FileName string `json:"fileName"`
		}
		api.Anonymous().Send(t, "POST", "/share/api/items/"+up.ItemID+"/downloads", map[string]any{"file": file},
			map[string]string{"Authorization": "Share " + viewer.Session}).Status(http.StatusOK).JSON(&link)
		resp, err := http.Get(link.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", file, resp.StatusCode)
		}
		return b
	}
	if got := fetch("original"); !bytes.Equal(got, data) {
		t.Fatalf("the original's link gave %d bytes, not the %d uploaded", len(got), len(data))
	}
	if got := fetch("proxy"); len(got) < 12 || string(got[4:8]) != "ftyp" || bytes.Equal(got, data) {
		t.Fatalf("the proxy's link gave %d bytes", len(got))
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE action_type = 'shareDownload' AND executed_by = $1`, withOriginal.Share.ID); n != 2 {
		t.Fatalf("%d shareDownload records", n)
	}
	// The upload share's session may download nothing it was not given.
	api.Anonymous().Send(t, "POST", "/share/api/items/"+up.ItemID+"/downloads", map[string]any{"file": "original"},
		h).Envelope(http.StatusForbidden, "")

	// An upload share of the clip itself, with versions: its session sees
	// none of the clip's media.
	versions := createShare(t, a, map[string]any{"targetId": up.ItemID, "access": "upload",
		"options": map[string]any{"versions": true}})
	openShare(t, api, versions.Links[0].Token, "").Status(http.StatusOK).JSON(&viewer)
	sessionGet(t, api, viewer.Session, "/share/api/session").Status(http.StatusOK).JSON(&root)
	if root.Root["proxy"] != nil || root.Root["thumbnail"] != nil || root.Root["strip"] != nil || root.Root["canUpload"] != true {
		t.Fatalf("the upload share's root %v", root.Root)
	}
	// The clip has its original: nothing replaces it (409). A placeholder
	// item — made to be delivered into — takes the outsider's file.
	api.Anonymous().Send(t, "POST", "/share/api/uploads", map[string]any{"fileName": "v2.mp4", "size": len(data)},
		map[string]string{"Authorization": "Share " + viewer.Session}).Envelope(http.StatusConflict, "")
	placeholder := a.CreateItem(t, map[string]any{"title": "Final delivery", "itemType": "video"})
	deliver := createShare(t, a, map[string]any{"targetId": placeholder, "access": "upload",
		"options": map[string]any{"versions": true}})
	openShare(t, api, deliver.Links[0].Token, "").Status(http.StatusOK).JSON(&viewer)
	var again struct {
		ItemID string `json:"itemId"`
	}
	api.Anonymous().Send(t, "POST", "/share/api/uploads", map[string]any{"fileName": "final.mp4", "size": len(data)},
		map[string]string{"Authorization": "Share " + viewer.Session}).Status(http.StatusOK).JSON(&again)
	if again.ItemID != placeholder {
		t.Fatalf("the delivery's upload is of %s, not the shared placeholder %s", again.ItemID, placeholder)
	}

	// Another upload (Ed's own) is not the session's to touch.
	other := a.CreateItem(t, map[string]any{"title": "Mine", "itemType": "video", "folderParents": []string{drop}})
	tus := &tusclient.Client{Endpoint: api.URL + "/api/v1/uploads/", APIKey: a.Key}
	mine, err := tus.Create(context.Background(), 10, map[string]string{"filename": "x.bin", "itemId": other})
	if err != nil {
		t.Fatal(err)
	}
	mineID := mine[strings.LastIndex(mine, "/")+1:]
	api.Anonymous().DoWithHeaders(t, http.MethodHead, "/share/api/uploads/"+mineID,
		map[string]string{"Authorization": "Share " + opened.Session, "Tus-Resumable": "1.0.0"}).Status(http.StatusNotFound)
	// A folder outside the share, and a view share: no upload.
	api.Anonymous().Send(t, "POST", "/share/api/uploads", map[string]any{"fileName": "x.mp4", "size": 1,
		"folderId": folder(t, a, "Elsewhere")}, h).Envelope(http.StatusNotFound, "")
	viewOnly := createShare(t, ed, map[string]any{"targetId": drop})
	openShare(t, api, viewOnly.Links[0].Token, "").Status(http.StatusOK).JSON(&opened)
	api.Anonymous().Send(t, "POST", "/share/api/uploads", map[string]any{"fileName": "x.mp4", "size": 1},
		map[string]string{"Authorization": "Share " + opened.Session}).Envelope(http.StatusForbidden, "")
}
