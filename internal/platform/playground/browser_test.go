package playground_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// browserSummary is what testdata/browser.cjs prints.
type browserSummary struct {
	Fragment struct {
		URL             string
		Stored          bool
		DocExplorer     bool
		KeyFormHidden   bool
		SettingsDialog  bool
		Result          graphqlAnswer
		GraphqlRequests int
		WithKey         int
	}
	Stored struct {
		KeyFormHidden   bool
		Result          graphqlAnswer
		GraphqlRequests int
		WithKey         int
	}
	Refused struct {
		AskedFirst        bool
		GraphiqlBeforeKey int
		Message           string
		FormShown         bool
		StoredAfter       *string
		Result            graphqlAnswer
		GraphqlRequests   int
		WithWrongKey      int
	}
	Subscription  string
	OffHost       []string
	CSPViolations []string `json:"cspViolations"`
	PageErrors    []string
}

type graphqlAnswer struct {
	Status int
	Body   struct {
		Data struct {
			Items struct {
				TotalCount int
				Nodes      []struct{ ID, Title string }
			}
		}
		Errors []struct {
			Message    string
			Extensions struct{ Code string }
		}
	}
}

// The playground in a real browser that can reach nothing but the server:
// it loads, takes the key from the fragment, runs the default query with it,
// runs a subscription that shows changes as they happen, remembers the key
// for the next page, and asks again when a key is refused.
func TestPlaygroundInBrowser(t *testing.T) {
	chromium := webtest.Chromium(t)
	api := loupetest.New(t)
	c := api.Tenant(t, "acme")
	title := "Playground clip " + time.Now().Format("150405.000")
	id := c.CreateItem(t, map[string]any{"title": title, "itemType": "video"})

	// LOUPE_PLAYGROUND_SCREENSHOT keeps the screenshot of the first page
	// (to look at it); by default it goes with the test's temp dir.
	shot := os.Getenv("LOUPE_PLAYGROUND_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "playground.png")
	}
	out := webtest.Node(t, 3*time.Minute, "testdata/browser.cjs", nil, api.URL, c.Key, chromium, title, shot, id)
	var s browserSummary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("browser.cjs printed no summary (%v):\n%s", err, out)
	}
	t.Logf("summary: %s", out)

	// Wholly self-contained, under its CSP, without script errors.
	if len(s.OffHost) > 0 {
		t.Errorf("the page asked for something beyond the server: %q", s.OffHost)
	}
	if len(s.CSPViolations) > 0 {
		t.Errorf("the page broke its Content-Security-Policy: %q", s.CSPViolations)
	}
	if len(s.PageErrors) > 0 {
		t.Errorf("script errors: %q", s.PageErrors)
	}

	f := s.Fragment
	if strings.Contains(f.URL, "#") || strings.Contains(f.URL, c.Key) {
		t.Errorf("the key stayed in the address: %s", f.URL)
	}
	if !f.Stored || !f.DocExplorer || !f.KeyFormHidden || !f.SettingsDialog {
		t.Errorf("after #key=: stored %v, doc explorer shown %v, key form hidden %v, settings dialog shown %v",
			f.Stored, f.DocExplorer, f.KeyFormHidden, f.SettingsDialog)
	}
	wantItem(t, "the default query", f.Result, id, title)
	// Introspection and the query, every one with the key.
	if f.GraphqlRequests < 2 || f.WithKey != f.GraphqlRequests {
		t.Errorf("%d of %d requests to /graphql carried the key", f.WithKey, f.GraphqlRequests)
	}

	// The subscription showed each change as it came (browser.cjs waits for
	// the first, then the second), the last one now, with its item.
	sub := s.Subscription
	if !strings.Contains(sub, `"metadataVersion": 3`) || !strings.Contains(sub, `"itemChange"`) || !strings.Contains(sub, title) {
		t.Errorf("the subscription's result pane: %q", sub)
	}

	st := s.Stored
	if !st.KeyFormHidden {
		t.Error("a second page asked for the key again")
	}
	wantItem(t, "with the stored key", st.Result, id, title)
	if st.GraphqlRequests < 2 || st.WithKey != st.GraphqlRequests {
		t.Errorf("second page: %d of %d requests to /graphql carried the key", st.WithKey, st.GraphqlRequests)
	}

	r := s.Refused
	if !r.AskedFirst || r.GraphiqlBeforeKey != 0 {
		t.Errorf("without a key: form shown %v, GraphiQL rendered %d times (want the form alone)", r.AskedFirst, r.GraphiqlBeforeKey)
	}
	if !strings.Contains(r.Message, "refused") || !r.FormShown {
		t.Errorf("a wrong key: message %q, form shown %v", r.Message, r.FormShown)
	}
	if r.StoredAfter != nil {
		t.Errorf("the refused key stayed in localStorage: %q", *r.StoredAfter)
	}
	if r.Result.Status != 401 || len(r.Result.Body.Errors) == 0 || r.Result.Body.Errors[0].Extensions.Code != "UNAUTHENTICATED" {
		t.Errorf("a wrong key's query: %+v", r.Result)
	}
	if r.GraphqlRequests == 0 || r.WithWrongKey != r.GraphqlRequests {
		t.Errorf("%d of %d requests carried the key typed in the form", r.WithWrongKey, r.GraphqlRequests)
	}
}

// wantItem checks that the answer lists the item first (the newest; the
// tenant's archive folder is an item too).
func wantItem(t *testing.T, what string, a graphqlAnswer, id, title string) {
	t.Helper()
	items := a.Body.Data.Items
	if a.Status != 200 || len(a.Body.Errors) > 0 || items.TotalCount < 1 || len(items.Nodes) < 1 ||
		items.Nodes[0].ID != id || items.Nodes[0].Title != title {
		t.Errorf("%s answered %d: %+v, want the item %s %q first", what, a.Status, a.Body, id, title)
	}
}
