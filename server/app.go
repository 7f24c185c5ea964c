// Package app assembles Loupe's HTTP server from its parts: the router and
// middleware, the GraphQL engine, the REST route table and the resolvers.
// cmd/loupe runs it; tests run the very same handler.
package server

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/gorilla/websocket"

	"github.com/loupe-mam/loupe/graph"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
	"github.com/loupe-mam/loupe/internal/events/retention"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/live"
	"github.com/loupe-mam/loupe/internal/media/renderjob"
	"github.com/loupe-mam/loupe/internal/platform/apireference"
	"github.com/loupe-mam/loupe/internal/platform/crossorigin"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/platform/playground"
	"github.com/loupe-mam/loupe/internal/platform/secretbox"
	"github.com/loupe-mam/loupe/internal/platform/tracing"
	"github.com/loupe-mam/loupe/internal/shares"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/ingest"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/internal/usage"
	"github.com/loupe-mam/loupe/loaders"
	"github.com/loupe-mam/loupe/resolvers"
	"github.com/loupe-mam/loupe/rest"
	"github.com/loupe-mam/loupe/rest/openapi"
	"github.com/loupe-mam/loupe/store"
)

// Config is what the server needs beyond its store.
type Config struct {
	// BodyLimit caps a request body in bytes.
	BodyLimit int64
	// RequestTimeout bounds the work of one request.
	RequestTimeout time.Duration
	GraphQL        graph.Options
	// Blobs signs links to stored files.
	Blobs *blob.Signer
	// Files holds attachment, thumbnail and transcript files; the server
	// answers signed links to them under blob.PathPrefix (not mounted when
	// nil).
	Files blob.Store
	// MaxUploadBytes caps one upload through a signed link.
	MaxUploadBytes int64
	// Logger receives the request log (slog.Default() when nil).
	Logger *slog.Logger
	// LogAllRequests logs a line per request at info; otherwise only
	// failed (5xx) and slow ones are above debug (LOUPE_LOG_REQUESTS).
	LogAllRequests bool
	// DatabaseURL, when set, lets the node cache API keys and forms: a
	// connection listens for the changes that invalidate them, and the
	// node takes part in keeping every node's caches strict (caches.go,
	// internal/coherence). Without it every request looks its key and its
	// form up. It must reach the database itself
	// (LISTEN is a session's): behind a transaction pooler, cmd/loupe gives
	// LOUPE_DATABASE_DIRECT_URL here.
	DatabaseURL string
	// KeyCacheSize bounds the cached keys.
	KeyCacheSize int
	// AllowPrivateJWKS lets tenants' key set URLs (security settings) reach
	// loopback, private and link-local addresses: for tests and identity
	// providers inside the operator's network. Off, they are refused.
	AllowPrivateJWKS bool
	// Credentials seals storage locations' secret keys (LOUPE_CREDENTIALS_KEY
	// or <data dir>/credentials.key; docs/storage-locations.md). Without
	// it, a key-user storage location cannot be saved.
	Credentials *secretbox.Box
	// AllowPrivateStorage lets tenants' storage location endpoints be
	// loopback, private and link-local addresses: for tests and S3 services
	// inside the operator's network. Off, they are refused.
	AllowPrivateStorage bool
	// BucketEventsTarget is the ARN of the queue, topic or function that
	// generated-media locations' buckets send object-created events to
	// (LOUPE_BUCKET_EVENTS_ARN; docs/generated-media-locations.md).
	BucketEventsTarget string
	// APIKeyHeaders names further headers that carry an API key, beside
	// Authorization and X-API-Key (LOUPE_API_KEY_HEADERS, parsed by
	// auth.ParseKeyHeaders; docs/migrating-integrations.md).
	APIKeyHeaders []string
	// CORSOrigins are the origins whose pages may call the API and read
	// media links (LOUPE_CORS_ORIGINS, parsed by crossorigin.ParseOrigins;
	// docs/cors.md). None: no CORS header is sent.
	CORSOrigins []string
	// GraphQLInFlight is how many /graphql operations run at once; the
	// others wait their turn (admit). Below 1, all run at once.
	GraphQLInFlight int
	// JobsDB is the pool of the job queue (StartJobs; internal/jobs), apart
	// from the requests' so that its polling is not counted among theirs.
	JobsDB *sql.DB
	// Jobs configures the node's workers (LOUPE_WORKERS and friends).
	Jobs jobs.Config
	// SpeechToTextURL is the root of an OpenAI-compatible speech-to-text
	// service (LOUPE_STT_URL): with it, tenants with a transcriptionApiKey
	// transcribe through it (externalSpeechToText); SpeechToTextModel is
	// the model asked for (LOUPE_STT_MODEL; whisper-1 when empty).
	SpeechToTextURL, SpeechToTextModel string
	// Transcodes bounds the processing runs at once on this node
	// (LOUPE_TRANSCODES; 0: half the cores, at least 1).
	Transcodes int
	// TranscodeFloor is the least time a processing run is given, whatever
	// its original's duration (default 2 min; internal/media/worker).
	TranscodeFloor time.Duration
	// IngestScan tunes ingest scans (page size, run slice; tests).
	IngestScan ingest.ScanOptions
	// Usage counts usage figures; its owner closes it after the server
	// stops, so that the last counts are written (a new recorder when nil).
	Usage *usage.Recorder
	// InstanceID names this node where it holds an upload's lock
	// (uploadLockOwnerInstanceId; LOUPE_INSTANCE_ID, else
	// upload.NewInstanceID()).
	InstanceID string
	// UploadPartSize is the smallest part of a resumable upload
	// (upload.DefaultPartSize when 0; LOUPE_UPLOAD_PART_SIZE).
	UploadPartSize int64
	// UploadReadAhead is the memory uploads read parts ahead into
	// (upload.DefaultReadAhead when 0; none when negative).
	UploadReadAhead int64
	// UploadSpoolDir holds one part of a tus request body of unknown
	// length while it arrives (os.TempDir() when empty).
	UploadSpoolDir string
	// AllowPrivateWebhooks lets webhooks' receivers be loopback, private
	// and link-local addresses (LOUPE_WEBHOOKS_ALLOW_PRIVATE; tests and
	// receivers inside the operator's network). Off, they are refused.
	AllowPrivateWebhooks bool
	// WebhookSchedule replaces the Standard Webhooks retry schedule
	// (tests; internal/events/webhooks.Schedule).
	WebhookSchedule []time.Duration
	// EventsRetention is how long the outbox keeps events
	// (LOUPE_EVENTS_RETENTION_DAYS; retention.Default). 0: kept, no
	// pruning job (tests, whose tables must change only by their requests).
	EventsRetention time.Duration
	// PublicURL starts the upload URLs the server answers (the request's
	// host when empty).
	PublicURL string
	// Live configures live pipelines' measurements and source address
	// policy (LOUPE_LIVE_*; docs/live.md).
	Live live.Config
	// Metrics is the server's Prometheus registry and instruments
	// (docs/operations.md, "Metrics"): requests, operations, pools, the
	// job queue, uploads, processing, the events feed. New and StartJobs
	// of one configuration share it; nil counts nothing. The server does
	// not serve it: cmd/loupe does, on its own address.
	Metrics *metrics.Metrics
	// Tracing is the server's OpenTelemetry tracing (docs/operations.md,
	// "Tracing"): spans of requests, GraphQL operations, storage calls and
	// jobs, the trace carried into the jobs a request enqueues. New and
	// StartJobs of one configuration share it; nil (unconfigured) installs
	// nothing. Statements are spanned by the pool's connector
	// (tracing.SQL, given to store.Open).
	Tracing *tracing.Tracing
}

// DefaultConfig is the configuration without any LOUPE_* settings.
func DefaultConfig() Config {
	return Config{
		BodyLimit:       10 << 20,
		RequestTimeout:  30 * time.Second,
		GraphQL:         graph.DefaultOptions(),
		MaxUploadBytes:  blob.DefaultMaxUpload,
		KeyCacheSize:    10000,
		EventsRetention: retention.Default,
		// Twice the cores: one operation's share of the work waits on the
		// database while another's runs.
		GraphQLInFlight: 2 * runtime.GOMAXPROCS(0),
		Metrics:         metrics.New(),
	}
}

// Server is the assembled handler.
type Server struct {
	http.Handler
	keys *auth.KeyCache
}

// KeysCached reports whether authentication is answering from its cache
// (false without Config.DatabaseURL, or while its listener is down).
func (s *Server) KeysCached() bool { return s.keys != nil && s.keys.Live() }

// New assembles the server. What it starts in the background (the key
// cache's listener) stops when ctx ends.
func New(ctx context.Context, cfg Config, st *store.Store) *Server {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	rec, files := usageOf(cfg, st, logger)
	jwtOpt := jwtauth.Options{AllowPrivateNetworks: cfg.AllowPrivateJWKS}
	svc := newServices(cfg, st)
	res := resolvers.New(st, cfg.Blobs, files)
	res.JWKS = jwtauth.NewVerifier(jwtOpt)
	res.Sources, res.Ingest, res.Transcripts = svc.sources, svc.ingest, svc.transcripts
	res.BucketEventsTarget = cfg.BucketEventsTarget
	res.Webhooks = webhookGuard(cfg)
	res.ShareBaseURL = cfg.PublicURL
	res.DryRun = renderjob.DryRun
	res.Live = live.New(cfg.Live)
	if res.ShareBaseURL == "" && cfg.Blobs != nil {
		res.ShareBaseURL = cfg.Blobs.BaseURL()
	}
	var uploads *upload.Service
	if mp, ok := files.(upload.Files); ok {
		if cfg.PublicURL == "" && cfg.Blobs != nil {
			cfg.PublicURL = cfg.Blobs.BaseURL()
		}
		var err error
		uploads, err = upload.New(upload.Config{
			Store: st, Files: mp, Temp: cfg.Files, InstanceID: cfg.InstanceID, PartSize: cfg.UploadPartSize, ReadAhead: cfg.UploadReadAhead,
			SpoolDir: cfg.UploadSpoolDir, BaseURL: cfg.PublicURL, Logger: logger, Metrics: cfg.Metrics,
		})
		if err != nil {
			panic(err) // a configuration New checks above
		}
		res.Uploads = uploads
	}
	es := graph.NewExecutableSchema(graph.Config{
		Resolvers:  res,
		Complexity: graph.Complexity(),
	})
	srv := &Server{}
	authn := &auth.Authenticator{Keys: st, Uses: st, Tokens: &auth.Tokens{Store: st, Options: jwtOpt},
		KeyHeaders: cfg.APIKeyHeaders}
	gopt := cfg.GraphQL
	gopt.Streams = streamOptions(authn, st, cfg.CORSOrigins)
	// Operation spans on both forms (REST's stored documents too); field
	// spans only when asked for (LOUPE_TRACE_FIELDS).
	gopt.Extensions = slices.Concat(gopt.Extensions, cfg.Tracing.GraphQL())
	engine := graph.NewEngine(es, gopt)
	// /graphql's operations by name; REST's stored documents, run by
	// engine.Exec, are counted by their routes.
	if x := cfg.Metrics.GraphQL(); x != nil {
		engine.HTTP.Use(x)
	}
	cfg.Metrics.WatchDB("api", st.DB().DB)
	if srv.keys = startCaches(ctx, cfg, st, logger); srv.keys != nil {
		authn.Keys = srv.keys
	}

	res.Feed = startEvents(ctx, cfg, st, logger)

	r := chi.NewRouter()
	r.Use(requestLog(logger, cfg.Metrics, cfg.LogAllRequests), cfg.Tracing.HTTP, recoverPanics)
	if cors := crossorigin.Middleware(cfg.CORSOrigins, cfg.APIKeyHeaders); cors != nil {
		r.Use(cors)
	}
	r.NotFound(rest.NotFound)
	r.MethodNotAllowed(rest.NotFound)

	// Signed links: the signature is the credential (no API key), and an
	// upload streams to the store under its own cap, not the JSON body cap
	// or the request timeout (a large file takes longer than an API call).
	if cfg.Files != nil {
		r.Handle(blob.PathPrefix+"*", &blob.Handler{
			Store: files, Signer: cfg.Blobs, MaxUpload: cfg.MaxUploadBytes, Log: logger,
		})
	}

	// Resumable uploads (tus, docs/uploads.md): authenticated like the API,
	// but a PATCH body streams to the store for as long as it takes, under
	// tus's own limits (the upload's declared length) rather than the JSON
	// body cap and the request timeout.
	if uploads != nil {
		tus := r.With(checkURL(rest.WriteError), authenticate(authn, rest.WriteError), countUsers(rec))
		tus.Handle(upload.PathPrefix, uploads)
		tus.Handle(upload.PathPrefix+"/*", uploads)
	}

	// Everything else: capped bodies and bounded time.
	api := r.With(capBody(cfg.BodyLimit), timeout(cfg.RequestTimeout))

	api.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	api.Get("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := st.Ping(ctx); err != nil {
			rest.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unreachable"})
			return
		}
		rest.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	// The playground holds no data (its requests to /graphql carry the key):
	// no authentication, and everything it loads is in the binary.
	pg := playground.Handler()
	api.Get(playground.Path, pg.ServeHTTP)
	api.Get(playground.Path+"/*", pg.ServeHTTP)

	// The REST interface's OpenAPI document (rest/openapi) holds no data
	// either.
	spec := openapi.Handler(openapi.Options{KeyHeaders: cfg.APIKeyHeaders})
	api.Get(openapi.PathJSON, spec.ServeHTTP)
	api.Get(openapi.PathYAML, spec.ServeHTTP)
	// Its rendered reference (Scalar, embedded: docs/api-reference.md).
	ref := apireference.Handler()
	api.Get(apireference.Path, ref.ServeHTTP)
	api.Get(apireference.Path+"/*", ref.ServeHTTP)

	// Shares' outsiders (internal/shares, docs/shares.md): their own
	// prefix and principal (a share session), none of the API's keys; the
	// bytes of their uploads, like tus's, outside the body cap and timeout.
	outsiders := &shares.Handler{Service: &shares.Service{Store: st}, Blobs: cfg.Blobs,
		Log: logger, StatusOf: graph.StatusOf}
	if uploads != nil {
		outsiders.Uploads = uploads
	}
	if svc.sources != nil {
		outsiders.Originals = svc.sources
	}
	outsiders.Routes(api)
	outsiders.UploadRoutes(r)

	perRequest := loaders.Middleware(st)
	plain := chi.Chain(capBody(cfg.BodyLimit), timeout(cfg.RequestTimeout), checkURL(writeGraphQLError),
		bufferBody(cfg.BodyLimit), authenticate(authn, writeGraphQLError), countUsers(rec), perRequest,
		admit(cfg.GraphQLInFlight, writeGraphQLError)).Handler(engine.HTTP)
	// Streams (streams.go): a WebSocket authenticates in its first
	// message, SSE by its headers; neither is timed out.
	sockets := chi.Chain(checkURL(writeGraphQLError)).Handler(engine.Stream)
	events := chi.Chain(capBody(cfg.BodyLimit), checkURL(writeGraphQLError), authenticate(authn, writeGraphQLError),
		countUsers(rec)).Handler(engine.Stream)
	r.Handle("/graphql", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case websocket.IsWebSocketUpgrade(req):
			sockets.ServeHTTP(w, req)
		case isStream(req):
			events.ServeHTTP(w, req)
		default:
			plain.ServeHTTP(w, req)
		}
	}))
	rest.Mount(api, engine.Exec, checkURL(rest.WriteError), refuseDeclaredLarge(cfg.BodyLimit, rest.WriteError), authenticate(authn, rest.WriteError),
		countUsers(rec), perRequest)
	srv.Handler = r
	return srv
}
