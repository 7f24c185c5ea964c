package main

import (
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/loupe-mam/loupe/internal/live"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/platform/tracing"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/server"
)

// config is everything read from the environment (README: Configuration).
type config struct {
	Addr        string
	DatabaseURL string
	DataDir     string
	PGDir       string // LOUPE_PG_DIR; empty: chosen by embeddedPGDir
	PGPort      int
	PublicURL   string
	BlobKey     string
	// CredentialsKey seals storage locations' secrets (LOUPE_CREDENTIALS_KEY).
	CredentialsKey string
	// BlobDir holds uploaded files (default: <DataDir>/blobs) unless S3
	// has a bucket.
	BlobDir string
	// S3 keeps the files in a bucket when its Bucket is set (LOUPE_S3_*).
	S3 blob.S3Config
	// DirectDownloads (LOUPE_S3_DIRECT_DOWNLOADS, default on) makes the
	// links of files in S3 presigned URLs to the bucket; off, they go
	// through Loupe's /blobs/ (a bucket the clients cannot reach).
	DirectDownloads bool
	DBPool          int
	// DatabasePooler is LOUPE_DATABASE_POOLER: "transaction" when
	// DATABASE_URL is a pooler in transaction mode (pooler.go).
	DatabasePooler string
	// DatabaseDirectURL is LOUPE_DATABASE_DIRECT_URL: the database itself,
	// for what needs a session (LISTEN, the migrations' lock; pooler.go).
	DatabaseDirectURL string
	// PprofAddr serves pprof when set (LOUPE_PPROF_ADDR).
	PprofAddr string
	// MetricsAddr serves Prometheus's /metrics (LOUPE_METRICS_ADDR;
	// metrics.DefaultAddr unless set; "off" or "none": not served).
	// MetricsAddrSet says it was set: then an address that cannot be
	// listened on stops the start, where the default is only warned about
	// (a second node on one machine).
	MetricsAddr    string
	MetricsAddrSet bool
	// APIKeyHeaders is LOUPE_API_KEY_HEADERS as set: cmdServe parses it
	// into App.APIKeyHeaders and refuses to start on a bad name.
	APIKeyHeaders string
	// Problems are the settings whose values cannot be used, one line each
	// ("LOUPE_X: …"): serve and worker refuse to start on any.
	Problems []string
	// CORSOrigins is LOUPE_CORS_ORIGINS as set: cmdServe parses it into
	// App.CORSOrigins and refuses to start on an entry that is no origin.
	CORSOrigins string
	// Tracing is OpenTelemetry's setup (the OTEL_* variables,
	// LOUPE_TRACE_FIELDS): serve and worker start it into App.Tracing.
	Tracing tracing.Config
	App     server.Config
}

func loadConfig() config {
	c := config{
		Addr:           env("LOUPE_ADDR", ":8080"),
		DatabaseURL:    env("DATABASE_URL", ""),
		DataDir:        env("LOUPE_DATA_DIR", ".loupe"),
		PGDir:          env("LOUPE_PG_DIR", ""),
		PGPort:         envInt("LOUPE_PG_PORT", 54329),
		BlobKey:        env("LOUPE_BLOB_KEY", ""),
		CredentialsKey: env("LOUPE_CREDENTIALS_KEY", ""),
		DBPool:         envInt("LOUPE_DB_POOL", 8),
		PprofAddr:      env("LOUPE_PPROF_ADDR", ""),
		APIKeyHeaders:  env("LOUPE_API_KEY_HEADERS", ""),
		CORSOrigins:    env("LOUPE_CORS_ORIGINS", ""),
		App:            server.DefaultConfig(),
	}
	readPooler(&c)
	c.MetricsAddr = env("LOUPE_METRICS_ADDR", metrics.DefaultAddr)
	c.MetricsAddrSet = env("LOUPE_METRICS_ADDR", "") != ""
	c.BlobDir = env("LOUPE_BLOB_DIR", filepath.Join(c.DataDir, "blobs"))
	c.S3 = s3FromEnv()
	c.DirectDownloads = envBool("LOUPE_S3_DIRECT_DOWNLOADS", true)
	c.App.MaxUploadBytes = int64(envInt("LOUPE_MAX_UPLOAD_BYTES", int(c.App.MaxUploadBytes)))
	c.PublicURL = env("LOUPE_PUBLIC_URL", "http://localhost"+portOf(c.Addr))
	c.App.BodyLimit = int64(envInt("LOUPE_MAX_BODY_BYTES", int(c.App.BodyLimit)))
	c.App.RequestTimeout = envDuration("LOUPE_REQUEST_TIMEOUT", c.App.RequestTimeout)
	c.App.AllowPrivateJWKS = envBool("LOUPE_JWKS_ALLOW_PRIVATE", false)
	c.App.AllowPrivateStorage = envBool("LOUPE_STORAGE_ALLOW_PRIVATE", false)
	c.App.AllowPrivateWebhooks = envBool("LOUPE_WEBHOOKS_ALLOW_PRIVATE", false)
	// Live pipelines' sources and measurements (docs/live.md).
	c.App.Live = live.Config{AllowLoopback: envBool("LOUPE_LIVE_ALLOW_LOOPBACK", false),
		DenyPrivate: envBool("LOUPE_LIVE_DENY_PRIVATE", false), ProbeInterval: envDuration("LOUPE_LIVE_PROBE_INTERVAL", 0),
		ProbeTimeout: envDuration("LOUPE_LIVE_PROBE_TIMEOUT", 0), SegmentSeconds: envInt("LOUPE_LIVE_SEGMENT_SECONDS", 0),
		RecordingLease: envDuration("LOUPE_LIVE_RECORDING_LEASE", 0), MaxRecordings: envInt("LOUPE_LIVE_MAX_RECORDINGS", 0)}
	c.App.BucketEventsTarget = env("LOUPE_BUCKET_EVENTS_ARN", "")
	// The externalSpeechToText service (docs/analysis.md).
	c.App.SpeechToTextURL, c.App.SpeechToTextModel = env("LOUPE_STT_URL", ""), env("LOUPE_STT_MODEL", "")
	c.App.GraphQLInFlight = envInt("LOUPE_GRAPHQL_IN_FLIGHT", c.App.GraphQLInFlight)
	// Resumable uploads (docs/uploads.md): this node's name in upload
	// locks, the smallest part, where a body of unknown length is spooled.
	c.App.InstanceID = env("LOUPE_INSTANCE_ID", "")
	c.App.UploadPartSize = int64(envInt("LOUPE_UPLOAD_PART_SIZE", 0))
	c.App.UploadReadAhead = int64(envInt("LOUPE_UPLOAD_READ_AHEAD", 0))
	c.App.UploadSpoolDir = env("LOUPE_UPLOAD_SPOOL_DIR", "")
	// Background work (internal/jobs): 0 = one worker per core and queue,
	// -1 = this node only serves the API and asks others for the work.
	c.App.Jobs.Workers = envInt("LOUPE_WORKERS", 0)
	// The outbox's retention (docs/events.md).
	if d := envInt("LOUPE_EVENTS_RETENTION_DAYS", 0); d > 0 {
		c.App.EventsRetention = time.Duration(d) * 24 * time.Hour
	}
	c.App.Jobs.PollInterval = envDuration("LOUPE_JOBS_POLL", 0)
	c.App.Jobs.RescueAfter = envDuration("LOUPE_JOBS_RESCUE_AFTER", 0)
	c.App.Transcodes = envInt("LOUPE_TRANSCODES", 0)
	c.App.TranscodeFloor = envDuration("LOUPE_TRANSCODE_TIMEOUT_FLOOR", 0)
	g := &c.App.GraphQL
	g.Introspection = envBool("LOUPE_INTROSPECTION", g.Introspection)
	g.ComplexityLimit = envInt("LOUPE_GRAPHQL_COMPLEXITY", g.ComplexityLimit)
	g.MaxDepth = envInt("LOUPE_GRAPHQL_DEPTH", g.MaxDepth)
	g.MaxAliases = envInt("LOUPE_GRAPHQL_ALIASES", g.MaxAliases)
	g.TokenLimit = envInt("LOUPE_GRAPHQL_TOKENS", g.TokenLimit)
	g.MaxDocumentBytes = envInt("LOUPE_GRAPHQL_MAX_BYTES", g.MaxDocumentBytes)
	readTracing(&c)
	// The log's settings are read at the process's start (main.go); here
	// they are checked with the others.
	if v := env("LOUPE_LOG_LEVEL", ""); v != "" {
		var l slog.Level
		if l.UnmarshalText([]byte(v)) != nil {
			badSetting("LOUPE_LOG_LEVEL", v, "a level (debug, info, warn, error)")
		}
	}
	if v := env("LOUPE_LOG_FORMAT", ""); v != "" && v != "text" && v != "json" {
		badSetting("LOUPE_LOG_FORMAT", v, "text or json")
	}
	// A line per request: by default for machines reading JSON logs, not
	// on a person's terminal (failed and slow requests are logged always).
	switch v := env("LOUPE_LOG_REQUESTS", ""); v {
	case "":
		c.App.LogAllRequests = !isTerminal(os.Stderr)
	case "all", "errors":
		c.App.LogAllRequests = v == "all"
	default:
		badSetting("LOUPE_LOG_REQUESTS", v, "all or errors")
	}
	c.Problems = takeProblems()
	return c
}

// readTracing reads OpenTelemetry's standard variables (docs/operations.md,
// "Tracing"): spans are exported only when an endpoint is set.
func readTracing(c *config) {
	t := &c.Tracing
	base, traces := env("OTEL_EXPORTER_OTLP_ENDPOINT", ""), env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	ep, err := tracing.TracesEndpoint(base, traces)
	switch {
	case err != nil && traces != "":
		badSetting("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces, err.Error())
	case err != nil:
		badSetting("OTEL_EXPORTER_OTLP_ENDPOINT", base, err.Error())
	default:
		t.Endpoint = ep
	}
	// The signal's own headers are added to (and override) the common ones.
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		h, err := tracing.ParseHeaders(env(name, ""))
		if err != nil {
			badSetting(name, "…", err.Error()) // the value may hold a key: not shown
			continue
		}
		if len(h) > 0 && t.Headers == nil {
			t.Headers = map[string]string{}
		}
		maps.Copy(t.Headers, h)
	}
	t.ServiceName = env("OTEL_SERVICE_NAME", tracing.DefaultServiceName)
	name, arg := env("OTEL_TRACES_SAMPLER", ""), env("OTEL_TRACES_SAMPLER_ARG", "")
	switch s, err := tracing.ParseSampler(name, arg); {
	case tracing.IsRatioError(err):
		badSetting("OTEL_TRACES_SAMPLER_ARG", arg, err.Error())
	case err != nil:
		badSetting("OTEL_TRACES_SAMPLER", name, err.Error())
	default:
		t.Sampler = s
	}
	t.Fields = envBool("LOUPE_TRACE_FIELDS", false)
}

// The settings read: every env* call names its variable, so that the
// configuration is checked as a whole (loadConfig gathers each bad value
// into config.Problems: the start stops with one line per bad setting,
// never running on a default the operator did not choose) and the settings
// read can be held against the documented ones (settings_test.go).
var settingsRead struct {
	sync.Mutex
	names    map[string]bool
	problems []string
}

// readSetting records that name was read and answers its value.
func readSetting(name string) string {
	settingsRead.Lock()
	defer settingsRead.Unlock()
	if settingsRead.names == nil {
		settingsRead.names = map[string]bool{}
	}
	settingsRead.names[name] = true
	return os.Getenv(name)
}

// badSetting records a value that cannot be used.
func badSetting(name, v, want string) {
	settingsRead.Lock()
	defer settingsRead.Unlock()
	settingsRead.problems = append(settingsRead.problems, fmt.Sprintf("%s: %q is not %s", name, v, want))
}

// takeProblems answers the bad values recorded since the last call.
func takeProblems() []string {
	settingsRead.Lock()
	defer settingsRead.Unlock()
	p := settingsRead.problems
	settingsRead.problems = nil
	return p
}

func env(name, def string) string {
	if v := readSetting(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	v := readSetting(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		badSetting(name, v, "an integer")
		return def
	}
	return n
}

func envBool(name string, def bool) bool {
	v := readSetting(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		badSetting(name, v, "a boolean (true or false)")
		return def
	}
	return b
}

func envDuration(name string, def time.Duration) time.Duration {
	v := readSetting(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		badSetting(name, v, "a duration (like 500ms, 10s or 2m)")
		return def
	}
	return d
}

func portOf(addr string) string {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[i:]
		}
	}
	return ""
}
