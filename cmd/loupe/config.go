package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/loupe-mam/loupe/internal/live"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
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
	// CORSOrigins is LOUPE_CORS_ORIGINS as set: cmdServe parses it into
	// App.CORSOrigins and refuses to start on an entry that is no origin.
	CORSOrigins string
	App         server.Config
}

func loadConfig() config {
	c := config{
		Addr:           env("LOUPE_ADDR", ":8080"),
		DatabaseURL:    os.Getenv("DATABASE_URL"),
		DataDir:        env("LOUPE_DATA_DIR", ".loupe"),
		PGDir:          os.Getenv("LOUPE_PG_DIR"),
		PGPort:         envInt("LOUPE_PG_PORT", 54329),
		BlobKey:        os.Getenv("LOUPE_BLOB_KEY"),
		CredentialsKey: os.Getenv("LOUPE_CREDENTIALS_KEY"),
		DBPool:         envInt("LOUPE_DB_POOL", 8),
		PprofAddr:      os.Getenv("LOUPE_PPROF_ADDR"),
		APIKeyHeaders:  os.Getenv("LOUPE_API_KEY_HEADERS"),
		CORSOrigins:    os.Getenv("LOUPE_CORS_ORIGINS"),
		App:            server.DefaultConfig(),
	}
	c.MetricsAddr = env("LOUPE_METRICS_ADDR", metrics.DefaultAddr)
	c.MetricsAddrSet = os.Getenv("LOUPE_METRICS_ADDR") != ""
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
	c.App.BucketEventsTarget = os.Getenv("LOUPE_BUCKET_EVENTS_ARN")
	// The externalSpeechToText service (docs/analysis.md).
	c.App.SpeechToTextURL, c.App.SpeechToTextModel = os.Getenv("LOUPE_STT_URL"), os.Getenv("LOUPE_STT_MODEL")
	c.App.GraphQLInFlight = envInt("LOUPE_GRAPHQL_IN_FLIGHT", c.App.GraphQLInFlight)
	// Resumable uploads (docs/uploads.md): this node's name in upload
	// locks, the smallest part, where a body of unknown length is spooled.
	c.App.InstanceID = os.Getenv("LOUPE_INSTANCE_ID")
	c.App.UploadPartSize = int64(envInt("LOUPE_UPLOAD_PART_SIZE", 0))
	c.App.UploadReadAhead = int64(envInt("LOUPE_UPLOAD_READ_AHEAD", 0))
	c.App.UploadSpoolDir = os.Getenv("LOUPE_UPLOAD_SPOOL_DIR")
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
	return c
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loupe: %s=%q is not an integer; using %d\n", name, v, def)
		return def
	}
	return n
}

func envBool(name string, def bool) bool {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loupe: %s=%q is not a boolean; using %v\n", name, v, def)
		return def
	}
	return b
}

func envDuration(name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loupe: %s=%q is not a duration; using %v\n", name, v, def)
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
