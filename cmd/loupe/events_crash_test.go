package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
)

// node is a `loupe serve` process of the test binary (TestMain).
type node struct {
	cmd  *exec.Cmd
	base string
}

// startNode starts `loupe serve` on addr with env, and waits until it is
// ready.
func startNode(t *testing.T, env []string, addr string) *node {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), env...), "LOUPE_TEST_AS_LOUPE=serve", "LOUPE_ADDR="+addr,
		"LOUPE_PUBLIC_URL=http://"+addr, "LOUPE_LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &node{cmd: cmd, base: "http://" + addr}
	t.Cleanup(func() { n.kill() })
	waitReady(t, n.base)
	return n
}

// kill is kill -9: no shutdown, no grace.
// nodeEnv is the environment of a test's nodes (one database, file store
// and keys; jobs polled often), with more, set on this process too, for
// the commands the test runs in it.
func nodeEnv(t *testing.T, more ...string) []string {
	t.Helper()
	env := append([]string{"LOUPE_BLOB_DIR=" + t.TempDir(), "LOUPE_BLOB_KEY=" + strings.Repeat("5a", 32),
		"LOUPE_CREDENTIALS_KEY=" + strings.Repeat("6b", 32), "LOUPE_JOBS_POLL=50ms"}, more...)
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	return env
}

// tenantKey makes a tenant as `loupe tenant create` does and answers
// its admin's key.
func tenantKey(t *testing.T, name string) string {
	t.Helper()
	code, out := runCaptured(t, context.Background(), "tenant", "create", "--name", name, "--admin-email", "boss@"+name+".test")
	if code != 0 {
		t.Fatalf("tenant create exited %d: %s", code, out)
	}
	var tenant struct{ APIKey string }
	if err := json.Unmarshal([]byte(lastLine(out)), &tenant); err != nil {
		t.Fatal(err)
	}
	return tenant.APIKey
}

func (n *node) kill() {
	if n.cmd.ProcessState == nil {
		n.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // gone already is fine
		n.cmd.Wait()                          //nolint:errcheck // killed
	}
}

func gql(t *testing.T, base, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", base+"/graphql", strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]any
		Errors []any
	}
	json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // checked below
	if len(out.Errors) > 0 {
		t.Fatalf("%s: %v", query, out.Errors)
	}
	return out.Data
}

// sseSubscribe subscribes over SSE and sends each event's id on ids until
// the stream ends (the node died), then closes ids.
func sseSubscribe(t *testing.T, base, key, query string, vars map[string]any, ids chan<- string) {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", base+"/graphql", strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		close(ids)
		return
	}
	go func() {
		defer close(ids)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var r struct {
				Data struct {
					ItemEvents struct{ ID string }
				}
			}
			if json.Unmarshal([]byte(data), &r) == nil && r.Data.ItemEvents.ID != "" {
				ids <- r.Data.ItemEvents.ID
			}
		}
	}()
}

// Nodes killed with kill -9 lose nothing that committed: a webhook
// delivery cut off mid-request, and those not yet made, are all made after
// a restart (each message at least once); a subscriber whose node died
// resumes on another node from the last event it got, without a gap.
func TestKilledNodesLoseNoEvent(t *testing.T) {
	t.Setenv("DATABASE_URL", pgtest.DB(t))
	env := nodeEnv(t, "LOUPE_WEBHOOKS_ALLOW_PRIVATE=true")
	key := tenantKey(t, "k")

	// A receiver that holds each request a while (so that a node dies with
	// one in flight) and counts the messages by webhook-id.
	var mu sync.Mutex
	got := map[string]int{}
	inFlight := make(chan struct{}, 100)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) //nolint:errcheck // a test receiver
		inFlight <- struct{}{}
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	defer recv.Close()

	addrA, addrB := "127.0.0.1:"+strconv.Itoa(freePort(t)), "127.0.0.1:"+strconv.Itoa(freePort(t))
	a, b := startNode(t, env, addrA), startNode(t, env, addrB)
	gql(t, a.base, key, `mutation($in: WebhookInput!) { createWebhook(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"type": "itemCreation", "url": recv.URL}})
	folder := gql(t, a.base, key, `mutation { createItem(input: {title: "Rushes", itemType: "folder"}) { item { id } } }`, nil)
	folderID := folder["createItem"].(map[string]any)["item"].(map[string]any)["id"].(string)

	// A subscriber on B, following the folder.
	ids := make(chan string, 100)
	const follow = `subscription($f: ID, $s: String) { itemEvents(folderId: $f, since: $s) { id } }`
	sseSubscribe(t, b.base, key, follow, map[string]any{"f": folderID}, ids)
	time.Sleep(500 * time.Millisecond)

	const items = 12
	create := func(base string, i int) {
		gql(t, base, key, `mutation($in: CreateItemInput!) { createItem(input: $in) { item { id } } }`,
			map[string]any{"in": map[string]any{"title": "Clip " + strconv.Itoa(i), "itemType": "video", "folderParents": []string{folderID}}})
	}
	for i := range items / 2 {
		create(a.base, i)
	}
	var seen []string
	for len(seen) < 1 {
		seen = append(seen, <-ids)
	}
	<-inFlight // a delivery is under way
	a.kill()
	b.kill()
	for id := range ids { // the stream ends with B
		seen = append(seen, id)
	}

	// Back: one node. The rest of the changes go through it while the
	// subscriber is away.
	a = startNode(t, env, addrA)
	for i := items / 2; i < items; i++ {
		create(a.base, i)
	}
	resumed := make(chan string, 100)
	sseSubscribe(t, a.base, key, follow, map[string]any{"f": folderID, "s": seen[len(seen)-1]}, resumed)
	for len(seen) < items {
		select {
		case id := <-resumed:
			seen = append(seen, id)
		case <-time.After(20 * time.Second):
			t.Fatalf("the subscriber has %d of %d events: %v", len(seen), items, seen)
		}
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Fatalf("event %s delivered twice to the subscriber: %v", seen[i], seen)
		}
	}

	// Every item creation reaches the hook (the folder's too), the one cut
	// off included (River runs it again after its timeout).
	for deadline := time.Now().Add(150 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= items+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d distinct messages of %d: %v", n, items+1, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("messages received (webhook-id: times): %v", got)
}
