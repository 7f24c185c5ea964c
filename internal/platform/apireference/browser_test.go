package apireference_test

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

// expect is what testdata/browser.cjs looks for, taken from the server's
// /openapi.json so that the page is held to the document it renders.
type expect struct {
	Title string `json:"title"`
	Tags  []struct {
		Name      string   `json:"name"`
		Summaries []string `json:"summaries"`
	} `json:"tags"`
	Operation struct {
		ID                  string `json:"id"`
		Method              string `json:"method"`
		Path                string `json:"path"`
		Summary             string `json:"summary"`
		PathParameter       string `json:"pathParameter"`
		Parameter           string `json:"parameter"`
		ParameterDesc       string `json:"parameterDescription"`
		Property            string `json:"property"`
		PropertyDescription string `json:"propertyDescription"`
	} `json:"operation"`
	Key       string `json:"key"`
	ItemID    string `json:"itemId"`
	ItemTitle string `json:"itemTitle"`
}

// browserSummary is what testdata/browser.cjs prints.
type browserSummary struct {
	Loaded struct {
		Title, Heading, Sidebar, Body, Download string
		TagHeadings                             []string
	}
	Operation struct {
		SearchResults []string
		URL           string
		Heading       string
		Text          string
		WithResponse  string
	}
	TestRequest struct {
		URL           string
		Status        int
		Authorization string
		Shown         string
		Stored        string
	}
	Requests []struct {
		Method, Origin, Path, Authorization string
	}
	OffHost       []string
	CSPViolations []string `json:"cspViolations"`
	PageErrors    []string
}

// The API reference in a real browser that can reach nothing but the
// server: it loads under its CSP, renders the server's own /openapi.json
// (the sidebar's tags and summaries, an operation found by search with its
// parameters and response), and "Test Request" asks the server itself,
// with the key typed into it, which the browser does not keep.
func TestReferenceInBrowser(t *testing.T) {
	chromium := webtest.Chromium(t)
	api := loupetest.New(t)
	c := api.Tenant(t, "acme")
	title := "Reference clip " + time.Now().Format("150405.000")
	id := c.CreateItem(t, map[string]any{"title": title, "itemType": "video"})

	want := expectFromDocument(t, c)
	want.Key, want.ItemID, want.ItemTitle = c.Key, id, title
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	expectFile := filepath.Join(t.TempDir(), "expect.json")
	if err := os.WriteFile(expectFile, b, 0o600); err != nil {
		t.Fatal(err)
	}

	// LOUPE_REFERENCE_SCREENSHOT keeps the screenshot of the loaded page
	// (to look at it); by default it goes with the test's temp dir.
	shot := os.Getenv("LOUPE_REFERENCE_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "reference.png")
	}
	out := webtest.Node(t, 3*time.Minute, "testdata/browser.cjs", nil, api.URL, chromium, shot, expectFile)
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
	var paths []string
	for _, r := range s.Requests {
		if r.Origin != api.URL {
			t.Errorf("a request to %s%s", r.Origin, r.Path)
		}
		paths = append(paths, r.Method+" "+r.Path)
	}
	// The page, its three files, the document and the test request: nothing
	// else (no fonts, no telemetry, no proxy).
	if len(s.Requests) != 6 || paths[0] != "GET /reference" || paths[4] != "GET /openapi.json" ||
		paths[5] != "GET /api/v1/items/"+id {
		t.Errorf("requests: %q", paths)
	}

	// Rendered from the document: its title, the tags' operations.
	l := s.Loaded
	if l.Title == "" || l.Heading != want.Title {
		t.Errorf("page title %q, heading %q, want the document's %q", l.Title, l.Heading, want.Title)
	}
	for i, tag := range want.Tags {
		if i >= len(l.TagHeadings) || strings.TrimSpace(l.TagHeadings[i]) != tag.Name {
			t.Errorf("the tags' sections: %q, want %s's", l.TagHeadings, tag.Name)
		}
		for _, sum := range tag.Summaries {
			if !strings.Contains(l.Sidebar, sum) {
				t.Errorf("the sidebar, %s opened, lacks %q:\n%s", tag.Name, sum, l.Sidebar)
			}
		}
	}
	// The options that would reach beyond the server are off.
	for _, off := range []string{"Ask AI", "Generate MCP", "Developer Tools", "Deploy"} {
		if strings.Contains(l.Body, off) {
			t.Errorf("the page shows %q", off)
		}
	}
	if l.Download != api.URL+"/openapi.json" {
		t.Errorf("the download link: %q", l.Download)
	}

	// Found by search, opened with its parameters and response.
	op, w := s.Operation, want.Operation
	found := false
	for _, r := range op.SearchResults {
		found = found || strings.Contains(r, w.Summary) && strings.HasSuffix(strings.TrimSpace(r), w.Path)
	}
	if !found {
		t.Errorf("searching %q found %q", w.ID, op.SearchResults)
	}
	if !strings.HasSuffix(op.URL, "/reference#tag/items/GET"+w.Path) || op.Heading != w.Summary {
		t.Errorf("the result opened %s, heading %q; want %s %s, %q", op.URL, op.Heading, w.Method, w.Path, w.Summary)
	}
	for _, part := range []string{"Path Parameters\n" + w.PathParameter, "Query Parameters\n" + w.Parameter, w.ParameterDesc, "Responses\n200"} {
		if !strings.Contains(op.Text, part) {
			t.Errorf("the operation's section lacks %q:\n%s", part, op.Text)
		}
	}
	if !strings.Contains(op.WithResponse, w.Property+"\nType:\ninteger") || !strings.Contains(op.WithResponse, w.PropertyDescription) {
		t.Errorf("the 200 response, opened, lacks %s (%q)", w.Property, w.PropertyDescription)
	}

	// The test request went to the server itself, with the key typed in;
	// the answer is shown; the browser kept no key.
	tr := s.TestRequest
	if tr.URL != api.URL+"/api/v1/items/"+id || tr.Status != 200 || tr.Authorization != "Bearer "+c.Key {
		t.Errorf("test request: %s answered %d, Authorization %q", tr.URL, tr.Status, tr.Authorization)
	}
	if !strings.Contains(tr.Shown, "200 OK") || !strings.Contains(tr.Shown, title) {
		t.Errorf("the client shows:\n%s", tr.Shown)
	}
	if strings.Contains(tr.Stored, c.Key) {
		t.Errorf("the key stayed in localStorage: %s", tr.Stored)
	}
}

// expectFromDocument reads the server's /openapi.json and picks what the
// page must show: two operations each of the items and folders tags, and
// getItem (GET /api/v1/items/{itemId}) with its query parameter
// readableMetadataFields and its 200 response's metadataVersion.
func expectFromDocument(t *testing.T, c *loupetest.Client) expect {
	t.Helper()
	var doc struct {
		Info  struct{ Title string }
		Paths map[string]map[string]struct {
			OperationID string
			Summary     string
			Tags        []string
			Parameters  []struct{ Name, In, Description string }
			Responses   map[string]struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]struct {
							Type        json.RawMessage // a type, or a list of them
							Description string
						}
					}
				}
			}
		}
	}
	c.Get(t, "/openapi.json").Status(200).JSON(&doc)
	var want expect
	want.Title = doc.Info.Title

	summaries := map[string]string{} // operationId -> summary
	for _, ops := range doc.Paths {
		for _, op := range ops {
			summaries[op.OperationID] = op.Summary
		}
	}
	for _, tag := range []struct {
		name string
		ops  []string
	}{{"items", []string{"createItem", "deleteItem"}}, {"folders", []string{"getFolder", "createFolderPath"}}} {
		var sums []string
		for _, id := range tag.ops {
			if summaries[id] == "" {
				t.Fatalf("/openapi.json has no operation %s with a summary", id)
			}
			sums = append(sums, summaries[id])
		}
		want.Tags = append(want.Tags, struct {
			Name      string   `json:"name"`
			Summaries []string `json:"summaries"`
		}{tag.name, sums})
	}

	op, ok := doc.Paths["/api/v1/items/{itemId}"]["get"]
	if !ok || op.OperationID != "getItem" || op.Summary == "" || len(op.Tags) != 1 || op.Tags[0] != "items" {
		t.Fatalf("/openapi.json: GET /api/v1/items/{itemId} is %+v, want getItem tagged items", op)
	}
	o := &want.Operation
	o.ID, o.Method, o.Path, o.Summary = op.OperationID, "get", "/api/v1/items/{itemId}", op.Summary
	for _, p := range op.Parameters {
		switch {
		case p.In == "path":
			o.PathParameter = p.Name
		case p.Name == "readableMetadataFields":
			o.Parameter, o.ParameterDesc = p.Name, p.Description
		}
	}
	prop := op.Responses["200"].Content["application/json"].Schema.Properties["metadataVersion"]
	o.Property, o.PropertyDescription = "metadataVersion", prop.Description
	if o.PathParameter != "itemId" || o.ParameterDesc == "" || string(prop.Type) != `"integer"` || prop.Description == "" {
		t.Fatalf("/openapi.json: getItem's parameters %+v, 200's metadataVersion %+v", op.Parameters, prop)
	}
	return want
}
