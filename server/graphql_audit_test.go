package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// auditResult is one line of testdata/graphql-audit.cjs's output.
type auditResult struct {
	Status   string `json:"status"` // ok, notice (a MAY), warn (a SHOULD), error (a MUST)
	ID       string `json:"id"`
	Name     string `json:"name"`
	Reason   string `json:"reason"`
	Response *struct {
		Status      int    `json:"status"`
		ContentType string `json:"contentType"`
		Body        string `json:"body"`
	} `json:"response"`
}

// /graphql passes graphql-http's audit of the GraphQL-over-HTTP spec
// (docs/graphql-over-http.md) with no error (a MUST) and no warning (a
// SHOULD). The optional checks (MAY) it passes too are held to it: a notice
// fails as well, so that what the server does beyond the spec's minimum
// does not quietly stop.
func TestGraphQLOverHTTPAudit(t *testing.T) {
	api := loupetest.New(t)
	c := api.Tenant(t, "acme")
	out := webtest.Node(t, 2*time.Minute, "testdata/graphql-audit.cjs",
		[]string{"LOUPE_AUDIT_URL=" + api.URL + "/graphql", "LOUPE_AUDIT_KEY=" + c.Key})

	counts := map[string]int{}
	for line := range bytes.Lines(out) {
		var r auditResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("audit output %q: %v", line, err)
		}
		counts[r.Status]++
		if r.Status == "ok" {
			t.Logf("ok %s %s", r.ID, r.Name)
			continue
		}
		msg := r.Status + " " + r.ID + " " + r.Name + ": " + r.Reason
		if r.Response != nil {
			msg += fmt.Sprintf("\n\tanswered %d %s %s", r.Response.Status, r.Response.ContentType, r.Response.Body)
		}
		t.Error(msg)
	}
	if counts["ok"] == 0 {
		t.Fatalf("the audit ran no checks:\n%s", out)
	}
	t.Logf("audit: %d ok, %d notice, %d warn, %d error", counts["ok"], counts["notice"], counts["warn"], counts["error"])
}
