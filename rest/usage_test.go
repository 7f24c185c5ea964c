package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/store"
)

const (
	statsPath       = "/api/v1/stats"
	meteringPath    = "/api/v1/metering"
	activityPath    = "/auxiliary/api/v1/systemActivity"
	msgUsageAdmins  = "Only administrators may read the tenant's usage figures."
	hourPattern     = `^\d{4}-\d{2}-\d{2}-\d{2}$`
	specStatsFields = `comments_created comments_assigned comments_resolved render_sequence_in_cloud
render_sequence_to_new_item render_sequence_to_placeholder render_sequence_in_gateway searches_performed
shares_created_folder_upload shares_created_folder_view shares_created_item_upload shares_created_item_view
shares_tokens shares_uploads_initiated unique_users`
)

var hourRE = regexp.MustCompile(hourPattern)

type counter struct {
	Sum       int64 `json:"sum"`
	MaxHourly *struct {
		Value int64  `json:"value"`
		Hour  string `json:"hour"`
	} `json:"maxHourly"`
}

// readStats reads the statistics and checks their shape: the spec's
// counters are all there, a counter has a busiest hour exactly when it
// counted something.
func readStats(t *testing.T, c *loupetest.Client, query string) map[string]counter {
	t.Helper()
	r := c.Get(t, statsPath+query).Status(http.StatusOK)
	sameKeys(t, "stats", r.Object(), []string{"counts", "dateRange"})
	var out struct {
		Counts    map[string]counter `json:"counts"`
		DateRange string             `json:"dateRange"`
	}
	r.JSON(&out)
	for _, k := range strings.Fields(specStatsFields) {
		if _, ok := out.Counts[k]; !ok {
			t.Fatalf("stats lack %s: %s", k, r.Body)
		}
	}
	for k, c := range out.Counts {
		switch {
		case c.Sum == 0 && c.MaxHourly != nil, c.Sum > 0 && c.MaxHourly == nil:
			t.Fatalf("%s: sum %d with maxHourly %v", k, c.Sum, c.MaxHourly)
		case c.MaxHourly != nil && (!hourRE.MatchString(c.MaxHourly.Hour) || c.MaxHourly.Value < 1 || c.MaxHourly.Value > c.Sum && k != "unique_users"):
			t.Fatalf("%s: maxHourly %+v of sum %d", k, *c.MaxHourly, c.Sum)
		}
	}
	return out.Counts
}

// sums are the non-zero sums of the statistics.
func sums(counts map[string]counter) map[string]int64 {
	out := map[string]int64{}
	for k, c := range counts {
		if c.Sum != 0 {
			out[k] = c.Sum
		}
	}
	return out
}

func comment(t *testing.T, c *loupetest.Client, itemID string, body map[string]any) string {
	t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	c.Post(t, "/api/v1/items/"+itemID+"/comments", body).Status(http.StatusOK).JSON(&out)
	return out.ID
}

func updateComment(t *testing.T, c *loupetest.Client, input map[string]any) {
	t.Helper()
	c.GraphQL(t, `mutation($in: UpdateCommentInput!) { updateComment(input: $in) { id } }`,
		map[string]any{"in": input}).OK(nil)
}

// TestStatsCountWhatHappened makes comments, searches and items through
// both APIs and reads the counters move, in this tenant only.
func TestStatsCountWhatHappened(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	ed := a.User(t, "ed@a.test", nil, false)
	startHour := time.Now().UTC().Format(store.HourFormat)

	// Nothing happened yet but the admin's and ed's first requests
	// (loupetest makes one with each new key).
	sameJSON(t, "fresh tenant", sums(readStats(t, a, "")), map[string]int64{"unique_users": 2})

	item := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video"})
	c1 := comment(t, a, item, map[string]any{"text": "Trim the start"})
	comment(t, ed, item, map[string]any{"text": "Check the levels", "assignee": map[string]any{"id": a.UserID}})
	comment(t, ed, item, map[string]any{"text": "Agreed", "parentId": c1})
	updateComment(t, a, map[string]any{"id": c1, "resolved": true})
	updateComment(t, a, map[string]any{"id": c1, "resolved": true}) // already resolved: no new resolution
	updateComment(t, ed, map[string]any{"id": c1, "assignee": map[string]any{"id": ed.UserID}})
	updateComment(t, ed, map[string]any{"id": c1, "assignee": map[string]any{"id": ed.UserID}}) // same assignee
	ed.Get(t, "/api/v1/search?searchString=interview").Status(http.StatusOK)
	ed.Get(t, "/api/v1/search?searchString=nothing").Status(http.StatusOK)
	a.GraphQL(t, `{ search(searchString: "trim") { total } }`, nil).OK(nil)
	a.Delete(t, "/api/v1/items/"+item).Status(http.StatusOK)

	counts := readStats(t, a, "")
	sameJSON(t, "sums", sums(counts), map[string]int64{
		"comments_created": 3, "comments_assigned": 2, "comments_resolved": 1, "searches_performed": 3,
		"unique_users": 2, "items_created": 1, "items_deleted": 1,
	})
	endHour := time.Now().UTC().Format(store.HourFormat)
	if h := counts["comments_created"].MaxHourly.Hour; h < startHour || h > endHour {
		t.Fatalf("busiest hour %s outside the test's hours %s..%s", h, startHour, endHour)
	}
	if startHour == endHour && counts["comments_created"].MaxHourly.Value != 3 {
		t.Fatalf("maxHourly %+v, want 3 in %s", *counts["comments_created"].MaxHourly, startHour)
	}

	// Ranges: everything happened in the last 24 hours.
	r := a.Get(t, statsPath+"?dateRange=LAST_24_HOURS").Status(http.StatusOK).Object()
	if r["dateRange"] != "LAST_24_HOURS" {
		t.Fatalf("dateRange %v", r["dateRange"])
	}
	sameJSON(t, "last 24 hours", sums(readStats(t, a, "?dateRange=LAST_24_HOURS")), sums(counts))
	a.Get(t, statsPath+"?dateRange=YESTERDAY").Envelope(http.StatusBadRequest, "")

	// Another tenant counts only its own.
	sameJSON(t, "other tenant", sums(readStats(t, b, "")), map[string]int64{"unique_users": 1})
	// Only admins read usage figures.
	ed.Get(t, statsPath).Envelope(http.StatusForbidden, msgUsageAdmins)
	api.Anonymous().Get(t, statsPath).Envelope(http.StatusUnauthorized, "")
}

// TestStatsOverHours checks sums and busiest hours over hours of the past,
// counted as the recorder writes them.
func TestStatsOverHours(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", nil, false)
	h := func(day, hour int) time.Time { return time.Date(2024, 3, day, hour, 0, 0, 0, time.UTC) }
	err := api.Store.AddUsage(context.Background(), []store.UsageCount{
		{TenantID: a.TenantID, Metric: "comments_created", Hour: h(1, 9), Count: 3},
		{TenantID: a.TenantID, Metric: "comments_created", Hour: h(1, 10), Count: 5},
		{TenantID: a.TenantID, Metric: "comments_created", Hour: h(2, 8), Count: 5},
	}, []store.ActiveUser{
		{TenantID: a.TenantID, UserID: a.UserID, Hour: h(1, 9)},
		{TenantID: a.TenantID, UserID: ed.UserID, Hour: h(1, 9)},
		{TenantID: a.TenantID, UserID: ed.UserID, Hour: h(2, 8)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Written again (as a second instance would): a user counts once an hour.
	if err := api.Store.AddUsage(context.Background(), nil, []store.ActiveUser{
		{TenantID: a.TenantID, UserID: ed.UserID, Hour: h(2, 8)}}); err != nil {
		t.Fatal(err)
	}
	counts := readStats(t, a, "")
	sameJSON(t, "comments_created", counts["comments_created"],
		map[string]any{"sum": 13, "maxHourly": map[string]any{"value": 5, "hour": "2024-03-01-10"}})
	// a and ed in the past, and a now (reading): two users; the busiest hour had two.
	sameJSON(t, "unique_users", counts["unique_users"],
		map[string]any{"sum": 2, "maxHourly": map[string]any{"value": 2, "hour": "2024-03-01-09"}})
	// None of it happened in the last 7 days but the reading and the
	// first requests of a's and ed's keys.
	sameJSON(t, "last 7 days", sums(readStats(t, a, "?dateRange=LAST_7_DAYS")), map[string]int64{"unique_users": 2})
}

// meteringEntry is one entry of spec 2.25.
type meteringEntry struct {
	Cost       float64                   `json:"cost"`
	Unit       float64                   `json:"unit"`
	Count      int64                     `json:"count"`
	ByProvider map[string]map[string]any `json:"byProvider"`
}

type metering struct {
	Cost         float64 `json:"cost"`
	StartDay     int64   `json:"startDay"`
	EndDay       int64   `json:"endDay"`
	MeteringInfo struct {
		OperationData map[string]meteringEntry `json:"operationData"`
		StorageData   map[string]meteringEntry `json:"storageData"`
		Cost          float64                  `json:"cost"`
	} `json:"meteringInfo"`
}

func readMetering(t *testing.T, c *loupetest.Client, query string) metering {
	t.Helper()
	r := c.Get(t, meteringPath+query).Status(http.StatusOK)
	sameKeys(t, "metering", r.Object(), []string{"cost", "startDay", "endDay", "meteringInfo"})
	var m metering
	r.JSON(&m)
	sameKeys(t, "operations", anyKeys(m.MeteringInfo.OperationData), []string{"transcoding", "transcription", "translation"})
	sameKeys(t, "storage", anyKeys(m.MeteringInfo.StorageData), []string{"storage"})
	return m
}

func anyKeys[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestMeteringStorage(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	ed := a.User(t, "ed@a.test", nil, false)

	now := time.Now().UTC()
	today := now.Truncate(24 * time.Hour)
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	m := readMetering(t, a, "")
	if m.StartDay != monthStart.UnixMilli() || m.EndDay != today.UnixMilli() {
		t.Fatalf("default period %d..%d, want %d..%d", m.StartDay, m.EndDay, monthStart.UnixMilli(), today.UnixMilli())
	}
	if s := m.MeteringInfo.StorageData["storage"]; s.Count != 0 || s.Unit != 0 {
		t.Fatalf("storage of a new tenant: %+v", s)
	}
	for name, e := range m.MeteringInfo.OperationData {
		if e.Cost != 0 || e.Unit != 0 || e.Count != 0 || len(e.ByProvider) != 0 {
			t.Fatalf("%s of a new tenant: %+v", name, e)
		}
	}

	// An uploaded attachment is held.
	item := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video"})
	upload(t, api, createAttachment(t, a, item, map[string]any{"fileName": "poster.png", "type": "poster", "role": "poster"}), png)
	upload(t, api, createAttachment(t, a, item, map[string]any{"fileName": "notes.png", "type": "file", "role": "file"}), png)
	m = readMetering(t, a, "")
	s := m.MeteringInfo.StorageData["storage"]
	if s.Count != 2 || s.Unit <= 0 || s.Cost != 0 {
		t.Fatalf("storage after two uploads: %+v", s)
	}
	if p := s.ByProvider["loupe"]; p["count"] != float64(2) || p["unit"] != s.Unit {
		t.Fatalf("byProvider %v", s.ByProvider)
	}
	// Explicit days: yesterday to today; a period of the past held nothing.
	q := fmt.Sprintf("?startDay=%d&endDay=%d", today.Add(-24*time.Hour).UnixMilli(), now.UnixMilli())
	if m := readMetering(t, a, q); m.MeteringInfo.StorageData["storage"].Count != 2 || m.EndDay != today.UnixMilli() {
		t.Fatalf("yesterday to today: %+v", m)
	}
	past := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	m = readMetering(t, a, fmt.Sprintf("?startDay=%d&endDay=%d", past.Add(5*time.Hour).UnixMilli(), past.AddDate(0, 0, 30).UnixMilli()))
	if s := m.MeteringInfo.StorageData["storage"]; s.Count != 0 || s.Unit != 0 || m.StartDay != past.UnixMilli() {
		t.Fatalf("January 2024: %+v", m)
	}

	// Another tenant holds nothing of a's; a tenant meters only itself.
	if s := readMetering(t, b, "").MeteringInfo.StorageData["storage"]; s.Count != 0 || s.Unit != 0 {
		t.Fatalf("other tenant's storage: %+v", s)
	}
	a.Get(t, meteringPath+"?tenantIds="+b.TenantID).
		Envelope(http.StatusForbidden, "Metering of other tenants needs the system scope.")
	a.Get(t, meteringPath+"?tenantIds="+a.TenantID+","+b.TenantID).Envelope(http.StatusForbidden, "")
	readMetering(t, a, "?tenantIds="+a.TenantID)

	// A deleted file is no longer held at the end, but was held before.
	a.GraphQL(t, `mutation($in: DeleteAttachmentInput!) { deleteAttachment(input: $in) { fileName } }`,
		map[string]any{"in": map[string]any{"itemId": item, "fileName": "notes.png"}}).OK(nil)
	if s := readMetering(t, a, "").MeteringInfo.StorageData["storage"]; s.Count != 1 || s.Unit <= 0 {
		t.Fatalf("storage after a delete: %+v", s)
	}

	for _, c := range []struct{ query, message string }{
		{fmt.Sprintf("?startDay=%d&endDay=%d", now.UnixMilli(), past.UnixMilli()), "endDay must not be before startDay"},
		{fmt.Sprintf("?startDay=%d&endDay=%d", past.UnixMilli(), past.AddDate(1, 1, 0).UnixMilli()), "the period spans 398 days; at most 366"},
		{"?startDay=-5", "startDay must be epoch milliseconds, not negative"},
		{"?endDay=tomorrow", `query parameter endDay must be an integer, got "tomorrow"`},
	} {
		a.Get(t, meteringPath+c.query).Envelope(http.StatusBadRequest, c.message)
	}
	ed.Get(t, meteringPath).Envelope(http.StatusForbidden, msgUsageAdmins)
}

type activity struct {
	Events []struct {
		ID         string         `json:"id"`
		Type       string         `json:"type"`
		OccurredOn string         `json:"occurredOn"`
		ItemID     *string        `json:"itemId"`
		ActorID    *string        `json:"actorId"`
		Data       map[string]any `json:"data"`
	} `json:"events"`
	NextToken *string `json:"nextToken"`
}

func readActivity(t *testing.T, c *loupetest.Client, query string) activity {
	t.Helper()
	r := c.Get(t, activityPath+query).Status(http.StatusOK)
	sameKeys(t, "system activity", r.Object(), []string{"events", "nextToken"})
	var out activity
	r.JSON(&out)
	for _, e := range out.Events {
		if _, err := time.Parse(time.RFC3339, e.OccurredOn); err != nil || e.ID == "" {
			t.Fatalf("event %+v", e)
		}
	}
	return out
}

// typesOf names the events as "<type> <actor email or system>".
func typesOf(a activity, users map[string]string) []string {
	out := make([]string, len(a.Events))
	for i, e := range a.Events {
		who := "system"
		if e.ActorID != nil {
			who = users[*e.ActorID]
		}
		out[i] = e.Type + " " + who
	}
	return out
}

// System activity is the tenant's outbox (docs/events.md), oldest first,
// for admins: every change with who made it, paged by nextToken, filtered
// by type and time; another tenant's never shows; notifications stay
// their recipients'.
func TestSystemActivity(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	ed := a.User(t, "ed@a.test", nil, false)
	users := map[string]string{a.UserID: "admin", ed.UserID: "ed"}
	start := time.Now().UTC()
	b.CreateItem(t, map[string]any{"title": "Elsewhere", "itemType": "video"})
	item := a.CreateItem(t, map[string]any{"title": "Interview", "itemType": "video"})
	comment(t, a, item, map[string]any{"text": "one"})
	comment(t, ed, item, map[string]any{"text": "two @admin@a.test"}) // a mention: the admin's notification

	since := "?since=" + url.QueryEscape(start.Format(time.RFC3339Nano))
	var all activity
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		all = readActivity(t, a, since)
		if len(all.Events) >= 4 || time.Now().After(deadline) {
			break
		}
	}
	want := []string{"itemCreation admin", "commentCreation admin", "commentCreation ed", "notification ed"}
	if got := typesOf(all, users); !slices.Equal(got, want) || all.NextToken != nil {
		t.Fatalf("events:\n got %v\nwant %v (next %v)", got, want, all.NextToken)
	}
	if *all.Events[0].ItemID != item || all.Events[0].Data["itemType"] != "video" {
		t.Fatalf("the creation: %+v", all.Events[0])
	}

	// Page by page, the same events.
	var paged []string
	token := ""
	for pages := 0; ; pages++ {
		if pages > len(all.Events) {
			t.Fatal("paging does not end")
		}
		q := since + "&size=1"
		if token != "" {
			q += "&nextToken=" + url.QueryEscape(token)
		}
		page := readActivity(t, a, q)
		paged = append(paged, typesOf(page, users)...)
		if page.NextToken == nil {
			break
		}
		token = *page.NextToken
	}
	if !slices.Equal(paged, want) {
		t.Fatalf("paged:\n got %v\nwant %v", paged, want)
	}

	// Filters: types and times.
	if got := typesOf(readActivity(t, a, since+"&type=commentCreation,itemCreation"), users); len(got) != 3 {
		t.Fatalf("by type: %v", got)
	}
	if got := readActivity(t, a, "?until="+url.QueryEscape(start.Format(time.RFC3339Nano))+"&type=commentCreation"); len(got.Events) != 0 {
		t.Fatalf("before the start: %+v", got)
	}

	// Another tenant sees only its own; an editor none.
	for _, e := range readActivity(t, b, since).Events {
		if e.ItemID != nil && *e.ItemID == item {
			t.Fatalf("b sees %+v", e)
		}
	}
	for _, c := range []struct{ query, message string }{
		{"?size=0", "size must be between 1 and 1000"},
		{"?size=1001", "size must be between 1 and 1000"},
		{"?nextToken=xyz", `nextToken "xyz" is not one this list gave`},
		{"?since=yesterday", ""},
		{"?type=itemDestruction", ""},
		{"?since=2024-03-02T00:00:00Z&until=2024-03-01T00:00:00Z", "since must be before until"},
	} {
		a.Get(t, activityPath+c.query).Envelope(http.StatusBadRequest, c.message)
	}
	ed.Get(t, activityPath).Envelope(http.StatusForbidden, msgUsageAdmins)
}
