package rest_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// A change and its audit record land together or not at all: when writing
// the record fails, the change is rolled back.
func TestAuditRecordIsAtomicWithTheChange(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	keep := a.CreateItem(t, map[string]any{"title": "keep", "itemType": "video"})
	api.DB.MustExec(`
CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.item_title = 'explode' OR NEW.action_type IN ('delete', 'archiveInitiated') THEN
    RAISE EXCEPTION 'audit store unavailable';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_records FOR EACH ROW EXECUTE FUNCTION refuse_audit();`)

	r := a.Post(t, "/api/v1/items", map[string]any{"title": "explode", "itemType": "video"})
	env := r.Envelope(500, "Internal server error")
	if _, ok := env["developerMessage"]; ok {
		t.Errorf("internal error leaks a developer message: %v", env)
	}
	if n := api.Count(t, `SELECT count(*) FROM items WHERE title = 'explode'`); n != 0 {
		t.Fatalf("create whose audit failed left %d items", n)
	}

	a.Delete(t, "/api/v1/items/"+keep).Envelope(500, "Internal server error")
	a.Get(t, "/api/v1/items/"+keep).Status(200)

	a.Put(t, "/api/v1/items/"+keep+"/archive", nil).Envelope(500, "Internal server error")
	if it := a.Get(t, "/api/v1/items/"+keep).Object(); it["hasArchiveRelation"] != false {
		t.Fatalf("archive whose audit failed archived the item")
	}
	if got := auditActions(t, a, keep); len(got) != 1 {
		t.Fatalf("audit actions = %v, want only create", got)
	}
}

func TestItemAnalyticsSearch(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	editor := a.User(t, "editor@a.test", []string{"editors"}, false)
	x := a.CreateItem(t, map[string]any{"title": "X", "itemType": "video", "metadata": map[string]any{
		"formData": map[string]any{"default_description": "d"}}})
	y := editor.CreateItem(t, map[string]any{"title": "Y", "itemType": "audio"})
	a.Delete(t, "/api/v1/items/"+x).Status(200)
	a.Post(t, "/api/v1/items/"+x+"/undelete", nil).Status(200)
	editor.Put(t, "/api/v1/items/"+y+"/archive", nil).Status(200)
	// Five records of ours: create X, create Y, delete X, undelete X, archive Y.

	type hit struct {
		ID, ItemID, TenantID, ActionType, ExecutedBy, ExecutedOn, Email, ItemTitle string
		MdfDiff                                                                    map[string]any
	}
	search := func(t *testing.T, q url.Values) (int, []hit) {
		t.Helper()
		var res struct {
			Total int   `json:"total"`
			Hits  []hit `json:"hits"`
		}
		a.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?"+q.Encode()).Status(200).JSON(&res)
		return res.Total, res.Hits
	}

	total, hits := search(t, url.Values{"itemId": {x}})
	if total != 3 || len(hits) != 3 || hits[0].ActionType != "undelete" || hits[2].ActionType != "create" {
		t.Fatalf("hits for x: total %d %+v", total, hits)
	}
	create := hits[2]
	if create.TenantID != a.TenantID || create.ExecutedBy != a.UserID || create.Email != "admin@a.test" || create.ItemTitle != "X" {
		t.Fatalf("create record = %+v", create)
	}
	if create.MdfDiff["newMdfId"] != "default" {
		t.Fatalf("create mdfDiff = %v", create.MdfDiff)
	}
	if fields, _ := create.MdfDiff["metadataFields"].([]any); len(fields) != 2 {
		t.Fatalf("create mdfDiff.metadataFields = %v, want default_description and default_title", create.MdfDiff["metadataFields"])
	}

	cases := []struct {
		name  string
		q     url.Values
		total int
		first string // action type of the first hit
	}{
		{"all", url.Values{}, 5, "archiveInitiated"},
		{"by action", url.Values{"actionType": {"create"}}, 2, "create"},
		{"by actor", url.Values{"executedBy": {editor.UserID}}, 2, "archiveInitiated"},
		{"actor and action", url.Values{"executedBy": {editor.UserID}, "actionType": {"create"}}, 1, "create"},
		{"since the future", url.Values{"since": {time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}, 0, ""},
		{"until the past", url.Values{"until": {"2000-01-01T00:00:00Z"}}, 0, ""},
		{"window", url.Values{"since": {"2000-01-01T00:00:00Z"}, "until": {time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)}}, 5, "archiveInitiated"},
		{"unknown item", url.Values{"itemId": {"01a20242-9dca-771b-bd4e-ca31c13a56ec"}}, 0, ""},
		{"not an id", url.Values{"itemId": {"nope"}}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			total, hits := search(t, c.q)
			if total != c.total || len(hits) != c.total {
				t.Fatalf("total %d, %d hits, want %d", total, len(hits), c.total)
			}
			if c.total > 0 && hits[0].ActionType != c.first {
				t.Fatalf("first hit %s, want %s", hits[0].ActionType, c.first)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i-1].ExecutedOn < hits[i].ExecutedOn {
					t.Fatalf("hits not newest first: %s before %s", hits[i-1].ExecutedOn, hits[i].ExecutedOn)
				}
			}
		})
	}

	t.Run("paging", func(t *testing.T) {
		var ids []string
		for from := 0; from < 5; from += 2 {
			total, hits := search(t, url.Values{"from": {fmt.Sprint(from)}, "size": {"2"}})
			if total != 5 {
				t.Fatalf("total %d, want 5", total)
			}
			for _, h := range hits {
				ids = append(ids, h.ID)
			}
		}
		_, all := search(t, url.Values{"size": {"1000"}})
		if len(ids) != 5 || len(all) != 5 {
			t.Fatalf("paged %d hits, one page %d, want 5", len(ids), len(all))
		}
		for i := range ids {
			if ids[i] != all[i].ID {
				t.Fatalf("page order differs at %d", i)
			}
		}
		if _, hits := search(t, url.Values{"from": {"50"}}); len(hits) != 0 {
			t.Fatalf("past the end: %d hits", len(hits))
		}
	})

	bad := []struct {
		name, query, message string
	}{
		{"size zero", "size=0", "size must be between 1 and 1000"},
		{"size too large", "size=1001", "size must be between 1 and 1000"},
		{"size not a number", "size=ten", `query parameter size must be an integer, got "ten"`},
		{"negative from", "from=-1", "from must not be negative"},
		{"unknown action", "actionType=explode", `invalid actionType "explode": expected one of create, delete, undelete, archiveInitiated, unarchiveInitiated, metadataUpdated, processingFailed, shareCreated, shareRevoked, shareOpened, shareDownload, shareUpload, shareComment, sharePasswordFailed`},
		{"bad since", "since=yesterday", ""},
		{"window backwards", "since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", "since must be before until"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			a.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?"+c.query).Envelope(400, c.message)
		})
	}
}
