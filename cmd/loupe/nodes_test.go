package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/loupe-mam/loupe/internal/storage/upload/tusclient"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/pgbouncertest"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/store"
)

// Several nodes on one database (docs/scaling.md, "Several nodes"), their
// request pools through a real PgBouncer in transaction mode.

// Behind PgBouncer in transaction mode, statements prepared by name break
// (a client's next statement may reach another server connection, and
// two clients' statement "1" may meet on one), which is why
// LOUPE_DATABASE_POOLER=transaction sends them unnamed: the same store
// calls, concurrently through the pooler, fail with named statements and
// all succeed without.
func TestTransactionPoolerNeedsUnnamedStatements(t *testing.T) {
	direct := pgtest.DB(t)
	pooled := pgbouncertest.New(t, direct).URL(direct)
	hammer := func(st *store.Store) (failed int, first error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 100 {
					_, err := st.CountTenants(context.Background())
					if err == nil {
						continue
					}
					mu.Lock()
					if failed++; first == nil {
						first = err
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return failed, first
	}
	open := func() *store.Store {
		db, err := store.Open(pooled, 8)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return store.New(db)
	}

	named := open()
	failed, first := hammer(named)
	if failed == 0 {
		t.Fatal("800 reads by named prepared statements through PgBouncer all succeeded: the pooler is not pooling by transaction")
	}
	t.Logf("named prepared statements through PgBouncer: %d of 800 failed, first: %v", failed, first)

	unnamed := open()
	unnamed.UnderTransactionPooler()
	if failed, first := hammer(unnamed); failed > 0 {
		t.Fatalf("unnamed statements through PgBouncer: %d of 800 failed, first: %v", failed, first)
	}
}

// Two `loupe serve` nodes on one database, their requests and job queues
// through PgBouncer in transaction mode (LOUPE_DATABASE_POOLER=transaction),
// their LISTEN connections and migrations on the database itself
// (LOUPE_DATABASE_DIRECT_URL): what one node changes, the other answers at
// once — a metadata write read back, a key deleted refused — and a job one
// node asks for, the other works.
func TestNodesShareOneDatabaseThroughPgBouncer(t *testing.T) {
	direct := pgtest.DB(t)
	pooled := pgbouncertest.New(t, direct).URL(direct)
	t.Setenv("DATABASE_URL", pooled)
	env := nodeEnv(t, "LOUPE_DATABASE_POOLER=transaction", "LOUPE_DATABASE_DIRECT_URL="+direct, "LOUPE_METRICS_ADDR=off")
	key := tenantKey(t, "nodes") // `loupe tenant create`, through the pooler too

	// A only serves the API (LOUPE_WORKERS=-1): the jobs it asks for can
	// only be worked by B.
	a := startNode(t, append(env, "LOUPE_WORKERS=-1", "LOUPE_INSTANCE_ID=node-a"), "127.0.0.1:"+strconv.Itoa(freePort(t)))
	b := startNode(t, append(env, "LOUPE_INSTANCE_ID=node-b"), "127.0.0.1:"+strconv.Itoa(freePort(t)))

	t.Run("metadata written on A is read on B at once", func(t *testing.T) {
		var item struct{ ID string }
		restCall(t, a.base, key, "POST", "/api/v1/items",
			`{"title":"Interview","itemType":"video","metadata":{"formData":{"default_description":"raw"}}}`, 200, &item)
		for v := 1; v <= 20; v++ {
			want := fmt.Sprintf("take %d", v)
			restCall(t, a.base, key, "PATCH", fmt.Sprintf("/api/v1/itemMetadata/%s?requiredMetadataVersion=%d", item.ID, v),
				`{"metadataDelta":{"formData":{"default_description":"`+want+`"}}}`, 200, nil)
			var got struct {
				MetadataVersion int
				Metadata        struct{ FormData map[string]any }
			}
			restCall(t, b.base, key, "GET", "/api/v1/items/"+item.ID, "", 200, &got)
			if got.MetadataVersion != v+1 || got.Metadata.FormData["default_description"] != want {
				t.Fatalf("after write %d on A, B read version %d, %v", v, got.MetadataVersion, got.Metadata.FormData)
			}
		}
	})

	// Both nodes cache (keys, forms) once registered in cache_nodes.
	waitCaching(t, direct, "node-a", "node-b")

	// B's key cache hears of a deletion on A through the loupe_auth
	// notification, and A does not answer the DELETE until B has applied
	// it (internal/coherence): B refuses the key at its very next request,
	// every time. Before, the notification raced A's answer and B let the
	// key in once more for about half of the keys.
	t.Run("a key deleted on A is refused at B's very next request", func(t *testing.T) {
		const keys = 20
		for i := range keys {
			var k struct{ KeyID, APIKeyHeaderValue string }
			restCall(t, a.base, key, "POST", "/auth/api/v1/keys", fmt.Sprintf(`{"label":"node key %d"}`, i), 200, &k)
			// Cached on B (its cache listens: a read costs no key lookup).
			restCall(t, b.base, k.APIKeyHeaderValue, "GET", "/auth/api/v1/keys", "", 200, nil)
			restCall(t, b.base, k.APIKeyHeaderValue, "GET", "/auth/api/v1/keys", "", 200, nil)
			restCall(t, a.base, key, "DELETE", "/auth/api/v1/keys/"+k.KeyID, "", 200, nil)
			if got := restStatus(t, b.base, k.APIKeyHeaderValue); got != 401 {
				t.Fatalf("key %d deleted on A: B's next request answered %d, want 401", i, got)
			}
		}
	})

	// B caches the forms its creates check against; a form changed on A
	// (or an option list a form offers) is what B's very next create
	// checks against. The form's field is made required and optional in
	// turn, so that a stale form on B shows either way.
	t.Run("a form changed on A is enforced at B's very next create", func(t *testing.T) {
		form := func(required bool) string {
			return fmt.Sprintf(`{"id":"slates","label":"Slates","fields":[{"fieldId":"slate","type":"text","required":%v}]}`, required)
		}
		restCall(t, a.base, key, "POST", "/api/v1/mdfs", form(false), 200, nil)
		create := `{"title":"Take","itemType":"video","metadata":{"formId":"slates","formData":{}}}`
		for range 10 {
			restCall(t, b.base, key, "POST", "/api/v1/items", create, 200, nil) // cached on B
			restCall(t, a.base, key, "PUT", "/api/v1/mdfs/slates", form(true), 200, nil)
			restCall(t, b.base, key, "POST", "/api/v1/items", create, 400, nil)
			restCall(t, a.base, key, "PUT", "/api/v1/mdfs/slates", form(false), 200, nil)
		}
		restCall(t, b.base, key, "POST", "/api/v1/items", create, 200, nil)

		var list struct{ ID string }
		restCall(t, a.base, key, "POST", "/api/v1/optionLists", `{"name":"Cameras","alternatives":[{"value":"a","label":"A"}]}`, 200, &list)
		restCall(t, a.base, key, "POST", "/api/v1/mdfs",
			`{"id":"shots","label":"Shots","fields":[{"fieldId":"camera","type":"choice","optionListId":"`+list.ID+`"}]}`, 200, nil)
		shot := func(camera string) string {
			return `{"title":"Shot","itemType":"video","metadata":{"formId":"shots","formData":{"camera":"` + camera + `"}}}`
		}
		for i := range 10 {
			cam := fmt.Sprintf("c%d", i)
			restCall(t, b.base, key, "POST", "/api/v1/items", shot("a"), 200, nil) // cached on B
			restCall(t, b.base, key, "POST", "/api/v1/items", shot(cam), 400, nil)
			restCall(t, a.base, key, "PUT", "/api/v1/optionLists/"+list.ID,
				`{"name":"Cameras","alternatives":[{"value":"a","label":"A"},{"value":"`+cam+`","label":"C"}]}`, 200, nil)
			restCall(t, b.base, key, "POST", "/api/v1/items", shot(cam), 200, nil)
		}
	})

	// A node killed with -9 keeps a fresh beat for up to 5 s: a change's
	// writer waits for it at most 2 s, marks it not caching and logs it;
	// the next change waits for it no more. B stays strict throughout.
	t.Run("a killed node is waited for at most 2 s, then not at all", func(t *testing.T) {
		c := startNode(t, append(env, "LOUPE_WORKERS=-1", "LOUPE_INSTANCE_ID=node-c"), "127.0.0.1:"+strconv.Itoa(freePort(t)))
		waitCaching(t, direct, "node-c")
		c.kill()
		for i, bound := range []time.Duration{3 * time.Second, 500 * time.Millisecond} {
			var k struct{ KeyID, APIKeyHeaderValue string }
			restCall(t, a.base, key, "POST", "/auth/api/v1/keys", fmt.Sprintf(`{"label":"after the kill %d"}`, i), 200, &k)
			restCall(t, b.base, k.APIKeyHeaderValue, "GET", "/auth/api/v1/keys", "", 200, nil)
			began := time.Now()
			restCall(t, a.base, key, "DELETE", "/auth/api/v1/keys/"+k.KeyID, "", 200, nil)
			took := time.Since(began)
			if took > bound {
				t.Fatalf("delete %d after the kill took %v, want under %v", i, took, bound)
			}
			t.Logf("delete %d after the kill took %v", i, took)
			if got := restStatus(t, b.base, k.APIKeyHeaderValue); got != 401 {
				t.Fatalf("key deleted on A after the kill: B answered %d, want 401", got)
			}
		}
	})

	t.Run("a job asked for on A is worked by B", func(t *testing.T) {
		mediatest.Need(t)
		clip := filepath.Join(t.TempDir(), "clip.mp4")
		if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
			"testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-preset", "ultrafast", clip).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		data, err := os.ReadFile(clip)
		if err != nil {
			t.Fatal(err)
		}
		var item struct{ ID string }
		restCall(t, a.base, key, "POST", "/api/v1/items", `{"title":"Clip","itemType":"video"}`, 200, &item)
		// Its upload completes on A, whose transaction asks for processing.
		tus := &tusclient.Client{Endpoint: a.base + "/api/v1/uploads/", APIKey: key}
		ctx := context.Background()
		up, err := tus.Create(ctx, int64(len(data)), map[string]string{"filename": "clip.mp4", "itemId": item.ID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tus.Patch(ctx, up, 0, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			var it struct{ TranscodingState string }
			restCall(t, a.base, key, "GET", "/api/v1/items/"+item.ID, "", 200, &it)
			if it.TranscodingState == "complete" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the upload on A was not processed: %q", it.TranscodingState)
			}
		}
		db, err := sql.Open("postgres", direct)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var by []string
		rows, err := db.Query(`SELECT DISTINCT unnest(attempted_by) FROM river_job WHERE kind = 'process_item' AND args->>'itemId' = $1`, item.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			rows.Scan(&n) //nolint:errcheck // checked below
			by = append(by, n)
		}
		if len(by) == 0 || strings.Join(by, ",") != "node-b" {
			t.Fatalf("the processing job was attempted by %v, want node-b alone", by)
		}
	})
}

// waitCaching waits until the nodes are registered as caching in
// cache_nodes (internal/coherence).
func waitCaching(t *testing.T, dsn string, nodes ...string) {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM cache_nodes WHERE caching AND node = ANY($1)`,
			pq.StringArray(nodes)).Scan(&n); err == nil && n == len(nodes) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes %v not caching after 20 s (err %v)", nodes, err)
		}
	}
}

// restCall sends a REST request with key and checks its status, decoding
// the answer into out (unless nil).
func restCall(t *testing.T, base, key, method, path, body string, want int, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
}

// restStatus is the status of a read of the key listing with key.
func restStatus(t *testing.T, base, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/auth/api/v1/keys", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck // the status is enough
	resp.Body.Close()
	return resp.StatusCode
}

// A transaction pooler needs the database's own address beside it, and
// lib/pq's one-round-trip queries: without them the start is refused,
// saying why, before anything connects.
func TestPoolerSettingsAreChecked(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string // the problem's start; "" none
	}{
		{map[string]string{"DATABASE_URL": "postgres://p:6432/loupe", "LOUPE_DATABASE_POOLER": "transaction",
			"LOUPE_DATABASE_DIRECT_URL": "postgres://db:5432/loupe"}, ""},
		{map[string]string{"DATABASE_URL": "postgres://p:6432/loupe", "LOUPE_DATABASE_POOLER": "transaction"},
			"LOUPE_DATABASE_DIRECT_URL: must be set"},
		{map[string]string{"LOUPE_DATABASE_POOLER": "transaction", "LOUPE_DATABASE_DIRECT_URL": "postgres://db:5432/loupe"},
			"LOUPE_DATABASE_DIRECT_URL: is the direct address"},
		{map[string]string{"DATABASE_URL": "postgres://p:6432/loupe?binary_parameters=no", "LOUPE_DATABASE_POOLER": "transaction",
			"LOUPE_DATABASE_DIRECT_URL": "postgres://db:5432/loupe"}, "DATABASE_URL: needs binary_parameters=yes"},
		{map[string]string{"DATABASE_URL": "host=p port=6432 dbname=loupe", "LOUPE_DATABASE_POOLER": "transaction",
			"LOUPE_DATABASE_DIRECT_URL": "postgres://db:5432/loupe"}, "DATABASE_URL: needs binary_parameters=yes"},
		{map[string]string{"DATABASE_URL": "postgres://p:6432/loupe", "LOUPE_DATABASE_POOLER": "session"},
			`LOUPE_DATABASE_POOLER: "session" is not none or transaction`},
	} {
		t.Run(fmt.Sprint(c.env), func(t *testing.T) {
			for _, k := range []string{"DATABASE_URL", "LOUPE_DATABASE_POOLER", "LOUPE_DATABASE_DIRECT_URL"} {
				t.Setenv(k, c.env[k])
			}
			problems := strings.Join(loadConfig().Problems, "\n")
			if c.want == "" && problems != "" || !strings.HasPrefix(problems, c.want) {
				t.Fatalf("problems %q, want %q", problems, c.want)
			}
		})
	}
}
