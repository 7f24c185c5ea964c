// Package loupetest runs a real Loupe server for end-to-end tests: a fresh
// database cloned from the migrated template, the production handler behind
// httptest, and clients that speak REST and GraphQL as integrations do.
package loupetest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/platform/secretbox"
	"github.com/loupe-mam/loupe/internal/platform/tracing"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/openapicheck"
	"github.com/loupe-mam/loupe/internal/testkit/pgtest"
	"github.com/loupe-mam/loupe/internal/testkit/sqlcount"
	"github.com/loupe-mam/loupe/internal/usage"
	"github.com/loupe-mam/loupe/server"
	"github.com/loupe-mam/loupe/store"
)

// API is a running server and what tests need to look behind it.
type API struct {
	URL   string
	Store *store.Store
	DB    *sqlx.DB
	// Statements counts the SQL statements the server sends.
	Statements *sqlcount.Counter
	Blobs      *blob.Signer
	// Files is the server's blob store (a directory of the test's).
	Files blob.Store
	// Jobs is the server's job queue client (nil while no job kind has a
	// worker).
	Jobs *jobs.Client
	// Metrics is the server's Prometheus registry (Metrics.Handler serves
	// what /metrics on LOUPE_METRICS_ADDR would).
	Metrics *metrics.Metrics

	dbURL string
}

// Option changes the server's configuration before it starts.
type Option func(*server.Config)

// Traced makes the server trace with tr (its spans, its jobs', its
// statements'): tracing.New on an endpoint of the test's.
func Traced(tr *tracing.Tracing) Option {
	return func(c *server.Config) { c.Tracing = tr }
}

// New starts a server on a fresh database.
func New(t testing.TB, opts ...Option) *API {
	t.Helper()
	dbURL := pgtest.DB(t)
	counter := &sqlcount.Counter{}
	// Statements are spanned only inside a traced request or job (Traced);
	// otherwise the wrapper only looks for a span and passes them on.
	db := store.NewDB(sql.OpenDB(tracing.SQL(sqlcount.Connector(store.DSN(dbURL), counter))), 8)
	t.Cleanup(func() { db.Close() })
	a := &API{Store: store.New(db), DB: db, Statements: counter, dbURL: dbURL}
	a.serve(t, opts)
	return a
}

// Another starts a second server, configured by opts, on a's database: to
// compare what two configurations answer for the same data. Its clients
// come from Client.On.
func (a *API) Another(t testing.TB, opts ...Option) *API {
	t.Helper()
	b := &API{Store: a.Store, DB: a.DB, Statements: a.Statements, dbURL: a.dbURL}
	b.serve(t, opts)
	return b
}

// serve starts a's server.
func (a *API) serve(t testing.TB, opts []Option) {
	t.Helper()
	st := a.Store
	srv := httptest.NewUnstartedServer(nil)
	url := "http://" + srv.Listener.Addr().String()
	cfg := server.DefaultConfig()
	// Warnings and errors only: a test's output shows what went wrong, not
	// every request.
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg.Blobs = blob.NewSigner([]byte("loupetest-blob-key-0123456789abcdef"), url)
	files, err := blob.NewDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Files = files
	// Tests serve identity providers' key sets, and S3 (s3test), on 127.0.0.1.
	cfg.AllowPrivateJWKS = true
	cfg.AllowPrivateStorage = true
	cfg.AllowPrivateWebhooks = true
	cfg.Credentials = Credentials(t)
	// The test's own recorder, closed after the server and before the
	// database (cleanups run last first). It writes only when usage is
	// read, so that no write in the background adds to Statements.
	cfg.Usage = usage.New(st, cfg.Logger)
	cfg.Usage.SetFlushInterval(0)
	t.Cleanup(func() { cfg.Usage.Close(context.Background()) })
	// No pruning job: a test's tables change only by what it asks for
	// (pruning is tested in store).
	cfg.EventsRetention = 0
	for _, o := range opts {
		o(&cfg)
	}
	// The key cache listens on its own connection, closed with the test.
	cfg.DatabaseURL = a.dbURL
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// The job queue works on its own pool, uncounted: its polling is not
	// the statements of a request.
	jobsDB, err := sql.Open("postgres", store.DSN(a.dbURL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jobsDB.Close() })
	cfg.JobsDB = jobsDB
	cfg.Jobs.PollInterval = 50 * time.Millisecond
	jc, err := server.StartJobs(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if jc != nil {
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			jc.Stop(sctx) //nolint:errcheck // a test's leftover job dies with its database
		})
	}
	a.Jobs = jc
	handler := server.New(ctx, cfg, st)
	srv.Config.Handler = handler
	srv.Start()
	t.Cleanup(srv.Close)
	// Statement counts in tests are those of the request's own work: wait
	// for the key cache, and Tenant and User warm each new key.
	for deadline := time.Now().Add(10 * time.Second); !handler.KeysCached(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("loupetest: the key cache did not start listening")
		}
	}
	a.URL, a.Blobs, a.Files = url, cfg.Blobs, cfg.Files
	a.Metrics = cfg.Metrics
}

// Credentials is the box the test servers seal credentials with (a test
// running server code outside a request, such as a scan, needs it).
func Credentials(t testing.TB) *secretbox.Box {
	t.Helper()
	box, err := secretbox.New([]byte("loupetest-credentials-key-0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// Client calls the API with one user's key.
type Client struct {
	api      *API
	Key      string
	TenantID string
	UserID   string
	// ArchiveFolderID is the tenant's archive folder.
	ArchiveFolderID string
}

// Tenant makes a tenant, as `loupe tenant create` does, and returns a client
// for its admin.
func (a *API) Tenant(t testing.TB, name string) *Client {
	t.Helper()
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Store.CreateTenant(context.Background(), name, "admin@"+name+".test",
		store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "admin"})
	if err != nil {
		t.Fatalf("create tenant %s: %v", name, err)
	}
	c := &Client{api: a, Key: k.Header, TenantID: out.TenantID, UserID: out.UserID, ArchiveFolderID: out.ArchiveFolder}
	c.warm(t)
	return c
}

// warm makes one request with the client's key, so that the key is cached
// and the test's own requests cost no key lookup.
func (c *Client) warm(t testing.TB) {
	t.Helper()
	c.GraphQL(t, `{ __typename }`, nil)
}

// User adds a user to c's tenant, as `loupe user create` does.
func (c *Client) User(t testing.TB, email string, groups []string, admin bool) *Client {
	t.Helper()
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.api.Store.CreateUser(context.Background(), c.TenantID, email, groups, admin,
		store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "test"})
	if err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	u := &Client{api: c.api, Key: k.Header, TenantID: c.TenantID, UserID: id, ArchiveFolderID: c.ArchiveFolderID}
	u.warm(t)
	return u
}

// Anonymous is a client with no credential.
func (a *API) Anonymous() *Client { return &Client{api: a} }

// On is the same user calling another server of the same database
// (API.Another).
func (c *Client) On(a *API) *Client {
	d := *c
	d.api = a
	return &d
}

// WithKey is a client presenting an arbitrary credential.
func (a *API) WithKey(key string) *Client { return &Client{api: a, Key: key} }

// Response is an answer, with assertions that fail the test.
type Response struct {
	t      testing.TB
	Code   int
	Header http.Header
	Body   []byte
	req    string
}

// Do sends a request; body is JSON-encoded unless it is a string or []byte
// (sent as is) or nil.
func (c *Client) Do(t testing.TB, method, path string, body any) *Response {
	t.Helper()
	return c.send(t, method, path, body, nil)
}

// DoWithHeaders sends a body-less request with extra headers.
func (c *Client) DoWithHeaders(t testing.TB, method, path string, headers map[string]string) *Response {
	t.Helper()
	return c.send(t, method, path, nil, headers)
}

// Send sends a request with a body (as Do) and extra headers.
func (c *Client) Send(t testing.TB, method, path string, body any, headers map[string]string) *Response {
	t.Helper()
	return c.send(t, method, path, body, headers)
}

func (c *Client) send(t testing.TB, method, path string, body any, headers map[string]string) *Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.api.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	// Every REST answer matches the published OpenAPI document.
	if err := openapicheck.Response(req, resp.StatusCode, resp.Header, b); err != nil {
		t.Error(err)
	}
	return &Response{t: t, Code: resp.StatusCode, Header: resp.Header, Body: b, req: method + " " + path}
}

// Get, Post, Put, Patch and Delete are Do with a method.
func (c *Client) Get(t testing.TB, path string) *Response {
	t.Helper()
	return c.Do(t, "GET", path, nil)
}
func (c *Client) Post(t testing.TB, path string, body any) *Response {
	t.Helper()
	return c.Do(t, "POST", path, body)
}
func (c *Client) Put(t testing.TB, path string, body any) *Response {
	t.Helper()
	return c.Do(t, "PUT", path, body)
}
func (c *Client) Patch(t testing.TB, path string, body any) *Response {
	t.Helper()
	return c.Do(t, "PATCH", path, body)
}
func (c *Client) Delete(t testing.TB, path string) *Response {
	t.Helper()
	return c.Do(t, "DELETE", path, nil)
}

// Status fails the test unless the answer has status want.
func (r *Response) Status(want int) *Response {
	r.t.Helper()
	if r.Code != want {
		r.t.Fatalf("%s: status %d, want %d; body: %s", r.req, r.Code, want, r.Body)
	}
	return r
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) *Response {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("%s: body is not the JSON expected (%v): %s", r.req, err, r.Body)
	}
	return r
}

// Object decodes the body as a JSON object.
func (r *Response) Object() map[string]any {
	r.t.Helper()
	var m map[string]any
	r.JSON(&m)
	return m
}

// Envelope checks the spec's error envelope: statusCode equal to the HTTP
// status and the message; it returns the envelope's error object.
func (r *Response) Envelope(status int, message string) map[string]any {
	r.t.Helper()
	r.Status(status)
	var env struct {
		Error map[string]any `json:"error"`
	}
	r.JSON(&env)
	if env.Error == nil {
		r.t.Fatalf("%s: no error envelope: %s", r.req, r.Body)
	}
	if got, _ := env.Error["statusCode"].(float64); int(got) != status {
		r.t.Fatalf("%s: envelope statusCode %v, want %d", r.req, env.Error["statusCode"], status)
	}
	if message != "" && env.Error["message"] != message {
		r.t.Fatalf("%s: envelope message %q, want %q", r.req, env.Error["message"], message)
	}
	return env.Error
}

// GraphQLResponse is a GraphQL answer.
type GraphQLResponse struct {
	t      testing.TB
	Code   int
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Path       []any          `json:"path"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// GraphQL posts a query to /graphql.
func (c *Client) GraphQL(t testing.TB, query string, vars map[string]any) *GraphQLResponse {
	t.Helper()
	r := c.Post(t, "/graphql", map[string]any{"query": query, "variables": vars})
	g := &GraphQLResponse{t: t, Code: r.Code}
	r.JSON(g)
	return g
}

// OK fails the test on errors and decodes data into v (when not nil).
func (g *GraphQLResponse) OK(v any) *GraphQLResponse {
	g.t.Helper()
	if len(g.Errors) > 0 {
		g.t.Fatalf("graphql errors: %+v", g.Errors)
	}
	if v != nil {
		if err := json.Unmarshal(g.Data, v); err != nil {
			g.t.Fatalf("graphql data: %v: %s", err, g.Data)
		}
	}
	return g
}

// Code fails the test unless the first error has extensions.code want; it
// returns that error's message.
func (g *GraphQLResponse) ErrorCode(want string) string {
	g.t.Helper()
	if len(g.Errors) == 0 {
		g.t.Fatalf("no graphql error, want %s; data: %s", want, g.Data)
	}
	if got := g.Errors[0].Extensions["code"]; got != want {
		g.t.Fatalf("graphql error code %v, want %s: %+v", got, want, g.Errors)
	}
	return g.Errors[0].Message
}

// CreateItem makes an item through REST and returns its id.
func (c *Client) CreateItem(t testing.TB, body map[string]any) string {
	t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	c.Post(t, "/api/v1/items", body).Status(http.StatusOK).JSON(&out)
	return out.ID
}

// Count answers a count(*) query the test makes behind the API.
func (a *API) Count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := a.DB.Get(&n, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// AwaitEvents waits until every event written so far is readable. An
// event is held back while any older transaction in the cluster runs,
// and tests in other packages share the cluster (docs/events.md).
func (a *API) AwaitEvents(t testing.TB) {
	t.Helper()
	const readable = `SELECT NOT EXISTS (SELECT 1 FROM events WHERE tx >= pg_snapshot_xmin(pg_current_snapshot()))`
	for deadline := time.Now().Add(30 * time.Second); ; {
		var done bool
		if err := a.DB.Get(&done, readable); err != nil {
			t.Fatalf("events readable: %v", err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("events still held back after 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
