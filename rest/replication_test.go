package rest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/store"
)

const (
	replicationPath = "/prime/api/v1/replication"
	transfersPath   = "/auxiliary/api/v1/transfers"
)

// rsource is a replication source body.
func rsource(to string, extra map[string]any) map[string]any {
	b := map[string]any{"name": "Backup", "scope": map[string]any{"type": "tenant"}, "toLocationId": to,
		"media": []any{"original"}}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// replicationState is what GET /prime/api/v1/replication answers, as text.
func replicationState(t *testing.T, a *loupetest.Client) string {
	t.Helper()
	return string(a.Get(t, replicationPath).Status(http.StatusOK).Body)
}

// Writing the set of sources: validation that names the field and changes
// nothing, ids kept on a replace, the set replaced as a whole, admins
// only, and other tenants' ids answering like missing ones.
func TestReplicationSourcesPut(t *testing.T) {
	cfg := s3test.Bucket(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	loc := a.Post(t, slPath, slBody(cfg, nil)).Status(http.StatusOK).Object()["id"].(string)
	folder := a.CreateItem(t, map[string]any{"title": "Rushes", "itemType": "folder"})

	if got := replicationState(t, a); got != `{"sources":[]}` {
		t.Fatalf("empty: %s", got)
	}
	// The spec's 400 without a body.
	a.Put(t, replicationPath, "").Envelope(http.StatusBadRequest, loupe.MsgMissingReplicationBody)

	first := a.Put(t, replicationPath, map[string]any{"sources": []any{
		rsource(loc, map[string]any{"name": "Everything"}),
		rsource(loc, map[string]any{"name": "Rushes", "scope": map[string]any{"type": "folder", "folderId": folder},
			"mode": "move", "triggers": map[string]any{"onIngest": true, "intervalMinutes": 60}}),
	}}).Status(http.StatusOK).Object()["sources"].([]any)
	if len(first) != 2 {
		t.Fatalf("sources: %v", first)
	}
	everything, rushes := first[0].(map[string]any), first[1].(map[string]any)
	want := map[string]any{"name": "Rushes", "scope": map[string]any{"type": "folder", "folderId": folder},
		"fromLocationId": nil, "toLocationId": loc, "media": []any{"original"}, "mode": "move",
		"triggers": map[string]any{"onIngest": true, "intervalMinutes": 60.0}, "maxBytesPerSecond": 0.0, "enabled": true,
		"lastRunOn": nil, "runRequestedOn": nil,
		"transferCounts": map[string]any{"queued": 0.0, "copying": 0.0, "verifying": 0.0, "complete": 0.0, "failed": 0.0}}
	for k, v := range want {
		if !reflect.DeepEqual(rushes[k], v) {
			t.Errorf("%s = %v, want %v", k, rushes[k], v)
		}
	}
	if next, _ := time.Parse(time.RFC3339, rushes["nextRunOn"].(string)); next.Before(time.Now().Add(59 * time.Minute)) {
		t.Errorf("nextRunOn %v is not an hour from now", rushes["nextRunOn"])
	}
	if everything["nextRunOn"] != nil {
		t.Errorf("a source without a schedule has nextRunOn %v", everything["nextRunOn"])
	}
	before := replicationState(t, a)

	// Each bad source is refused with its field named, and nothing changes.
	other := api.Tenant(t, "b")
	otherLoc := other.Post(t, slPath, slBody(s3test.Bucket(t), nil)).Status(http.StatusOK).Object()["id"].(string)
	otherSrc := other.Put(t, replicationPath, map[string]any{"sources": []any{rsource(otherLoc, nil)}}).
		Status(http.StatusOK).Object()["sources"].([]any)[0].(map[string]any)["id"].(string)
	bad := []struct {
		name  string
		body  any
		field string
	}{
		{"empty object", map[string]any{}, "sources"},
		{"sources not a list", map[string]any{"sources": "x"}, "sources"},
		{"no name", map[string]any{"sources": []any{rsource(loc, map[string]any{"name": nil})}}, "sources[0].name"},
		{"long name", map[string]any{"sources": []any{rsource(loc, map[string]any{"name": strings.Repeat("n", 201)})}}, "sources[0].name"},
		{"no scope", map[string]any{"sources": []any{rsource(loc, map[string]any{"scope": nil})}}, "sources[0].scope.type"},
		{"bad scope type", map[string]any{"sources": []any{rsource(loc, map[string]any{"scope": map[string]any{"type": "bucket"}})}}, "sources[0].scope.type"},
		{"folder scope without folder", map[string]any{"sources": []any{rsource(loc, map[string]any{"scope": map[string]any{"type": "folder"}})}}, "sources[0].scope.folderId"},
		{"folder of no one", map[string]any{"sources": []any{rsource(loc, map[string]any{"scope": map[string]any{"type": "folder", "folderId": loupetestID}})}}, "sources[0].scope.folderId"},
		{"item that is no folder", map[string]any{"sources": []any{rsource(loc, map[string]any{"scope": map[string]any{"type": "folder",
			"folderId": a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})}})}}, "sources[0].scope.folderId"},
		{"no destination", map[string]any{"sources": []any{rsource(loc, map[string]any{"toLocationId": nil})}}, "sources[0].toLocationId"},
		{"destination of another tenant", map[string]any{"sources": []any{rsource(otherLoc, nil)}}, "sources[0].toLocationId"},
		{"destination malformed", map[string]any{"sources": []any{rsource("nope", nil)}}, "sources[0].toLocationId"},
		{"same place", map[string]any{"sources": []any{rsource(loc, map[string]any{"fromLocationId": loc})}}, "sources[0].toLocationId"},
		{"source of another tenant", map[string]any{"sources": []any{rsource(loc, map[string]any{"fromLocationId": otherLoc})}}, "sources[0].fromLocationId"},
		{"no media", map[string]any{"sources": []any{rsource(loc, map[string]any{"media": []any{}})}}, "sources[0].media"},
		{"bad media", map[string]any{"sources": []any{rsource(loc, map[string]any{"media": []any{"proxy"}})}}, "sources[0].media[0]"},
		{"media twice", map[string]any{"sources": []any{rsource(loc, map[string]any{"media": []any{"original", "original"}})}}, "sources[0].media[1]"},
		{"bad mode", map[string]any{"sources": []any{rsource(loc, map[string]any{"mode": "mirror"})}}, "sources[0].mode"},
		{"move of generated", map[string]any{"sources": []any{rsource(loc, map[string]any{"mode": "move", "media": []any{"original", "generated"}})}}, "sources[0].mode"},
		{"generated from a location", map[string]any{"sources": []any{rsource(loc, map[string]any{"media": []any{"generated"},
			"fromLocationId": otherLoc})}}, "sources[0].fromLocationId"},
		{"interval zero", map[string]any{"sources": []any{rsource(loc, map[string]any{"triggers": map[string]any{"intervalMinutes": 0}})}}, "sources[0].triggers.intervalMinutes"},
		{"tiny bandwidth", map[string]any{"sources": []any{rsource(loc, map[string]any{"maxBytesPerSecond": 10})}}, "sources[0].maxBytesPerSecond"},
		{"second source bad", map[string]any{"sources": []any{rsource(loc, nil), rsource(loc, map[string]any{"mode": "x"})}}, "sources[1].mode"},
		{"id of another tenant's source", map[string]any{"sources": []any{rsource(loc, map[string]any{"id": otherSrc})}}, "sources[0].id"},
		{"id twice", map[string]any{"sources": []any{rsource(loc, map[string]any{"id": rushes["id"]}),
			rsource(loc, map[string]any{"id": rushes["id"]})}}, "sources[1].id"},
		{"run of another tenant's source", map[string]any{"run": []any{otherSrc}}, "run[0]"},
		{"run malformed", map[string]any{"run": []any{"x"}}, "run[0]"},
		{"unknown key", map[string]any{"sources": []any{rsource(loc, map[string]any{"colour": "red"})}}, "colour"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			env := a.Put(t, replicationPath, c.body).Envelope(http.StatusBadRequest, "")
			msg, _ := env["message"].(string)
			if !strings.Contains(msg+" "+toString(env["developerMessage"]), c.field) {
				t.Errorf("400 %q does not name %s", msg, c.field)
			}
			if got := replicationState(t, a); got != before {
				t.Errorf("a refused write changed the sources:\n%s\n%s", before, got)
			}
		})
	}
	if got := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'replication_run'`); got != 0 {
		t.Fatalf("refused writes asked for %d runs", got)
	}

	// A replace keeps the ids given (and their createdOn), adds the new
	// one and deletes the one left out; the other tenant's set is its own.
	time.Sleep(10 * time.Millisecond)
	kept := rsource(loc, map[string]any{"id": rushes["id"], "name": "Rushes (copy)", "scope": rushes["scope"],
		"createdOn": rushes["createdOn"], "transferCounts": rushes["transferCounts"]}) // read-only keys sent back
	second := a.Put(t, replicationPath, map[string]any{"sources": []any{rsource(loc, map[string]any{"name": "New"}), kept}}).
		Status(http.StatusOK).Object()["sources"].([]any)
	if len(second) != 2 {
		t.Fatalf("after replace: %v", second)
	}
	n, k := second[0].(map[string]any), second[1].(map[string]any)
	if k["id"] != rushes["id"] || k["createdOn"] != rushes["createdOn"] || k["name"] != "Rushes (copy)" || k["mode"] != "copy" ||
		k["modifiedOn"] == rushes["modifiedOn"] {
		t.Errorf("replaced source: %v (was %v)", k, rushes)
	}
	if n["id"] == everything["id"] || n["id"] == rushes["id"] {
		t.Errorf("the new source took an old id: %v", n)
	}
	if got := replicationState(t, a); !strings.Contains(got, n["id"].(string)) || strings.Contains(got, everything["id"].(string)) {
		t.Errorf("GET after replace: %s", got)
	}
	if got := other.Get(t, replicationPath).Status(http.StatusOK).Body; !bytes.Contains(got, []byte(otherSrc)) ||
		bytes.Contains(got, []byte(n["id"].(string))) {
		t.Errorf("the other tenant sees %s", got)
	}

	// GraphQL: the same resolvers; another tenant's source is null / 404.
	var g struct {
		Replication struct{ Sources []struct{ ID string } }
		Source      *struct{ ID string } `json:"replicationSource"`
	}
	a.GraphQL(t, `query($id: ID!) { replication { sources { id } } replicationSource(id: $id) { id } }`,
		map[string]any{"id": otherSrc}).OK(&g)
	if len(g.Replication.Sources) != 2 || g.Source != nil {
		t.Errorf("graphql: %+v", g)
	}
	a.GraphQL(t, `mutation($id: ID!) { runReplicationSource(id: $id) { id } }`, map[string]any{"id": otherSrc}).ErrorCode("NOT_FOUND")

	// Admins only.
	u := a.User(t, "user@a.test", nil, false)
	u.Get(t, replicationPath).Envelope(http.StatusForbidden, "Only administrators may read and change replication sources and read transfers.")
	u.Put(t, replicationPath, map[string]any{"sources": []any{}}).Status(http.StatusForbidden)
	u.Get(t, transfersPath).Status(http.StatusForbidden)
	if got := replicationState(t, a); !strings.Contains(got, n["id"].(string)) {
		t.Errorf("a user's PUT changed the sources: %s", got)
	}

	// A schedule that is due runs: the scheduler asks for the run and moves
	// the next one on by the interval.
	sched := a.Put(t, replicationPath, map[string]any{"sources": []any{rsource(loc, map[string]any{
		"triggers": map[string]any{"intervalMinutes": 30}})}}).Status(http.StatusOK).Object()["sources"].([]any)[0].(map[string]any)
	if _, err := api.DB.Exec(`UPDATE replication_sources SET next_run_on = now() - interval '1 second' WHERE id = $1`, sched["id"]); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var got struct {
			Sources []struct {
				LastRunOn *time.Time `json:"lastRunOn"`
				NextRunOn time.Time  `json:"nextRunOn"`
			} `json:"sources"`
		}
		a.Get(t, replicationPath).Status(http.StatusOK).JSON(&got)
		if s := got.Sources[0]; s.LastRunOn != nil {
			if d := s.NextRunOn.Sub(*s.LastRunOn); d < 29*time.Minute || d > 31*time.Minute {
				t.Errorf("after a scheduled run the next is %v later", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the due schedule did not run")
		}
	}

	// An empty set deletes them all.
	a.Put(t, replicationPath, map[string]any{"sources": []any{}}).Status(http.StatusOK)
	if got := replicationState(t, a); got != `{"sources":[]}` {
		t.Errorf("after an empty set: %s", got)
	}

	// The spec's absent paths stay absent.
	for _, c := range []struct{ method, path string }{{"GET", "/api/v1/replication"}, {"GET", "/api/v1/replication/feed"},
		{"GET", "/api/v1/transferRequests"}, {"GET", "/prime/api/v1/transfers"}, {"POST", "/prime/api/v1/transfers"}} {
		a.Do(t, c.method, c.path, nil).Envelope(http.StatusNotFound, "The server can not find requested resource.")
	}
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}

// transfersOf lists a source's transfers through REST until all have
// ended, and answers them.
func transfersOf(t *testing.T, a *loupetest.Client, sourceID string, want int) []*store.Transfer {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var page struct {
			Transfers []map[string]any `json:"transfers"`
			NextToken string           `json:"nextToken"`
		}
		a.Get(t, transfersPath+"?sourceId="+sourceID+"&size=1000").Status(http.StatusOK).JSON(&page)
		ended := 0
		for _, tr := range page.Transfers {
			if st := tr["state"]; st == "complete" || st == "failed" {
				ended++
			}
		}
		if len(page.Transfers) >= want && ended == len(page.Transfers) {
			out := make([]*store.Transfer, len(page.Transfers))
			for i, tr := range page.Transfers {
				b, _ := json.Marshal(tr)
				var x struct {
					store.Transfer
					From loupe.TransferEnd `json:"from"`
					To   loupe.TransferEnd `json:"to"`
					Err  *string           `json:"error"`
				}
				json.Unmarshal(b, &x) //nolint:errcheck // checked by use
				x.Transfer.FromKey, x.Transfer.ToKey = x.From.Key, x.To.Key
				x.Transfer.FromLocationID, x.Transfer.ToLocationID = x.From.LocationID, *x.To.LocationID
				if x.Err != nil {
					x.Transfer.ErrorLog = loupe.JSONOf([]loupe.TransferError{{Message: *x.Err}})
				}
				out[i] = &x.Transfer
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("transfers of %s: %v", sourceID, page.Transfers)
		}
	}
}

// object reads an object of a bucket.
func object(t *testing.T, cfg blob.S3Config, key string) []byte {
	t.Helper()
	out, err := s3test.Start(t).Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("%s/%s: %v", cfg.Bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexSHA(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// randomBytes are n bytes no codec makes sense of (processing fails fast).
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// itemSource answers an item's sourceFileLocation.
func itemSource(t *testing.T, a *loupetest.Client, id string) string {
	t.Helper()
	var g struct {
		Item struct {
			SourceFileLocation string `json:"sourceFileLocation"`
		} `json:"item"`
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { sourceFileLocation } }`, map[string]any{"id": id}).OK(&g)
	return g.Item.SourceFileLocation
}

// A folder (at any depth) moved from Loupe's store to a bucket, then
// copied from that bucket to another: every file arrives with its SHA-256,
// a move points the items at the copy and deletes the source, a copy
// leaves both, items outside the folder stay, and a source whose bytes are
// not the item's recorded SHA-256 is neither copied nor deleted.
func TestReplicateFolderMoveThenCopyBetweenBuckets(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	cfgA, cfgB := s3test.Bucket(t), s3test.Bucket(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	locA := a.Post(t, slPath, slBody(cfgA, map[string]any{"name": "A"})).Status(http.StatusOK).Object()["id"].(string)
	locB := a.Post(t, slPath, slBody(cfgB, map[string]any{"name": "B", "pathPrefix": "replica"})).Status(http.StatusOK).Object()["id"].(string)

	root := a.CreateItem(t, map[string]any{"title": "Rushes", "itemType": "folder"})
	sub := a.CreateItem(t, map[string]any{"title": "Day 1", "itemType": "folder", "folderParents": []string{root}})
	inRoot := a.CreateItem(t, map[string]any{"title": "A", "itemType": "video", "folderParents": []string{root}})
	deep := a.CreateItem(t, map[string]any{"title": "B", "itemType": "video", "folderParents": []string{sub}})
	outside := a.CreateItem(t, map[string]any{"title": "C", "itemType": "video"})
	tampered := a.CreateItem(t, map[string]any{"title": "D", "itemType": "video", "folderParents": []string{sub}})
	data := map[string][]byte{
		inRoot:   randomBytes(t, 200<<10),
		deep:     randomBytes(t, 11<<20), // multipart: two parts of 8 MiB
		outside:  randomBytes(t, 100<<10),
		tampered: randomBytes(t, 150<<10),
	}
	for id, b := range data {
		withOriginal(t, api, a, id, "clip.bin", b)
	}
	waitJobsDone(t, api) // processing, which a move must not race here
	before := map[string]string{}
	for id := range data {
		before[id] = itemSource(t, a, id)
	}
	// The tampered item's original changes behind Loupe's back: its
	// recorded mediaSha256 no longer holds.
	key, _ := loupe.FileKey(before[tampered])
	if _, err := api.Files.Put(context.Background(), key, bytes.NewReader(randomBytes(t, 150<<10))); err != nil {
		t.Fatal(err)
	}

	// Move: Loupe's store → A.
	move := a.Put(t, replicationPath, map[string]any{"sources": []any{rsource(locA, map[string]any{
		"name": "Move rushes", "mode": "move", "scope": map[string]any{"type": "folder", "folderId": root}})}}).
		Status(http.StatusOK).Object()["sources"].([]any)[0].(map[string]any)["id"].(string)
	a.Put(t, replicationPath, map[string]any{"run": []any{move}}).Status(http.StatusOK)
	moved := transfersOf(t, a, move, 3)
	if len(moved) != 3 {
		t.Fatalf("%d transfers, want 3 (the items of the folder at any depth): %+v", len(moved), moved)
	}
	for _, tr := range moved {
		src := before[tr.ItemID]
		if tr.ItemID == tampered {
			if tr.State != loupe.TransferFailed || !strings.Contains(*tr.Error(), "SHA-256") {
				t.Errorf("tampered: %+v %v", tr, tr.Error())
			}
			if itemSource(t, a, tampered) != src {
				t.Errorf("the tampered item was switched")
			}
			if _, err := api.Files.Stat(context.Background(), key); err != nil {
				t.Errorf("the tampered source was deleted before a verified copy: %v", err)
			}
			if _, err := s3test.Start(t).Client().HeadObject(context.Background(), &s3.HeadObjectInput{
				Bucket: aws.String(cfgA.Bucket), Key: aws.String(tr.ToKey)}); err == nil {
				t.Errorf("the unverified copy of the tampered item stayed in the bucket")
			}
			continue
		}
		want := hexSHA(data[tr.ItemID])
		if tr.State != loupe.TransferComplete || tr.SHA256 != want || tr.ExpectedSHA256 != want ||
			*tr.TotalBytes != int64(len(data[tr.ItemID])) || tr.BytesDone != *tr.TotalBytes {
			t.Errorf("transfer of %s: %+v", tr.ItemID, tr)
		}
		if got := hexSHA(object(t, cfgA, tr.ToKey)); got != want {
			t.Errorf("%s in A has SHA-256 %s, want %s", tr.ToKey, got, want)
		}
		if got, want := itemSource(t, a, tr.ItemID), loupe.StorageLocationFile(locA, tr.ToKey); got != want {
			t.Errorf("item %s points at %s, want %s", tr.ItemID, got, want)
		}
		k, _ := loupe.FileKey(src)
		if _, err := api.Files.Stat(context.Background(), k); err == nil {
			t.Errorf("the source of a verified move is still in Loupe's store: %s", k)
		}
		if tr.ItemID == deep && (tr.PartSize == nil || *tr.PartSize != 8<<20) {
			t.Errorf("the 11 MiB file was not copied in parts: %+v", tr)
		}
	}
	if got := itemSource(t, a, outside); got != before[outside] {
		t.Errorf("an item outside the folder moved: %s", got)
	}

	// Copy: A → B, the whole tenant (what lies in A: the two moved).
	a.Put(t, replicationPath, map[string]any{"sources": []any{rsource(locB, map[string]any{"name": "Replica",
		"fromLocationId": locA})}}).Status(http.StatusOK)
	var g struct {
		Replication struct{ Sources []struct{ ID string } }
	}
	a.GraphQL(t, `{ replication { sources { id } } }`, nil).OK(&g)
	copySrc := g.Replication.Sources[0].ID
	a.GraphQL(t, `mutation($id: ID!) { runReplicationSource(id: $id) { runRequestedOn } }`, map[string]any{"id": copySrc}).OK(nil)
	copied := transfersOf(t, a, copySrc, 2)
	if len(copied) != 2 {
		t.Fatalf("%d copies, want 2: %+v", len(copied), copied)
	}
	for _, tr := range copied {
		want := hexSHA(data[tr.ItemID])
		if tr.State != loupe.TransferComplete || tr.SHA256 != want || !strings.HasPrefix(tr.ToKey, "replica/") {
			t.Errorf("copy of %s: %+v", tr.ItemID, tr)
		}
		if got := hexSHA(object(t, cfgB, tr.ToKey)); got != want {
			t.Errorf("%s in B has SHA-256 %s, want %s", tr.ToKey, got, want)
		}
		if got := hexSHA(object(t, cfgA, tr.FromKey)); got != want {
			t.Errorf("a copy removed or changed its source %s", tr.FromKey)
		}
		if got := itemSource(t, a, tr.ItemID); got != loupe.StorageLocationFile(locA, tr.FromKey) {
			t.Errorf("a copy switched item %s to %s", tr.ItemID, got)
		}
	}
	// Running it again copies nothing twice.
	a.GraphQL(t, `mutation($id: ID!) { runReplicationSource(id: $id) { id } }`, map[string]any{"id": copySrc}).OK(nil)
	time.Sleep(2 * time.Second)
	if again := transfersOf(t, a, copySrc, 2); len(again) != 2 {
		t.Errorf("a second run made %d transfers", len(again)-2)
	}

	// GraphQL's listing, filtered, with nested fields.
	var list struct {
		Transfers struct {
			Nodes []struct {
				State  string
				Source struct{ Name string }
				Item   struct{ Title string }
			}
			PageInfo struct{ HasNextPage bool }
		}
	}
	a.GraphQL(t, `{ transfers(first: 10, filter: {state: [failed]}) { nodes { state source { name } item { title } } pageInfo { hasNextPage } } }`, nil).OK(&list)
	if len(list.Transfers.Nodes) != 1 || list.Transfers.Nodes[0].Item.Title != "D" || list.Transfers.Nodes[0].Source.Name != "" {
		t.Errorf("failed transfers: %+v", list.Transfers)
	}
	// Keyset pages: one at a time, every transfer once.
	seen := map[string]bool{}
	for after := ""; ; {
		var page struct {
			Transfers []struct{ ID string } `json:"transfers"`
			NextToken string                `json:"nextToken"`
		}
		a.Get(t, transfersPath+"?size=2&nextToken="+after).Status(http.StatusOK).JSON(&page)
		for _, tr := range page.Transfers {
			if seen[tr.ID] {
				t.Fatalf("transfer %s twice", tr.ID)
			}
			seen[tr.ID] = true
		}
		if after = page.NextToken; after == "" {
			break
		}
	}
	if len(seen) != 5 {
		t.Errorf("paged through %d transfers, want 5", len(seen))
	}
	// Nested fields are batched: a page of 5 costs the statements of a
	// page of 1.
	count := func(first int) int64 {
		before := api.Statements.Count()
		a.GraphQL(t, `query($n: Int) { transfers(first: $n) { nodes { id source { name transferCounts { complete } } item { title } } } }`,
			map[string]any{"n": first}).OK(nil)
		return api.Statements.Count() - before
	}
	if one, five := count(1), count(5); one != five {
		t.Errorf("a page of 1 transfer costs %d statements, a page of 5 %d", one, five)
	}
	// Another tenant sees none of them.
	b := api.Tenant(t, "b")
	if got := b.Get(t, transfersPath).Status(http.StatusOK).Body; string(got) != `{"transfers":[],"nextToken":""}` {
		t.Errorf("other tenant: %s", got)
	}
	var one struct{ Transfer *struct{ ID string } }
	b.GraphQL(t, `query($id: ID!) { transfer(id: $id) { id } }`, map[string]any{"id": copied[0].ID}).OK(&one)
	if one.Transfer != nil {
		t.Errorf("another tenant reads transfer %s", copied[0].ID)
	}
}

// A source with the ingest trigger copies an original when it arrives, and
// the item's generated media once processing made it: every generated file
// lands in the bucket with the SHA-256 it has in Loupe's store.
func TestReplicateOnIngestWithGeneratedMedia(t *testing.T) {
	t.Parallel() // long and self-contained: runs beside the other long ones (main_test.go)
	mediatest.Need(t)
	cfg := s3test.Bucket(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	loc := a.Post(t, slPath, slBody(cfg, nil)).Status(http.StatusOK).Object()["id"].(string)
	src := a.Put(t, replicationPath, map[string]any{"sources": []any{rsource(loc, map[string]any{
		"media": []any{"original", "generated"}, "triggers": map[string]any{"onIngest": true}})}}).
		Status(http.StatusOK).Object()["sources"].([]any)[0].(map[string]any)["id"].(string)

	item := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	clip := tinyClip(t)
	withOriginal(t, api, a, item, "clip.mp4", clip)
	if it := waitState(t, api, a, item, nil, "complete", "failed"); it["transcodingState"] != "complete" {
		t.Fatalf("processing: %v", it["progressInfo"])
	}
	var generated []blob.Object
	page, _, err := api.Files.List(context.Background(), store.GeneratedPrefix(a.TenantID, item), "", 1000)
	if err != nil || len(page) == 0 {
		t.Fatalf("generated media: %v %v", page, err)
	}
	generated = page
	trs := transfersOf(t, a, src, len(generated)+1)
	byKey := map[string]*store.Transfer{}
	for _, tr := range trs {
		byKey[tr.FromKey] = tr
	}
	origKey, _ := loupe.FileKey(itemSource(t, a, item))
	if tr := byKey[origKey]; tr == nil || tr.State != loupe.TransferComplete || tr.SHA256 != hexSHA(clip) ||
		hexSHA(object(t, cfg, tr.ToKey)) != hexSHA(clip) {
		t.Errorf("the original: %+v", tr)
	}
	for _, o := range generated {
		rc, _, _, err := api.Files.Open(context.Background(), o.Key)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		tr := byKey[o.Key]
		if tr == nil || tr.State != loupe.TransferComplete || tr.Media != "generated" || tr.Mode != "copy" {
			t.Errorf("generated %s: %+v", o.Key, tr)
			continue
		}
		if got := hexSHA(object(t, cfg, tr.ToKey)); got != hexSHA(b) || tr.SHA256 != got {
			t.Errorf("generated %s arrived as %s, want %s", o.Key, got, hexSHA(b))
		}
	}
}

// tinyClip is a second of H.264 video with sound.
func tinyClip(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "clip.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
		"testsrc2=size=160x120:rate=10:duration=1", "-f", "lavfi", "-i", "sine=duration=1", "-c:v", "libx264",
		"-preset", "ultrafast", "-c:a", "aac", "-shortest", p).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The speed of a transfer (Loupe's store on disk → a bucket, verification
// included) against the AWS SDK's transfer manager uploading the same file
// to the same server directly. A measurement, not a check of the code:
// LOUPE_BENCH_REPLICATION=1 runs it (docs/replication.md, "Speed").
func TestTransferSpeedAgainstSDK(t *testing.T) {
	if os.Getenv("LOUPE_BENCH_REPLICATION") == "" {
		t.Skip("a measurement: LOUPE_BENCH_REPLICATION=1 runs it")
	}
	cfg := s3test.Bucket(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	loc := a.Post(t, slPath, slBody(cfg, nil)).Status(http.StatusOK).Object()["id"].(string)
	item := a.CreateItem(t, map[string]any{"title": "Big", "itemType": "video"})
	data := randomBytes(t, 128<<20)
	withOriginal(t, api, a, item, "big.bin", data)
	waitJobsDone(t, api)

	// The SDK, directly: the file from disk to the bucket.
	key, _ := loupe.FileKey(itemSource(t, a, item))
	direct, err := blob.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc, size, _, err := api.Files.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := direct.Put(context.Background(), "direct/big.bin", rc, blob.WithSize(size)); err != nil {
		t.Fatal(err)
	}
	sdk := time.Since(start)
	rc.Close()

	src := a.Put(t, replicationPath, map[string]any{"sources": []any{rsource(loc, nil)}}).
		Status(http.StatusOK).Object()["sources"].([]any)[0].(map[string]any)["id"].(string)
	a.Put(t, replicationPath, map[string]any{"run": []any{src}}).Status(http.StatusOK)
	tr := transfersOf(t, a, src, 1)[0]
	if tr.State != loupe.TransferComplete || tr.SHA256 != hexSHA(data) {
		t.Fatalf("transfer: %+v", tr)
	}
	took := tr.FinishedOn.Sub(*tr.StartedOn)
	mb := float64(size) / (1 << 20)
	t.Logf("128 MiB: SDK direct %v (%.0f MiB/s); transfer %v (%.0f MiB/s, copy phase %.0f MiB/s), %.2f× the SDK",
		sdk.Round(time.Millisecond), mb/sdk.Seconds(), took.Round(time.Millisecond), mb/took.Seconds(),
		*tr.BytesPerSecond/(1<<20), sdk.Seconds()/took.Seconds())
}
