package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The access-control matrix of docs/access-control.md through REST: users
// (tenant admin, a member of "editors", a member of "sales", a folder's
// owner, another tenant's admin) × targets (folders with different rules,
// items in them) × operations.
//
// The folders and items of the fixture: internal/testkit/loupetest/access.go.
//
// Invisible answers exactly like missing: the same request with a random
// missing id answers the same status and body (the id swapped). Visible but
// not updatable answers 403 on writes and changes nothing.

// rowName is "user/op/target".
func rowName(user, op, target string) string { return user + "/" + op + "/" + target }

// sameAsMissing sends the request for id and for loupetest.AccessMissing; the two
// answers must be the same, the id swapped.
func sameAsMissing(t *testing.T, c *loupetest.Client, method, pathTmpl, bodyTmpl, id string) {
	t.Helper()
	send := func(x string) (int, string) {
		var body any
		if bodyTmpl != "" {
			body = strings.ReplaceAll(bodyTmpl, "{id}", x)
		}
		r := c.Do(t, method, strings.ReplaceAll(pathTmpl, "{id}", x), body)
		return r.Code, string(r.Body)
	}
	gotCode, gotBody := send(id)
	wantCode, wantBody := send(loupetest.AccessMissing)
	gotBody = strings.ReplaceAll(gotBody, id, loupetest.AccessMissing)
	if gotCode != wantCode || gotBody != wantBody {
		t.Fatalf("%s %s on an invisible target answers %d %s\nwant what a missing id answers: %d %s",
			method, pathTmpl, gotCode, gotBody, wantCode, wantBody)
	}
}

type accRead struct {
	op     string
	path   string
	folder bool // only for folder targets; otherwise for item targets
	all    bool // for every target
}

var accReads = []accRead{
	{op: "GET item", path: "/api/v1/items/{id}", all: true},
	{op: "GET ancestry", path: "/api/v1/items/{id}/ancestry", all: true},
	{op: "GET comments", path: "/api/v1/items/{id}/comments"},
	{op: "GET attachments", path: "/api/v1/items/{id}/attachments"},
	{op: "GET customIcons", path: "/api/v1/items/{id}/customIcons"},
	{op: "GET relations", path: "/api/v1/items/{id}/relations"},
	{op: "GET timedMetadata", path: "/api/v1/items/{id}/timedMetadata"},
	{op: "GET version", path: "/api/v1/items/{id}/version"},
	{op: "GET versionsHistory", path: "/api/v1/items/{id}/versionsHistory"},
	{op: "GET upload", path: "/api/v1/items/{id}/upload"},
	{op: "GET thumbnails", path: "/api/v1/items/{id}/thumbnails/urls"},
	{op: "GET folder", path: "/api/v1/folders/{id}", folder: true},
	{op: "GET content", path: "/api/v1/folders/{id}/content", folder: true},
	{op: "GET metadata", path: "/api/v1/folders/{id}/metadata", folder: true},
}

func TestAccessReadByID(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	rows := 0
	for _, user := range loupetest.AccessUsers {
		c := w.Users[user]
		for _, op := range accReads {
			for _, tg := range loupetest.AccessTargets {
				if !op.all && op.folder != tg.Folder {
					continue
				}
				rows++
				id := w.IDs[tg.Name]
				t.Run(rowName(user, op.op, tg.Name), func(t *testing.T) {
					if tg.VisibleTo(user) {
						c.Get(t, strings.ReplaceAll(op.path, "{id}", id)).Status(200)
						return
					}
					sameAsMissing(t, c, "GET", op.path, "", id)
				})
			}
		}
	}
	t.Logf("%d rows", rows)
}

// TestAccessSubfolderCopiesRules: a subfolder made in a private folder takes
// its parent's rules when it is made, and its creator owns it.
func TestAccessSubfolderCopiesRules(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	var priv, sub, mine folderRecord
	w.Admin().Get(t, "/api/v1/folders/"+w.IDs["priv"]).Status(200).JSON(&priv)
	w.Admin().Get(t, "/api/v1/folders/"+w.IDs["sub"]).Status(200).JSON(&sub)
	t.Run("admin/GET folder/sub copies priv's rules", func(t *testing.T) {
		if fmt.Sprint(sub.VisibleTo, sub.UpdatableBy) != fmt.Sprint(priv.VisibleTo, priv.UpdatableBy) ||
			sub.VisibleTo.Level != "selected_groups" || sub.Owner != w.Admin().UserID {
			t.Fatalf("sub = %+v\npriv = %+v", sub, priv)
		}
	})
	t.Run("owner/POST subfolder/priv copies priv's rules and is the owner's", func(t *testing.T) {
		owner := w.Users["owner"]
		id := owner.CreateItem(t, map[string]any{"title": "mine", "itemType": "folder", "folderParents": []string{w.IDs["priv"]}})
		owner.Get(t, "/api/v1/folders/"+id).Status(200).JSON(&mine)
		if fmt.Sprint(mine.VisibleTo, mine.UpdatableBy) != fmt.Sprint(priv.VisibleTo, priv.UpdatableBy) || mine.Owner != owner.UserID {
			t.Fatalf("owner's subfolder = %+v", mine)
		}
		sameAsMissing(t, w.Users["sales"], "GET", "/api/v1/folders/{id}", "", id)
		w.Users["editor"].Get(t, "/api/v1/folders/"+id).Status(200)
	})
	t.Run("admin/GET folder/openSub keeps its own rules under a private parent", func(t *testing.T) {
		var open folderRecord
		w.Admin().Get(t, "/api/v1/folders/"+w.IDs["openSub"]).Status(200).JSON(&open)
		if open.VisibleTo.Level != "tenant" || open.UpdatableBy.Level != "selected_groups" {
			t.Fatalf("openSub = %+v", open)
		}
	})
}

func pathStrings(paths [][]struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}) []string {
	out := []string{}
	for _, p := range paths {
		ids := []string{}
		for _, e := range p {
			ids = append(ids, e.ID)
		}
		out = append(out, strings.Join(ids, "/"))
	}
	sort.Strings(out)
	return out
}

func TestAccessListsAndCounts(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	itemNames := loupetest.AccessNames(func(tg loupetest.AccessTarget) bool { return !tg.Folder })
	allNames := loupetest.AccessNames(func(loupetest.AccessTarget) bool { return true })
	folderNames := loupetest.AccessNames(func(tg loupetest.AccessTarget) bool { return tg.Folder })
	rows := 0
	run := func(name string, f func(t *testing.T)) {
		rows++
		t.Run(name, f)
	}

	for _, user := range loupetest.AccessUsers {
		c := w.Users[user]

		// Search: the hits and total are the visible items (and folders).
		for _, includeFolders := range []bool{false, true} {
			names, op := itemNames, "GET search"
			if includeFolders {
				names, op = allNames, "GET search includeFolders"
			}
			run(rowName(user, op, "tenant"), func(t *testing.T) {
				q := url.Values{"itemsPerPage": {"100"}, "includeFolders": {fmt.Sprint(includeFolders)}}
				s := search(t, c, q)
				if s.Total != len(s.Embedded.Collection) {
					t.Fatalf("total %d, but %d hits on the only page", s.Total, len(s.Embedded.Collection))
				}
				w.SameIDs(t, "hits", w.FixtureOnly(s.ids()), w.VisibleIDs(user, names))
			})
		}
		for _, f := range folderNames {
			tg := loupetest.AccessTargetNamed(f)
			for _, deep := range []bool{false, true} {
				op := "GET search folderId"
				kids := loupetest.AccessChildren(f)
				if deep {
					op, kids = "GET search folderId includeSubfolders", loupetest.AccessDescendants(f)
				}
				items := []string{}
				for _, k := range kids {
					if !loupetest.AccessTargetNamed(k).Folder {
						items = append(items, k)
					}
				}
				run(rowName(user, op, f), func(t *testing.T) {
					path := "/api/v1/search?itemsPerPage=100&includeSubfolders=" + fmt.Sprint(deep) + "&folderId={id}"
					if !tg.VisibleTo(user) {
						sameAsMissing(t, c, "GET", path, "", w.IDs[f])
						return
					}
					s := search(t, c, url.Values{"itemsPerPage": {"100"}, "folderId": {w.IDs[f]}, "includeSubfolders": {fmt.Sprint(deep)}})
					if s.Total != len(s.Embedded.Collection) {
						t.Fatalf("total %d, but %d hits on the only page", s.Total, len(s.Embedded.Collection))
					}
					w.SameIDs(t, "hits", w.FixtureOnly(s.ids()), w.VisibleIDs(user, items))
				})
			}
		}

		// Poll.
		run(rowName(user, "GET items (poll)", "tenant"), func(t *testing.T) {
			got := []string{}
			for _, it := range poll(t, c, url.Values{}, 100) {
				got = append(got, it.ID)
			}
			var adminSaw []string
			for _, it := range poll(t, w.Admin(), url.Values{}, 100) {
				adminSaw = append(adminSaw, it.ID)
			}
			want := []string{}
			for _, id := range w.FixtureOnly(adminSaw) {
				if slices.Contains(w.VisibleIDs(user, allNames), id) {
					want = append(want, id)
				}
			}
			if user == "other" {
				want = []string{}
			}
			w.SameIDs(t, "polled", w.FixtureOnly(got), want)
		})

		// Folder content: total and hits are the visible children.
		for _, f := range folderNames {
			tg := loupetest.AccessTargetNamed(f)
			run(rowName(user, "GET content hits", f), func(t *testing.T) {
				if !tg.VisibleTo(user) {
					sameAsMissing(t, c, "GET", "/api/v1/folders/{id}/content", "", w.IDs[f])
					return
				}
				var p contentPage
				c.Get(t, "/api/v1/folders/"+w.IDs[f]+"/content?size=1000").Status(200).JSON(&p)
				got := []string{}
				for _, h := range p.Hits {
					got = append(got, h.ID)
				}
				want := w.VisibleIDs(user, loupetest.AccessChildren(f))
				if p.Total != len(want) {
					t.Errorf("total %d, want %d", p.Total, len(want))
				}
				w.SameIDs(t, "hits", got, want)
			})
		}

		// Ancestry of one item, and of every target at once.
		for _, tg := range loupetest.AccessTargets {
			if tg.Folder || !tg.VisibleTo(user) {
				continue // invisible: TestAccessReadByID
			}
			run(rowName(user, "GET ancestry paths", tg.Name), func(t *testing.T) {
				var paths [][]struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				}
				c.Get(t, "/api/v1/items/"+w.IDs[tg.Name]+"/ancestry").Status(200).JSON(&paths)
				if got, want := pathStrings(paths), w.ExpectedPaths(user, tg.Name); !slices.Equal(got, want) {
					t.Fatalf("paths %v, want %v", w.NamesOf(strings.Split(strings.Join(got, "|"), "|")), w.NamesOf(strings.Split(strings.Join(want, "|"), "|")))
				}
			})
		}
		run(rowName(user, "POST folders/ancestry", "all"), func(t *testing.T) {
			ids := []string{}
			for _, n := range allNames {
				ids = append(ids, w.IDs[n])
			}
			var got map[string][][]struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			}
			c.Post(t, "/api/v1/folders/ancestry", map[string]any{"ids": ids}).Status(200).JSON(&got)
			for _, n := range allNames {
				want := []string{}
				if loupetest.AccessTargetNamed(n).VisibleTo(user) {
					want = w.ExpectedPaths(user, n)
				}
				if g := pathStrings(got[w.IDs[n]]); !slices.Equal(g, want) {
					t.Errorf("%s: paths %v, want %v", n, g, want)
				}
			}
		})

		// External ids: an invisible item is not found.
		run(rowName(user, "GET itemsByExternalId", "all"), func(t *testing.T) {
			q := url.Values{}
			for _, n := range itemNames {
				q.Add("externalId", "ext-"+n)
			}
			var res struct {
				Items []struct {
					Status     string  `json:"status"`
					ItemID     *string `json:"itemId"`
					ExternalID string  `json:"externalId"`
				} `json:"items"`
			}
			c.Get(t, "/api/v1/itemsByExternalId?"+q.Encode()).Status(200).JSON(&res)
			if len(res.Items) != len(itemNames) {
				t.Fatalf("%d results, want %d", len(res.Items), len(itemNames))
			}
			for i, n := range itemNames {
				got := res.Items[i]
				visible := user != "other" && loupetest.AccessTargetNamed(n).VisibleTo(user)
				if visible && (got.Status != "success" || got.ItemID == nil || *got.ItemID != w.IDs[n]) ||
					!visible && (got.Status != "notFound" || got.ItemID != nil) {
					t.Errorf("%s: %+v, visible %v", n, got, visible)
				}
			}
		})

		// Audit records of invisible items are hidden from non-admins.
		run(rowName(user, "GET itemAnalyticsSearch", "all"), func(t *testing.T) {
			type hits struct {
				Total int `json:"total"`
				Hits  []struct {
					ItemID string `json:"itemId"`
				} `json:"hits"`
			}
			ids := func(c *loupetest.Client) ([]string, hits) {
				var h hits
				c.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?size=1000").Status(200).JSON(&h)
				out := []string{}
				for _, x := range h.Hits {
					out = append(out, x.ItemID)
				}
				return out, h
			}
			got, h := ids(c)
			if h.Total != len(h.Hits) {
				t.Errorf("total %d, but %d hits on the only page", h.Total, len(h.Hits))
			}
			adminSaw, _ := ids(w.Admin())
			want := []string{}
			for _, id := range w.FixtureOnly(adminSaw) {
				if user != "other" && slices.Contains(w.VisibleIDs(user, allNames), id) {
					want = append(want, id)
				}
			}
			w.SameIDs(t, "audited items", slices.Compact(w.FixtureOnly(got)), slices.Compact(want))
		})
		for _, tg := range loupetest.AccessTargets {
			run(rowName(user, "GET itemAnalyticsSearch itemId", tg.Name), func(t *testing.T) {
				var h struct {
					Total int              `json:"total"`
					Hits  []map[string]any `json:"hits"`
				}
				c.Get(t, "/auxiliary/api/v1/itemAnalyticsSearch?itemId="+w.IDs[tg.Name]).Status(200).JSON(&h)
				if tg.VisibleTo(user) {
					if h.Total == 0 || len(h.Hits) == 0 {
						t.Fatalf("no audit records of a visible target: %+v", h)
					}
					return
				}
				if h.Total != 0 || len(h.Hits) != 0 {
					t.Fatalf("audit records of an invisible target: %+v", h)
				}
			})
		}
	}
	t.Logf("%d rows", rows)
}

// accWrite is a write operation: method, path and body with {id} for the
// target's id.
type accWrite struct {
	op     string
	method string
	path   string
	body   string
	folder bool
	// visibleSuffices: the write needs the target visible, not updatable.
	visibleSuffices bool
	// deleted: the admin moves the target to the recycle bin first.
	deleted bool
}

var accWrites = []accWrite{
	{op: "DELETE item", method: "DELETE", path: "/api/v1/items/{id}"},
	{op: "PUT archive", method: "PUT", path: "/api/v1/items/{id}/archive"},
	{op: "PATCH itemMetadata", method: "PATCH", path: "/api/v1/itemMetadata/{id}",
		body: `{"metadataDelta": {"formData": {"default_description": "changed"}}}`},
	{op: "POST comments", method: "POST", path: "/api/v1/items/{id}/comments", body: `{"text": "hello"}`, visibleSuffices: true},
	{op: "PUT customIcons", method: "PUT", path: "/api/v1/items/{id}/customIcons", body: `{"customIcons": {"pos1": "star"}}`},
	{op: "PATCH customIcons", method: "PATCH", path: "/api/v1/items/{id}/customIcons", body: `{"customIcons": {"pos2": "eye"}}`},
	{op: "PUT timedMetadata", method: "PUT", path: "/api/v1/items/{id}/timedMetadata",
		body: `{"items": {"e1": {"startMs": 0, "endMs": 1000, "data": {"formData": {"note": "x"}}}}}`},

	{op: "POST undelete", method: "POST", path: "/api/v1/items/{id}/undelete", deleted: true},

	{op: "POST undelete folder", method: "POST", path: "/api/v1/items/{id}/undelete", folder: true, deleted: true},
	{op: "POST folder", method: "POST", path: "/api/v1/folders/{id}", body: `{"name": "renamed"}`, folder: true},
	{op: "DELETE folder", method: "DELETE", path: "/api/v1/folders/{id}", folder: true},
	{op: "DELETE item of a folder", method: "DELETE", path: "/api/v1/items/{id}", folder: true},
	{op: "PUT folder metadata", method: "PUT", path: "/api/v1/folders/{id}/metadata",
		body: `{"metadata": {"formData": {"client": "ACME"}}}`, folder: true},
	{op: "POST items into", method: "POST", path: "/api/v1/items",
		body: `{"title": "new", "itemType": "video", "folderParents": ["{id}"]}`, folder: true},
	{op: "POST subfolder into", method: "POST", path: "/api/v1/items",
		body: `{"title": "new", "itemType": "folder", "folderParents": ["{id}"]}`, folder: true},
	{op: "POST folder move into", method: "POST", path: "/api/v1/folders/{mover}",
		body: `{"parent": "{id}"}`, folder: true},
}

// snapshot is what the admin reads about id: the item, its comments and,
// for a folder, the folder and its content.
func accSnapshot(t *testing.T, w *loupetest.AccessWorld, id string, folder bool) string {
	t.Helper()
	a := w.Admin()
	var b bytes.Buffer
	paths := []string{"/api/v1/items/" + id, "/api/v1/items/" + id + "/comments", "/api/v1/items/" + id + "/timedMetadata"}
	if folder {
		paths = append(paths, "/api/v1/folders/"+id, "/api/v1/folders/"+id+"/content?size=1000")
	}
	for _, p := range paths {
		r := a.Get(t, p)
		fmt.Fprintf(&b, "%s %d %s\n", p, r.Code, r.Body)
	}
	return b.String()
}

func TestAccessWrites(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	w := loupetest.NewAccessWorld(t)
	rows := 0
	for _, user := range loupetest.AccessUsers {
		c := w.Users[user]
		for _, op := range accWrites {
			for _, tg := range loupetest.AccessTargets {
				if op.folder != tg.Folder {
					continue
				}
				rows++
				t.Run(rowName(user, op.op, tg.Name), func(t *testing.T) {
					id := w.Fresh(t, tg.Name, "")
					if op.deleted {
						w.Admin().Delete(t, "/api/v1/items/"+id).Status(200)
					}
					path := op.path
					if strings.Contains(path, "{mover}") {
						// A folder the user may change, to move into the target.
						mover := c.CreateItem(t, map[string]any{"title": "mover", "itemType": "folder"})
						path = strings.ReplaceAll(path, "{mover}", mover)
					}
					before := ""
					switch {
					case !tg.VisibleTo(user):
						before = accSnapshot(t, w, id, tg.Folder)
						sameAsMissing(t, c, op.method, path, op.body, id)
						// The id in the path in capitals is the same item,
						// refused alike.
						if strings.Contains(path, "{id}") {
							sameAsMissing(t, c, op.method, path, op.body, strings.ToUpper(id))
						}
					case tg.UpdatableBy(user) || op.visibleSuffices:
						r := c.Do(t, op.method, strings.ReplaceAll(path, "{id}", id), accBody(op.body, id))
						if r.Code != 200 {
							t.Fatalf("%s: %d %s, want 200", op.op, r.Code, r.Body)
						}
						return
					default:
						before = accSnapshot(t, w, id, tg.Folder)
						c.Do(t, op.method, strings.ReplaceAll(path, "{id}", id), accBody(op.body, id)).Envelope(403, "")
						if strings.Contains(path, "{id}") {
							upper := strings.ToUpper(id)
							c.Do(t, op.method, strings.ReplaceAll(path, "{id}", upper), accBody(op.body, upper)).Envelope(403, "")
						}
					}
					if after := accSnapshot(t, w, id, tg.Folder); after != before {
						t.Fatalf("a refused write changed the target:\nbefore %s\nafter  %s", before, after)
					}
				})
			}
		}
	}
	t.Logf("%d rows", rows)
}

func accBody(tmpl, id string) any {
	if tmpl == "" {
		return nil
	}
	return strings.ReplaceAll(tmpl, "{id}", id)
}

// TestAccessWritesLeaveNoTrace: refused writes add no audit record and no
// item.
func TestAccessWritesLeaveNoTrace(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	items := w.API.Count(t, `SELECT count(*) FROM items`)
	audits := w.API.Count(t, `SELECT count(*) FROM audit_records`)
	comments := w.API.Count(t, `SELECT count(*) FROM comments`)
	for _, user := range []string{"editor", "sales", "owner", "other"} {
		c := w.Users[user]
		for _, tg := range loupetest.AccessTargets {
			if tg.UpdatableBy(user) {
				continue
			}
			id := w.IDs[tg.Name]
			t.Run(rowName(user, "refused writes", tg.Name), func(t *testing.T) {
				for _, op := range accWrites {
					if op.folder != tg.Folder || op.visibleSuffices && tg.VisibleTo(user) || strings.Contains(op.path, "{mover}") || op.deleted {
						continue
					}
					c.Do(t, op.method, strings.ReplaceAll(op.path, "{id}", id), accBody(op.body, id))
				}
			})
		}
	}
	if got := w.API.Count(t, `SELECT count(*) FROM items`); got != items {
		t.Errorf("items: %d after refused writes, want %d", got, items)
	}
	if got := w.API.Count(t, `SELECT count(*) FROM audit_records`); got != audits {
		t.Errorf("audit records: %d after refused writes, want %d", got, audits)
	}
	if got := w.API.Count(t, `SELECT count(*) FROM comments`); got != comments {
		t.Errorf("comments: %d after refused writes, want %d", got, comments)
	}
	// And the fixture reads as before for the admin.
	for _, tg := range loupetest.AccessTargets {
		var it map[string]any
		w.Admin().Get(t, "/api/v1/items/"+w.IDs[tg.Name]).Status(200).JSON(&it)
		if it["title"] != "acc "+tg.Name {
			b, _ := json.Marshal(it)
			t.Errorf("%s changed: %s", tg.Name, b)
		}
	}
}

// TestAccessThroughLiveFoldersOnly: a deleted folder no longer makes the
// items that stay (they sit elsewhere too) visible or updatable.
func TestAccessThroughLiveFoldersOnly(t *testing.T) {
	w := loupetest.NewAccessWorld(t)
	a, sales, editor := w.Admin(), w.Users["sales"], w.Users["editor"]
	open := folder(t, a, "open")
	item := a.CreateItem(t, map[string]any{"title": "in priv and open", "itemType": "video",
		"folderParents": []string{w.IDs["priv"], open}})
	t.Run("sales/GET item/in priv and a tenant folder", func(t *testing.T) {
		sales.Get(t, "/api/v1/items/"+item).Status(200)
	})
	t.Run("editor/PATCH itemMetadata/in priv and a tenant folder", func(t *testing.T) {
		editor.Patch(t, "/api/v1/itemMetadata/"+item, map[string]any{"metadataDelta": map[string]any{
			"formData": map[string]any{"default_description": "by editor"}}}).Status(200)
	})
	a.Delete(t, "/api/v1/folders/"+open).Status(200)
	a.Get(t, "/api/v1/items/"+item).Status(200) // it stays: it sits in priv too
	t.Run("sales/GET item/in priv and a deleted tenant folder", func(t *testing.T) {
		sameAsMissing(t, sales, "GET", "/api/v1/items/{id}", "", item)
	})
	t.Run("sales/GET search/in priv and a deleted tenant folder", func(t *testing.T) {
		s := search(t, sales, url.Values{"itemsPerPage": {"100"}})
		if slices.Contains(s.ids(), item) {
			t.Fatalf("search shows it: %v", s.ids())
		}
	})
	t.Run("editor/PATCH itemMetadata/in priv and a deleted tenant folder", func(t *testing.T) {
		editor.Patch(t, "/api/v1/itemMetadata/"+item, map[string]any{"metadataDelta": map[string]any{
			"formData": map[string]any{"default_description": "again"}}}).Envelope(403, "")
	})
	t.Run("owner/PATCH itemMetadata/in priv and a deleted tenant folder", func(t *testing.T) {
		w.Users["owner"].Patch(t, "/api/v1/itemMetadata/"+item, map[string]any{"metadataDelta": map[string]any{
			"formData": map[string]any{"default_description": "owner's"}}}).Status(200)
	})
	// Undeleting the folder brings the way back.
	a.Post(t, "/api/v1/items/"+open+"/undelete", nil).Status(200)
	t.Run("sales/GET item/in priv and an undeleted tenant folder", func(t *testing.T) {
		sales.Get(t, "/api/v1/items/"+item).Status(200)
	})
}
