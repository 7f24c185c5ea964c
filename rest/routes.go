package rest

import (
	"net/http"

	"github.com/loupe-mam/loupe/store"
)

// Route is one path of the spec: which stored operation runs, how the request
// fills its variables, and which part of its data is the response.
type Route struct {
	Method string
	// Path is the spec's path; AlsoPath another spelling of the same shape
	// ({id} for {itemId}), answered by the same route.
	Path     string
	AlsoPath string
	// Op names the operation in Document; Field is the dotted path in its
	// data that is the response body.
	Op    string
	Field string
	Bind  Binder
	// Status is the success status (200 when zero).
	Status int
}

// Routes is the REST interface: every spec path Loupe serves, and the only
// place a spec path is written. The router, the 404 behaviour and the
// coverage test all read it.
var Routes = []Route{
	{Method: "POST", Path: "/api/v1/items", Op: "createItem", Field: "createItem.item",
		Bind: bodyAs("input")},
	{Method: "GET", Path: "/api/v1/items/{itemId}", AlsoPath: "/api/v1/items/{id}", Op: "getItem", Field: "item",
		Bind: path("itemId", "id")},
	{Method: "DELETE", Path: "/api/v1/items/{itemId}", Op: "deleteItem", Field: "deleteItem",
		Bind: path("itemId", "id")},
	{Method: "POST", Path: "/api/v1/items/{itemId}/undelete", Op: "undeleteItem", Field: "undeleteItem",
		Bind: path("itemId", "id")},
	{Method: "PUT", Path: "/api/v1/items/{itemId}/archive", Op: "toggleArchive", Field: "toggleArchive",
		Bind: path("itemId", "id")},
	{Method: "GET", Path: "/auxiliary/api/v1/itemAnalyticsSearch", Op: "itemAnalyticsSearch", Field: "itemAnalytics",
		Bind: all(
			queryString("itemId", "filter", "itemId"),
			queryCheck("actionType", func(v string) error { _, err := store.ParseAuditAction(v); return err }),
			queryString("actionType", "filter", "actionType"),
			queryString("executedBy", "filter", "executedBy"),
			queryString("since", "filter", "since"),
			queryString("until", "filter", "until"),
			queryInt("from", "from"),
			queryInt("size", "size"),
		)},
}

func (rt Route) status() int {
	if rt.Status == 0 {
		return http.StatusOK
	}
	return rt.Status
}
