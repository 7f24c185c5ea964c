// Package tsclient_test holds the REST interface's OpenAPI document to a
// client nobody here wrote: TypeScript types generated from the live
// server's /openapi.json by openapi-typescript, calls made through
// openapi-fetch, the program compiled by tsc --strict and run by Node
// against the server (the packages are pinned in internal/testkit/webtest).
package tsclient_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/openapicheck"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
	"github.com/loupe-mam/loupe/rest"
)

// run is the token the client puts in what it names (its folder path,
// titles, labels): what it searches for.
const run = "k7q2"

// summary is what testdata/client.ts prints.
type summary struct {
	Statuses map[string]int
	Folders  struct {
		Created []string
		Leaf    string
		Total   int
		Hits    []string
	}
	Item struct {
		ID, OtherID, Title, ItemType string
		FolderParents                []string
		CreatedVersion               int
		VersionBefore                int
		VersionAfter                 int
		RereadVersion                int
		Description                  any
		PolledVersionState           string
		PolledTitle                  string
		ByExternalID                 [][3]any
	}
	Comments struct {
		ID, Type string
		Listed   []string
		Start    float64
	}
	Attachments struct {
		UploadURL *string `json:"uploadUrl"`
		Existing  []string
	}
	Relations struct{ Set, Other [][3]string }
	Bookmarks struct {
		ID, Title string
		Listed    []string
	}
	Config struct {
		ConfidenceLevel float64
		Timezone        string
	}
	Storages struct {
		ID, Name                          string
		Total                             int
		Names                             []string
		UploadLocations, StorageLocations int
	}
	Ingest struct {
		Configs  []string
		Gateways int
	}
	Mdfs struct {
		OptionList, OptionListID, ID string
		Alternatives                 []string
		FieldType, FieldOptionList   string
		Listed, OptionLists          []string
	}
	User struct {
		Theme, WorkFolderID string
		Deactivated         bool
	}
	Keys struct {
		Label, KeyID, Deleted string
		WithNewKey            int
		Listed                []string
	}
	Presets struct {
		ID, Name, Container string
		Listed              []string
		Total               int
	}
	Shares struct {
		ID, State, TargetID string
		Links               int
		Listed              []string
	}
	Notifications struct {
		Sent                    int
		Title, ItemID, SenderID string
	}
	Replication struct{ Sources, Transfers int }
	Live        struct{ Pipelines, Recordings, Series int }
	Webhooks    struct {
		ID, Type, Header string
		Secret, Enabled  bool
		EnabledCreated   bool
		EnabledChanged   bool
		Listed           []string
	}
	Audit struct {
		Total   int
		Actions []string
		Titles  []string
	}
	Stats struct {
		DateRange string
		Counts    map[string]struct{ Sum int64 }
	}
	Metering struct{ StartDay, EndDay, Cost float64 }
	Search   struct {
		Total  int
		IDs    []string
		Titles []string
	}
	Missing struct {
		Status, StatusCode int
		Data               any
		Message            string
	}
}

// TestGeneratedTypeScriptClient generates the client's types from the
// server's document, compiles testdata/client.ts against them with tsc
// --strict (so every field it reads, every parameter and body it sends is
// checked against the document's types, and the lines it marks
// @ts-expect-error must be refused) and runs it against the server through
// a proxy that holds every answer to the document. It asserts what the
// client read back: its own writes, in every area of the interface.
func TestGeneratedTypeScriptClient(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "ts")

	modules, err := webtest.ModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// tsc and Node's ES modules resolve packages from a node_modules
	// beside the program (NODE_PATH is CommonJS only).
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"client.ts", "generate.mjs", "tsconfig.json", "package.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The document, as the server publishes it.
	doc := api.Anonymous().Get(t, "/openapi.json").Status(http.StatusOK)
	if ct := doc.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("/openapi.json: Content-Type %q", ct)
	}
	if v := doc.Object()["openapi"]; v != "3.1.0" {
		t.Fatalf("/openapi.json: openapi %v", v)
	}
	if err := os.WriteFile(filepath.Join(dir, "openapi.json"), doc.Body, 0o644); err != nil {
		t.Fatal(err)
	}

	// openapi-typescript reads it without a warning.
	var gen struct{ Warnings []string }
	decode(t, "generate.mjs", webtest.Node(t, 2*time.Minute, filepath.Join(dir, "generate.mjs"), nil,
		filepath.Join(dir, "openapi.json"), filepath.Join(dir, "schema.d.ts")), &gen)
	if len(gen.Warnings) > 0 {
		t.Errorf("openapi-typescript warned about the document:\n%s", strings.Join(gen.Warnings, "\n"))
	}

	// tsc --strict compiles the client against the types (it prints its
	// errors on stdout and fails, which fails the test with them).
	webtest.Node(t, 2*time.Minute, filepath.Join(modules, "typescript", "bin", "tsc"), nil,
		"-p", filepath.Join(dir, "tsconfig.json"), "--strict", "--noEmit", "false")

	proxy, calls := validatingProxy(t, api.URL)
	out := webtest.Node(t, time.Minute, filepath.Join(dir, "out", "client.js"), []string{
		"LOUPE_URL=" + proxy, "LOUPE_KEY=" + a.Key, "LOUPE_USER_ID=" + a.UserID, "LOUPE_TENANT_ID=" + a.TenantID, "LOUPE_RUN=" + run,
	})
	var s summary
	decode(t, "client.js", out, &s)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("client.js printed: %s\nthrough the proxy: %s", out, strings.Join(calls(), ", "))
		}
	})

	// Every operation answered its route's success status.
	for op, code := range s.Statuses {
		if op == "getItem (unknown)" {
			continue
		}
		if want := successStatus(t, op); code != want {
			t.Errorf("%s answered %d, want %d", op, code, want)
		}
	}
	// It called every area, each call through the proxy.
	for _, op := range []string{
		"createFolderPath", "getFolderContent",
		"createItem", "getItem", "updateItemMetadata", "pollItems", "itemsByExternalId",
		"createComment", "listComments",
		"createAttachment", "attachmentsPrecheck", "setRelations", "listRelations",
		"createBookmark", "listBookmarks",
		"updateTenantConfig", "getTenantConfig",
		"createStorage", "listStorages", "listUploadLocations", "listStorageLocations",
		"listIngestStorageConfigs", "listGatewayConfigs",
		"createOptionList", "createMdf", "getMdf", "listMdfs", "listOptionLists",
		"updateUserSettings", "getUserSettings", "getUserStatus",
		"createApiKey", "listApiKeys", "deleteApiKey",
		"createPreset", "listPresets",
		"createShare", "listShares",
		"sendNotification", "listNotifications",
		"getReplication", "listTransfers",
		"listLivePipelines", "listScheduledRecordings",
		"createWebhook", "updateWebhook", "listWebhooks", "getWebhook",
		"itemAnalyticsSearch",
		"getStats", "getMetering",
		"search",
	} {
		if _, ok := s.Statuses[op]; !ok {
			t.Errorf("the client did not call %s", op)
		}
	}
	if n := len(calls()); n < len(s.Statuses) {
		t.Errorf("the proxy passed on %d calls, fewer than the client's %d operations", n, len(s.Statuses))
	}

	// Folders and items: what it wrote, read back, by it and by Go.
	title := "TS client " + run
	it := s.Item
	if it.ID == "" || it.Title != title || it.ItemType != "video" || !slices.Equal(it.FolderParents, []string{s.Folders.Leaf}) {
		t.Errorf("item read back: %+v (folder %s)", it, s.Folders.Leaf)
	}
	if it.VersionBefore != it.CreatedVersion || it.VersionAfter <= it.VersionBefore || it.RereadVersion != it.VersionAfter {
		t.Errorf("metadata versions: created %d, read %d, patched %d, read again %d",
			it.CreatedVersion, it.VersionBefore, it.VersionAfter, it.RereadVersion)
	}
	if it.Description != "described by "+run {
		t.Errorf("the PATCHed metadata read back: %v", it.Description)
	}
	if it.PolledVersionState != "EXISTS" || it.PolledTitle != title {
		t.Errorf("polled: %s %q", it.PolledVersionState, it.PolledTitle)
	}
	if want := [][3]any{{"ts-" + run, "success", it.ID}, {"none-" + run, "notFound", nil}}; !slices.Equal(it.ByExternalID, want) {
		t.Errorf("items by external id: %v, want %v", it.ByExternalID, want)
	}
	var fromGo struct {
		Title    string `json:"title"`
		Metadata struct {
			FormData map[string]any `json:"formData"`
		} `json:"metadata"`
		MetadataVersion int `json:"metadataVersion"`
	}
	a.Get(t, "/api/v1/items/"+it.ID).Status(http.StatusOK).JSON(&fromGo)
	if fromGo.Title != title || fromGo.Metadata.FormData["default_description"] != "described by "+run ||
		fromGo.MetadataVersion != it.VersionAfter {
		t.Errorf("the item as Go reads it: %+v", fromGo)
	}
	if !slices.Equal(s.Folders.Created, []string{"TS client", run}) || s.Folders.Total != 1 ||
		!slices.Equal(s.Folders.Hits, []string{it.ID}) {
		t.Errorf("folders: %+v", s.Folders)
	}

	// Comments, attachments, relations.
	if s.Comments.ID == "" || s.Comments.Type != "top" || s.Comments.Start != 1 ||
		!slices.Equal(s.Comments.Listed, []string{"Trim the first second"}) {
		t.Errorf("comments: %+v", s.Comments)
	}
	if u := s.Attachments.UploadURL; u == nil || !strings.HasPrefix(*u, api.URL+"/") {
		t.Errorf("attachment upload URL: %v", u)
	}
	if !slices.Equal(s.Attachments.Existing, []string{"notes.txt"}) {
		t.Errorf("precheck of the attachment's name: %v", s.Attachments.Existing)
	}
	if !slices.Equal(s.Relations.Set, [][3]string{{"sequel", "outgoing", it.OtherID}}) ||
		!slices.Equal(s.Relations.Other, [][3]string{{"sequel", "incoming", it.ID}}) {
		t.Errorf("relations: %+v", s.Relations)
	}

	// Configuration areas.
	if s.Bookmarks.ID == "" || s.Bookmarks.Title != "Search "+run || !slices.Contains(s.Bookmarks.Listed, "Search "+run) {
		t.Errorf("bookmarks: %+v", s.Bookmarks)
	}
	if s.Config.ConfidenceLevel != 70 || s.Config.Timezone == "" {
		t.Errorf("tenant config: %+v", s.Config)
	}
	if s.Storages.ID == "" || s.Storages.Name != "Archive "+run || s.Storages.Total != 1 ||
		!slices.Equal(s.Storages.Names, []string{"Archive " + run}) || s.Storages.StorageLocations != 0 {
		t.Errorf("storages: %+v", s.Storages)
	}
	if len(s.Ingest.Configs) != 0 || s.Ingest.Gateways != 0 {
		t.Errorf("ingest configs of a new tenant: %+v", s.Ingest)
	}
	m := s.Mdfs
	if m.OptionList != "Desks "+run || !slices.Equal(m.Alternatives, []string{"news", "sport"}) || m.ID != "ts"+run ||
		m.FieldType != "choice" || m.FieldOptionList != m.OptionListID || !slices.Contains(m.Listed, m.ID) ||
		!slices.Contains(m.OptionLists, m.OptionList) {
		t.Errorf("mdfs and option lists: %+v", m)
	}
	if s.User.Theme != "dark" || s.User.WorkFolderID != s.Folders.Leaf || s.User.Deactivated {
		t.Errorf("user settings and status: %+v", s.User)
	}
	k := s.Keys
	if k.Label != "ci "+run || k.KeyID == "" || k.WithNewKey != http.StatusOK || !slices.Contains(k.Listed, k.Label) ||
		k.Deleted != k.KeyID {
		t.Errorf("api keys: %+v", k)
	}
	var keys []struct {
		KeyID string `json:"keyId"`
	}
	a.Get(t, "/auth/api/v1/keys").Status(http.StatusOK).JSON(&keys)
	for _, key := range keys {
		if key.KeyID == k.KeyID {
			t.Errorf("the deleted key %s is still listed", k.KeyID)
		}
	}
	if s.Presets.ID == "" || s.Presets.Name != "HD "+run || s.Presets.Container == "" ||
		!slices.Contains(s.Presets.Listed, s.Presets.Name) || s.Presets.Total != len(s.Presets.Listed) {
		t.Errorf("presets: %+v", s.Presets)
	}
	if s.Shares.ID == "" || s.Shares.State != "active" || s.Shares.TargetID != it.ID || s.Shares.Links != 1 ||
		!slices.Equal(s.Shares.Listed, []string{"Review " + run}) {
		t.Errorf("shares: %+v", s.Shares)
	}
	if n := s.Notifications; n.Sent != 1 || n.Title != "From the TS client" || n.ItemID != it.ID || n.SenderID != a.UserID {
		t.Errorf("notifications: %+v", n)
	}
	if s.Replication.Sources != 0 || s.Replication.Transfers != 0 {
		t.Errorf("replication of a tenant without storage locations: %+v", s.Replication)
	}
	if s.Live.Pipelines != 0 || s.Live.Recordings != 0 || s.Live.Series != 0 {
		t.Errorf("live: %+v", s.Live)
	}
	// Header values are answered as *** (they are credentials).
	if w := s.Webhooks; w.ID == "" || !w.Secret || w.Type != "shareRevocation" || !w.EnabledCreated ||
		w.EnabledChanged || w.Enabled || w.Header != "***" ||
		!slices.Equal(w.Listed, []string{"Hook " + run}) {
		t.Errorf("webhooks: %+v", w)
	}

	// Audit, usage, search.
	actions := slices.Sorted(slices.Values(s.Audit.Actions))
	if !slices.Equal(actions, []string{"create", "metadataUpdated", "shareCreated"}) || s.Audit.Total != 3 || !slices.Equal(s.Audit.Titles, []string{title, title, title}) {
		t.Errorf("audit of the item: %+v", s.Audit)
	}
	c := s.Stats.Counts
	if s.Stats.DateRange != "LAST_24_HOURS" || c["items_created"].Sum < 2 || c["comments_created"].Sum != 1 ||
		c["shares_created_item_view"].Sum != 1 {
		t.Errorf("stats: %+v", s.Stats)
	}
	if s.Metering.StartDay == 0 || s.Metering.StartDay > s.Metering.EndDay {
		t.Errorf("metering: %+v", s.Metering)
	}
	if !slices.Contains(s.Search.IDs, it.ID) || !slices.Contains(s.Search.Titles, title) || s.Search.Total < 1 {
		t.Errorf("search for %q: %+v", run, s.Search)
	}

	// The unknown item: the error envelope, in openapi-fetch's error.
	if e := s.Missing; e.Status != http.StatusNotFound || e.StatusCode != http.StatusNotFound || e.Data != nil || e.Message == "" {
		t.Errorf("unknown item: %+v", e)
	}
}

// successStatus is the status the route of operation op answers on success.
func successStatus(t *testing.T, op string) int {
	t.Helper()
	for _, rt := range rest.Routes {
		if rt.Op == op || rt.Variant != nil && rt.Variant.Op == op {
			if rt.Status != 0 {
				return rt.Status
			}
			return http.StatusOK
		}
	}
	t.Fatalf("no route runs %s", op)
	return 0
}

// validatingProxy serves the API at target and holds every answer to the
// OpenAPI document (openapicheck, kin-openapi's reading of it), as the Go
// clients' answers are: the generated types are only as true as the
// document. It answers its URL and the calls it passed on.
func validatingProxy(t *testing.T, target string) (string, func() []string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []string
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) },
		ModifyResponse: func(resp *http.Response) error {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(b))
			req := resp.Request
			mu.Lock()
			calls = append(calls, req.Method+" "+req.URL.Path)
			mu.Unlock()
			if err := openapicheck.Response(req, resp.StatusCode, resp.Header, b); err != nil {
				t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
			}
			return nil
		},
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(calls)
	}
}

// decode reads a script's JSON answer.
func decode(t *testing.T, script string, out []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s printed what is not its JSON answer (%v):\n%s", script, err, out)
	}
}
