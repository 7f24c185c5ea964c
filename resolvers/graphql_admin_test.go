package resolvers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// Tenant administration through /graphql: configuration, transcription
// languages and usage figures (docs/tenant-config.md, docs/usage.md).

const configFields = `confidenceLevel transcriptionApiKey customActionsHeaders featureFlags tenantWideTimezone
organizationLabel crashRecordingDuration defaultCompactViewFields serviceRate`

func TestGraphQLTenantConfig(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	user := a.User(t, "ed@a.test", nil, false)
	const read = `{ tenantConfig { ` + configFields + ` } }`
	const update = `mutation($in: JSON!) { updateTenantConfig(input: $in) { ` + configFields + ` } }`
	var out struct {
		TenantConfig       json.RawMessage `json:"tenantConfig"`
		UpdateTenantConfig json.RawMessage `json:"updateTenantConfig"`
	}
	defaults := `{"confidenceLevel":80,"transcriptionApiKey":null,"customActionsHeaders":{},"featureFlags":{},
		"tenantWideTimezone":"UTC","organizationLabel":"a","crashRecordingDuration":3600,
		"defaultCompactViewFields":["title","itemType","createdOn","mediaSize"],"serviceRate":null}`
	a.GraphQL(t, read, nil).OK(&out)
	jsonEqual(t, "defaults", out.TenantConfig, defaults)

	// Merge: keys given change, the others stay.
	a.GraphQL(t, update, map[string]any{"in": map[string]any{"confidenceLevel": 60, "transcriptionApiKey": "sk-1"}}).OK(nil)
	a.GraphQL(t, update, map[string]any{"in": map[string]any{"featureFlags": map[string]any{"x": true},
		"customActionsHeaders": map[string]any{"Authorization": "Bearer t"}, "serviceRate": 95.5}}).OK(&out)
	merged := `{"confidenceLevel":60,"transcriptionApiKey":"sk-1","customActionsHeaders":{"Authorization":"Bearer t"},
		"featureFlags":{"x":true},"tenantWideTimezone":"UTC","organizationLabel":"a","crashRecordingDuration":3600,
		"defaultCompactViewFields":["title","itemType","createdOn","mediaSize"],"serviceRate":95.5}`
	jsonEqual(t, "merged", out.UpdateTenantConfig, merged)

	// Refused input writes nothing.
	for _, c := range []struct {
		name    string
		in      any
		message string
	}{
		{"unknown key", map[string]any{"confidenceLevel": 10, "colour": "red"}, `unknown configuration key "colour"`},
		{"wrong type", map[string]any{"confidenceLevel": "high"}, "confidenceLevel must be a number"},
		{"wrong type in a list", map[string]any{"defaultCompactViewFields": []any{true}},
			"defaultCompactViewFields must be an array of strings of 1 to 256 characters"},
		{"not an object", []any{1}, "the tenant configuration must be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if msg := a.GraphQL(t, update, map[string]any{"in": c.in}).ErrorCode("BAD_USER_INPUT"); msg != c.message {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
		})
	}
	a.GraphQL(t, read, nil).OK(&out)
	jsonEqual(t, "after refused writes", out.TenantConfig, merged)

	// A user reads the configuration with its secrets masked, and may not write.
	user.GraphQL(t, read, nil).OK(&out)
	jsonEqual(t, "read by a user", out.TenantConfig, strings.NewReplacer(`"sk-1"`, `"********"`, `"Bearer t"`, `"********"`).Replace(merged))
	if msg := user.GraphQL(t, update, map[string]any{"in": map[string]any{"confidenceLevel": 1}}).ErrorCode("FORBIDDEN"); msg != "Only administrators may change the tenant configuration." {
		t.Fatalf("message %q", msg)
	}
	a.GraphQL(t, read, nil).OK(&out)
	jsonEqual(t, "after a user's write", out.TenantConfig, merged)

	// Another tenant keeps its defaults.
	b.GraphQL(t, read, nil).OK(&out)
	jsonEqual(t, "other tenant", out.TenantConfig, strings.Replace(defaults, `"organizationLabel":"a"`, `"organizationLabel":"b"`, 1))
}

func TestGraphQLTranscriptionLanguageSettings(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	user := a.User(t, "ed@a.test", nil, false)
	const fields = `total isSystem _embedded { collection { languageCode transcriptionService label } }`
	type list struct {
		Total    int  `json:"total"`
		IsSystem bool `json:"isSystem"`
		Embedded struct {
			Collection []loupe.TranscriptionLanguageSetting `json:"collection"`
		} `json:"_embedded"`
	}
	var out struct {
		Tenant list `json:"transcriptionLanguageSettings"`
		System list `json:"systemTranscriptionLanguageSettings"`
		Set    list `json:"setTranscriptionLanguageSettings"`
	}
	const read = `{ transcriptionLanguageSettings { ` + fields + ` } systemTranscriptionLanguageSettings { ` + fields + ` } }`
	user.GraphQL(t, read, nil).OK(&out)
	if !out.Tenant.IsSystem || !out.System.IsSystem || out.System.Total != len(out.System.Embedded.Collection) ||
		out.Tenant.Total != out.System.Total || out.System.Embedded.Collection[0].LanguageCode != "en-US" {
		t.Fatalf("defaults: %+v", out)
	}
	system := out.System

	const set = `mutation($in: [TranscriptionLanguageSettingInput!]!) { setTranscriptionLanguageSettings(input: $in) { ` + fields + ` } }`
	in := []any{map[string]any{"languageCode": "it-IT", "transcriptionService": "externalSpeechToText", "label": " Italiano "}}
	a.GraphQL(t, set, map[string]any{"in": in}).OK(&out)
	want := list{Total: 1}
	want.Embedded.Collection = []loupe.TranscriptionLanguageSetting{{LanguageCode: "it-IT", TranscriptionService: "externalSpeechToText", Label: "Italiano"}}
	if !sameList(out.Set, want) {
		t.Fatalf("set answered %+v", out.Set)
	}
	user.GraphQL(t, read, nil).OK(&out)
	if !sameList(out.Tenant, want) || !sameList(out.System, system) {
		t.Fatalf("after set: %+v", out)
	}
	b.GraphQL(t, read, nil).OK(&out)
	if !sameList(out.Tenant, system) || !out.Tenant.IsSystem {
		t.Fatalf("other tenant: %+v", out.Tenant)
	}

	bad := []any{map[string]any{"languageCode": "it", "transcriptionService": "externalSpeechToText", "label": "Italiano"}}
	if msg := a.GraphQL(t, set, map[string]any{"in": bad}).ErrorCode("BAD_USER_INPUT"); msg != `collection[0].languageCode must have the form xx-XX (en-US), got "it"` {
		t.Fatalf("message %q", msg)
	}
	user.GraphQL(t, set, map[string]any{"in": in}).ErrorCode("FORBIDDEN")
	a.GraphQL(t, read, nil).OK(&out)
	if !sameList(out.Tenant, want) {
		t.Fatalf("after refused writes: %+v", out.Tenant)
	}
}

func sameList[T any](a, b T) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

type gqlCounter struct {
	Name      string `json:"name"`
	Sum       int64  `json:"sum"`
	MaxHourly *struct {
		Value int64  `json:"value"`
		Hour  string `json:"hour"`
	} `json:"maxHourly"`
}

// gqlStats reads the counters and checks that counts (the spec's map) says
// the same as counters (the list).
func gqlStats(t *testing.T, c *loupetest.Client) map[string]int64 {
	t.Helper()
	var out struct {
		Stats struct {
			Counts    map[string]json.RawMessage `json:"counts"`
			Counters  []gqlCounter               `json:"counters"`
			DateRange string                     `json:"dateRange"`
		} `json:"stats"`
	}
	c.GraphQL(t, `{ stats { counts counters { name sum maxHourly { value hour } } dateRange } }`, nil).OK(&out)
	s := out.Stats
	if s.DateRange != "ALL" || len(s.Counts) != len(s.Counters) || s.Counters[0].Name != "comments_created" {
		t.Fatalf("stats %+v", s)
	}
	sums := map[string]int64{}
	for _, c := range s.Counters {
		b, _ := json.Marshal(map[string]any{"sum": c.Sum, "maxHourly": c.MaxHourly})
		if c.MaxHourly == nil {
			b, _ = json.Marshal(map[string]any{"sum": c.Sum})
		}
		jsonEqual(t, c.Name, s.Counts[c.Name], string(b))
		if c.Sum != 0 {
			sums[c.Name] = c.Sum
		}
	}
	return sums
}

func TestGraphQLStatsAndActivity(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	ed := a.User(t, "ed@a.test", nil, false)
	// a and ed made a request each (loupetest warms every new key).
	if got := gqlStats(t, a); len(got) != 1 || got["unique_users"] != 2 {
		t.Fatalf("fresh tenant: %v", got)
	}

	item := createItem(t, a, map[string]any{"title": "Interview", "itemType": "video"}).ID
	var created struct {
		CreateComment struct {
			ID string `json:"id"`
		} `json:"createComment"`
	}
	const create = `mutation($in: CreateCommentInput!) { createComment(input: $in) { id } }`
	ed.GraphQL(t, create, map[string]any{"in": map[string]any{"itemId": item, "text": "Trim it"}}).OK(&created)
	a.GraphQL(t, create, map[string]any{"in": map[string]any{"itemId": item, "text": "Louder",
		"assignee": map[string]any{"id": ed.UserID}}}).OK(nil)
	a.GraphQL(t, `mutation($in: UpdateCommentInput!) { updateComment(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"id": created.CreateComment.ID, "resolved": true}}).OK(nil)
	for _, q := range []string{"trim", "louder", ""} {
		ed.GraphQL(t, `query($q: String) { search(searchString: $q) { total } }`, map[string]any{"q": q}).OK(nil)
	}
	// A refused comment counts nothing.
	ed.GraphQL(t, create, map[string]any{"in": map[string]any{"itemId": item, "text": " "}}).ErrorCode("BAD_USER_INPUT")

	sameSums := func(what string, got, want map[string]int64) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
		}
	}
	sameSums("after comments and searches", gqlStats(t, a), map[string]int64{"comments_created": 2, "comments_assigned": 1,
		"comments_resolved": 1, "searches_performed": 3, "unique_users": 2, "items_created": 1})
	sameSums("other tenant", gqlStats(t, b), map[string]int64{"unique_users": 1})

	// The same changes as events of the outbox, page by page.
	const activity = `query($first: Int, $after: String, $types: [EventType!]) {
	  systemActivity(first: $first, after: $after, filter: {types: $types}) { events { type item { title } } nextToken } }`
	type page struct {
		SystemActivity struct {
			Events []struct {
				Type string `json:"type"`
			} `json:"events"`
			NextToken *string `json:"nextToken"`
		} `json:"systemActivity"`
	}
	api.AwaitEvents(t)
	got := map[string]int64{}
	var after any
	for pages := 0; ; pages++ {
		var p page
		a.GraphQL(t, activity, map[string]any{"first": 2, "after": after}).OK(&p)
		for _, e := range p.SystemActivity.Events {
			got[e.Type]++
		}
		if p.SystemActivity.NextToken == nil {
			if pages < 2 {
				t.Fatalf("%d pages of 2 for %v", pages+1, got)
			}
			break
		}
		after = *p.SystemActivity.NextToken
	}
	// The archive folder and the item; two comments, one assigned at
	// creation, one resolved.
	sameSums("activity", got, map[string]int64{"commentAssignment": 1, "commentCreation": 2, "commentResolution": 1,
		"itemCreation": 2})
	var p page
	a.GraphQL(t, activity, map[string]any{"types": []any{"commentResolution"}}).OK(&p)
	if ev := p.SystemActivity.Events; len(ev) != 1 || ev[0].Type != "commentResolution" {
		t.Fatalf("commentResolution events: %+v", ev)
	}
	b.GraphQL(t, activity, map[string]any{"types": []any{"commentCreation"}}).OK(&p)
	if len(p.SystemActivity.Events) != 0 {
		t.Fatalf("b sees a's activity: %+v", p.SystemActivity.Events)
	}

	// Usage figures are for admins.
	for _, q := range []string{`{ stats { dateRange } }`, `{ systemActivity { nextToken } }`, `{ metering { cost } }`} {
		if msg := ed.GraphQL(t, q, nil).ErrorCode("FORBIDDEN"); msg != "Only administrators may read the tenant's usage figures." {
			t.Fatalf("%s: %q", q, msg)
		}
	}
}

func TestGraphQLMetering(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	const query = `query($ids: [ID!]) { metering(tenantIds: $ids) { cost startDay endDay meteringInfo {
	  operationData { transcoding { count unit heldBytes } }
	  storageData { storage { cost unit count byProvider heldBytes } } cost } } }`
	type storage struct {
		Cost       float64                   `json:"cost"`
		Unit       float64                   `json:"unit"`
		Count      int64                     `json:"count"`
		ByProvider map[string]map[string]any `json:"byProvider"`
		HeldBytes  *int64                    `json:"heldBytes"`
	}
	read := func(c *loupetest.Client) storage {
		t.Helper()
		var out struct {
			Metering struct {
				MeteringInfo struct {
					OperationData struct {
						Transcoding storage `json:"transcoding"`
					} `json:"operationData"`
					StorageData struct {
						Storage storage `json:"storage"`
					} `json:"storageData"`
				} `json:"meteringInfo"`
			} `json:"metering"`
		}
		c.GraphQL(t, query, nil).OK(&out)
		if op := out.Metering.MeteringInfo.OperationData.Transcoding; op.Count != 0 || op.HeldBytes != nil {
			t.Fatalf("transcoding %+v", op)
		}
		return out.Metering.MeteringInfo.StorageData.Storage
	}
	if s := read(a); s.Count != 0 || *s.HeldBytes != 0 {
		t.Fatalf("new tenant: %+v", s)
	}

	// A file uploaded through a signed link and a transcript written by the
	// server are both held.
	item := createItem(t, a, map[string]any{"title": "Interview", "itemType": "video"}).ID
	var att struct {
		CreateAttachment struct {
			UploadURL string `json:"uploadUrl"`
		} `json:"createAttachment"`
	}
	a.GraphQL(t, `mutation($in: CreateAttachmentInput!) { createAttachment(input: $in) { uploadUrl } }`,
		map[string]any{"in": map[string]any{"itemId": item, "fileName": "cue.txt", "type": "file", "role": "file"}}).OK(&att)
	putFile(t, api, att.CreateAttachment.UploadURL, strings.Repeat("x", 1000))
	if s := read(a); s.Count != 1 || *s.HeldBytes != 1000 || s.Unit <= 0 || s.ByProvider["loupe"]["count"] != float64(1) {
		t.Fatalf("after an upload: %+v", s)
	}
	// Uploading again to the same link replaces the file.
	putFile(t, api, att.CreateAttachment.UploadURL, strings.Repeat("y", 400))
	if s := read(a); s.Count != 1 || *s.HeldBytes != 400 {
		t.Fatalf("after a second upload: %+v", s)
	}
	a.GraphQL(t, `mutation($in: UpdateTranscriptInput!) { updateTranscript(input: $in) { itemId } }`,
		map[string]any{"in": map[string]any{"itemId": item, "languageCode": "en-US", "timedTranscript": []any{
			map[string]any{"content": "Hello.", "startTime": 0, "endTime": 900}}}}).OK(nil)
	s := read(a)
	// The transcript's JSON, WebVTT and SRT files (docs/attachments.md).
	if s.Count != 4 || *s.HeldBytes <= 400 {
		t.Fatalf("after a transcript: %+v", s)
	}
	if got := read(b); got.Count != 0 || *got.HeldBytes != 0 {
		t.Fatalf("other tenant: %+v", got)
	}
	if msg := a.GraphQL(t, query, map[string]any{"ids": []any{b.TenantID}}).ErrorCode("FORBIDDEN"); msg != "Metering of other tenants needs the system scope." {
		t.Fatalf("message %q", msg)
	}
}
