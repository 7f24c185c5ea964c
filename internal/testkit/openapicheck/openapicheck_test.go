package openapicheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestResponse: answers the document allows pass; a body it does not, a
// status it does not list, fail; paths it does not list are not checked.
func TestResponse(t *testing.T) {
	json := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, method, path string
		status             int
		body               string
		fails              string // a part of the error; "" when it passes
	}{
		{"an envelope", "GET", "/api/v1/items/x", 404,
			`{"error":{"statusCode":404,"message":"The server can not find requested resource."}}`, ""},
		{"an envelope missing its message", "GET", "/api/v1/items/x", 404, `{"error":{"statusCode":404}}`, "message"},
		{"a key the answer has not", "DELETE", "/api/v1/items/x", 200,
			`{"id":"x","versionState":"DELETED","other":1}`, "other"},
		{"a key missing", "DELETE", "/api/v1/items/x", 200, `{"id":"x"}`, "versionState"},
		{"a wrong type", "GET", "/api/v1/items/x/version", 200, `{"id":5}`, "string"},
		{"the ancestry keyed by id", "POST", "/api/v1/folders/ancestry", 200, `{"f1":[[{"id":"a","name":"A"}]]}`, ""},
		{"the ancestry as a list", "POST", "/api/v1/folders/ancestry", 200, `[{"id":"f1"}]`, "object"},
		{"a status no operation lists", "GET", "/config/api/v1/bookmarks", 201, `[]`, "status"},
		// customIcons is a component shared by several answers; its
		// positions are nullable.
		{"a null where the answer is nullable", "PUT", "/api/v1/items/x/customIcons", 200,
			`{"customIcons":{"pos1":null,"pos2":"a","pos3":null,"pos4":null,"pos5":null,"pos6":null,"pos7":null,"pos8":null}}`, ""},
		{"a null where it is not", "DELETE", "/api/v1/items/x", 200, `{"id":null,"versionState":"DELETED"}`, "id"},
		{"an absent spec path", "GET", "/api/v1/presets", 404, `nonsense`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, nil)
			err := Response(req, c.status, json, []byte(c.body))
			switch {
			case c.fails == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.fails != "" && err == nil:
				t.Errorf("accepted")
			case c.fails != "" && !strings.Contains(err.Error(), c.fails):
				t.Errorf("error does not name %q: %v", c.fails, err)
			}
		})
	}
}
