package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
	"github.com/loupe-mam/loupe/server"
)

const webhooksPath = "/config/api/v1/config/webhooks"

// receiver is a webhook receiver that answers from a script of statuses
// (the last one repeats) and records what it got.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	script []int
	got    []received
}

type received struct {
	ID, Timestamp, Signature, ContentType, Custom string
	Body                                          string
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{script: script}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, received{ID: req.Header.Get("webhook-id"), Timestamp: req.Header.Get("webhook-timestamp"),
			Signature: req.Header.Get("webhook-signature"), ContentType: req.Header.Get("Content-Type"),
			Custom: req.Header.Get("X-Custom"), Body: string(b)})
		status := r.script[min(n, len(r.script)-1)]
		r.mu.Unlock()
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(status)
		io.WriteString(w, "answer "+http.StatusText(status)) //nolint:errcheck // a test receiver
	}))
	t.Cleanup(r.Close)
	return r
}

// wait waits until the receiver has n requests and answers them.
func (r *receiver) wait(t *testing.T, n int) []received {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r.mu.Lock()
		got := append([]received(nil), r.got...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d requests, want %d", len(got), n)
		}
	}
}

// verify checks each request's signature with the npm standardwebhooks
// reference verifier and the secret given for it.
func verify(t *testing.T, secrets []string, got []received) {
	t.Helper()
	var in []map[string]string
	for i, g := range got {
		in = append(in, map[string]string{"secret": secrets[i], "id": g.ID, "timestamp": g.Timestamp,
			"signature": g.Signature, "body": g.Body})
	}
	b, _ := json.Marshal(in)
	var out []string
	if err := json.Unmarshal(webtest.Node(t, time.Minute, "testdata/verify_webhooks.cjs", nil, string(b)), &out); err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o != "ok" {
			t.Fatalf("request %d (%s): the reference verifier says %q", i, got[i].Signature, o)
		}
	}
}

type hookAnswer struct {
	Webhook map[string]any `json:"webhook"`
	Secret  string         `json:"secret"`
}

// Webhooks end to end: a receiver that fails (500, then 503 with
// Retry-After) and recovers gets the message three times with one
// webhook-id, each signature verified by the npm reference verifier, its
// own header beside the signature's; the log shows each attempt; a replay
// sends it again with the same id; a rotated secret signs with both for a
// day; a condition on the item type holds; a 410 disables the hook and
// its creator hears of it; the secret is answered only on create and
// rotation, header values never.
func TestWebhooks(t *testing.T) {
	webtest.Chromium(t) // the Node tools are installed with it
	api := loupetest.New(t, func(c *server.Config) {
		c.WebhookSchedule = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	})
	a := api.Tenant(t, "a")
	flaky := newReceiver(t, 500, 503, 200)
	gone := newReceiver(t, 410)

	var created hookAnswer
	a.Post(t, webhooksPath, map[string]any{"type": "itemCreation", "url": flaky.URL + "/hook", "label": "Flaky",
		"headers": []any{map[string]any{"headerField": "X-Custom", "headerValue": "s3cret-token"}}}).
		Status(http.StatusOK).JSON(&created)
	hook := created.Webhook["id"].(string)
	if !strings.HasPrefix(created.Secret, "whsec_") || created.Webhook["enabled"] != true {
		t.Fatalf("created: %+v", created)
	}
	var imagesOnly hookAnswer
	a.Post(t, webhooksPath, map[string]any{"type": "itemChange", "url": gone.URL,
		"condition": map[string]any{"criteria": "itemTypeEquals", "itemType": "image"}}).Status(http.StatusOK).JSON(&imagesOnly)
	list := a.Get(t, webhooksPath).Status(http.StatusOK)
	if strings.Contains(string(list.Body), created.Secret) || strings.Contains(string(list.Body), "s3cret-token") {
		t.Fatalf("the list shows a secret or a header value: %s", list.Body)
	}

	video := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	got := flaky.wait(t, 3)
	for i, g := range got {
		if g.ID != got[0].ID || g.ContentType != "application/json" || g.Custom != "s3cret-token" {
			t.Fatalf("request %d: %+v", i, g)
		}
	}
	var body struct {
		Type string
		Data map[string]any
	}
	json.Unmarshal([]byte(got[0].Body), &body) //nolint:errcheck // checked below
	if body.Type != "itemCreation" || body.Data["itemId"] != video || body.Data["itemType"] != "video" {
		t.Fatalf("payload: %s", got[0].Body)
	}
	verify(t, []string{created.Secret, created.Secret, created.Secret}, got)

	// The log, newest first: 200, 503, 500.
	var log struct {
		Deliveries []struct {
			ID, MessageID, Answer string
			Attempt, Status       int
			Succeeded             bool
		}
		NextToken string
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		a.Get(t, webhooksPath+"/"+hook+"/deliveries").Status(http.StatusOK).JSON(&log)
		if len(log.Deliveries) == 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(log.Deliveries) != 3 || log.Deliveries[0].Status != 200 || !log.Deliveries[0].Succeeded ||
		log.Deliveries[0].Attempt != 3 || log.Deliveries[1].Status != 503 || log.Deliveries[2].Status != 500 ||
		log.Deliveries[2].Answer != "answer Internal Server Error" || log.Deliveries[0].MessageID != got[0].ID {
		t.Fatalf("log: %+v", log)
	}

	// A replay: the same message, the same id.
	a.Post(t, webhooksPath+"/"+hook+"/deliveries/"+log.Deliveries[0].ID+"/replay", nil).Status(http.StatusOK)
	if r := flaky.wait(t, 4)[3]; r.ID != got[0].ID || r.Body != got[0].Body {
		t.Fatalf("replay: %+v", r)
	}

	// Rotation: the next message is signed with both secrets.
	var rotated hookAnswer
	a.Post(t, webhooksPath+"/"+hook+"/rotateSecret", nil).Status(http.StatusOK).JSON(&rotated)
	if rotated.Secret == created.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") {
		t.Fatalf("rotated: %+v", rotated)
	}
	a.CreateItem(t, map[string]any{"title": "Clip 2", "itemType": "video"})
	next := flaky.wait(t, 5)[4]
	if n := len(strings.Fields(next.Signature)); n != 2 {
		t.Fatalf("after rotation, %d signatures: %q", n, next.Signature)
	}
	verify(t, []string{rotated.Secret, created.Secret}, []received{next, next})

	// The condition: a video's change is not the image hook's; an image's
	// change is, and its 410 disables the hook.
	a.Patch(t, "/api/v1/itemMetadata/"+video, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"n": "1"}}}).Status(200)
	image := a.CreateItem(t, map[string]any{"title": "Still", "itemType": "image"})
	a.Patch(t, "/api/v1/itemMetadata/"+image, map[string]any{"metadataDelta": map[string]any{"formData": map[string]any{"n": "1"}}}).Status(200)
	g := gone.wait(t, 1)
	if !strings.Contains(g[0].Body, image) {
		t.Fatalf("the image hook got %s", g[0].Body)
	}
	var h map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		a.Get(t, webhooksPath+"/"+imagesOnly.Webhook["id"].(string)).Status(http.StatusOK).JSON(&h)
		if h["enabled"] == false || time.Now().After(deadline) {
			break
		}
	}
	if h["enabled"] != false || !strings.Contains(h["disabledReason"].(string), "410") {
		t.Fatalf("after 410: %v", h)
	}
	if n := waitInbox(t, a, 1)[0]; n.Type != "webhookDisabling" {
		t.Fatalf("the creator's notification: %+v", n)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(gone.wait(t, 1)); n != 1 {
		t.Fatalf("the gone receiver got %d requests", n)
	}

	// A receiver that always fails: every attempt of the schedule (the
	// first and one per wait), then the hook is disabled.
	down := newReceiver(t, 500)
	var failing hookAnswer
	a.Post(t, webhooksPath, map[string]any{"type": "itemDeletion", "url": down.URL}).Status(http.StatusOK).JSON(&failing)
	a.Delete(t, "/api/v1/items/"+image).Status(http.StatusOK)
	down.wait(t, 4)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		a.Get(t, webhooksPath+"/"+failing.Webhook["id"].(string)).Status(http.StatusOK).JSON(&h)
		if h["enabled"] == false || time.Now().After(deadline) {
			break
		}
	}
	if h["enabled"] != false || !strings.Contains(h["disabledReason"].(string), "all 4 attempts") {
		t.Fatalf("after every attempt failed: %v", h)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(down.wait(t, 4)); n != 4 {
		t.Fatalf("the failing receiver got %d requests, want 4", n)
	}
}

// A hook must point at a public address unless the operator allows
// otherwise; bad URLs and headers are refused; nothing is stored; only
// admins manage hooks; another tenant's hook answers like a missing one.
func TestWebhooksRefused(t *testing.T) {
	base := loupetest.New(t)
	api := base.Another(t, func(c *server.Config) { c.AllowPrivateWebhooks = false })
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", nil, false)
	for _, body := range []any{
		map[string]any{"type": "itemCreation", "url": "http://127.0.0.1:9/hook"},
		map[string]any{"type": "itemCreation", "url": "http://169.254.169.254/latest/meta-data"},
		map[string]any{"type": "itemCreation", "url": "http://localhost/hook"},
		map[string]any{"type": "itemCreation", "url": "http://[::1]/hook"},
		map[string]any{"type": "itemCreation", "url": "http://10.0.0.8/hook"},
		map[string]any{"type": "itemCreation", "url": "ftp://example.com/hook"},
		map[string]any{"type": "itemCreation", "url": "https://user:pw@example.com/hook"},
		map[string]any{"type": "itemCreation", "url": "https://example.com/" + strings.Repeat("a", 3000)},
		map[string]any{"type": "itemCreation"},
		map[string]any{"type": "itemDestruction", "url": "https://example.com/hook"},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook",
			"headers": []any{map[string]any{"headerField": "webhook-id", "headerValue": "x"}}},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook",
			"headers": []any{map[string]any{"headerField": "Content-Type", "headerValue": "text/plain"}}},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook",
			"headers": []any{map[string]any{"headerField": "X-A", "headerValue": "a\r\nX-Injected: 1"}}},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook",
			"headers": []any{map[string]any{"headerField": "X A", "headerValue": "a"}}},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook",
			"headers": []any{map[string]any{"headerField": "X-A", "headerValue": strings.Repeat("v", 5000)}}},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook",
			"condition": map[string]any{"criteria": "sometimes"}},
		map[string]any{"type": "itemCreation", "url": "https://example.com/hook", "secret": "mine"},
	} {
		if r := a.Post(t, webhooksPath, body); r.Code != http.StatusBadRequest {
			t.Fatalf("%v: %d %s", body, r.Code, r.Body)
		}
	}
	if r := a.Get(t, webhooksPath).Status(http.StatusOK); string(r.Body) != "[]" {
		t.Fatalf("stored after refusals: %s", r.Body)
	}
	if api.Count(t, `SELECT count(*) FROM webhooks`) != 0 {
		t.Fatal("a refused hook was stored")
	}
	ed.Get(t, webhooksPath).Status(http.StatusForbidden)
	ed.Post(t, webhooksPath, map[string]any{"type": "itemCreation", "url": "https://example.com/hook"}).Status(http.StatusForbidden)

	// Another tenant's hook (allowed on the permissive server) is missing here.
	other := base.Tenant(t, "b")
	var h hookAnswer
	other.Post(t, webhooksPath, map[string]any{"type": "itemCreation", "url": "http://127.0.0.1:9/"}).Status(200).JSON(&h)
	id := h.Webhook["id"].(string)
	missing := "01a20242-9dca-771b-bd4e-ca31c13a5a01"
	for _, p := range []string{"", "/deliveries"} {
		x, y := a.Get(t, webhooksPath+"/"+id+p), a.Get(t, webhooksPath+"/"+missing+p)
		if x.Code != y.Code || strings.ReplaceAll(string(x.Body), id, missing) != string(y.Body) {
			t.Fatalf("GET %s: another tenant's %d %s, a missing one's %d %s", p, x.Code, x.Body, y.Code, y.Body)
		}
	}
	a.Delete(t, webhooksPath+"/"+id).Status(http.StatusNotFound)
	a.Post(t, webhooksPath+"/"+id+"/rotateSecret", nil).Status(http.StatusNotFound)
}

// A hook created disabled is stored disabled (and delivers nothing until
// enabled).
func TestWebhookCreatedDisabled(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	var created hookAnswer
	a.Post(t, webhooksPath, map[string]any{"type": "itemCreation", "url": "https://hooks.example.test/x", "enabled": false}).
		Status(http.StatusOK).JSON(&created)
	if created.Webhook["enabled"] != false {
		t.Fatalf("created: %+v", created.Webhook)
	}
	got := a.Get(t, webhooksPath+"/"+created.Webhook["id"].(string)).Status(http.StatusOK).Object()
	if got["enabled"] != false {
		t.Fatalf("read back: %+v", got)
	}
}
