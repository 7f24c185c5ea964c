package openapi

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDocumentValidates: the document passes kin-openapi's validation of
// OpenAPI 3.1 (every $ref resolved, every schema well formed, every path
// parameter declared), with the operator's extra key headers too.
func TestDocumentValidates(t *testing.T) {
	for _, opts := range []Options{{}, {KeyHeaders: []string{"X-Frame-Key", "Api-Key"}}} {
		b, err := JSON(opts)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := openapi3.NewLoader().LoadFromData(b)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Fatalf("validate: %v", err)
		}
		t.Logf("%d paths, %d component schemas, %d bytes", doc.Paths.Len(), len(doc.Components.Schemas), len(b))
	}
}
