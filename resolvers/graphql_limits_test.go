package resolvers_test

import (
	"testing"

	"github.com/loupe-mam/loupe/internal/loupetest"
)

func TestProbe(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	for _, v := range []map[string]any{{"since": "yesterday"}, {"actionType": "rename"}} {
		r := a.GraphQL(t, `query($filter: AuditFilter) { itemAnalytics(filter: $filter) { total } }`, map[string]any{"filter": v})
		t.Logf("%d %s %+v", r.Code, r.Data, r.Errors)
	}
}
