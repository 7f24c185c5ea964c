// Package live measures live pipelines' sources (spec 2.21; docs/live.md
// "Pipelines"): which addresses a source may reach (Policy), one
// measurement of a pipeline's active source with ffprobe and a timeout
// (Service.Measure), worded as what a person can fix, and the scheduler
// loop that measures every pipeline again on its interval.
package live

import (
	"time"
)

// Defaults of Config.
const (
	DefaultProbeInterval = time.Minute
	DefaultProbeTimeout  = 10 * time.Second
	DefaultConcurrency   = 2
)

// Config is the operator's (server.Config.Live; LOUPE_LIVE_*).
type Config struct {
	// ProbeInterval is how often every pipeline's active source is
	// measured again (LOUPE_LIVE_PROBE_INTERVAL; 1 min).
	ProbeInterval time.Duration
	// ProbeTimeout bounds one measurement (LOUPE_LIVE_PROBE_TIMEOUT; 10 s).
	ProbeTimeout time.Duration
	// AllowLoopback lets sources be on this node's loopback
	// (LOUPE_LIVE_ALLOW_LOOPBACK; tests, a gateway on the same machine).
	AllowLoopback bool
	// DenyPrivate refuses private addresses (RFC 1918, ULA, CGNAT), which
	// are allowed by default: a studio's feeds are on its own network
	// (LOUPE_LIVE_DENY_PRIVATE).
	DenyPrivate bool
	// Concurrency is how many measurements a node runs at once (2).
	Concurrency int

	// SegmentSeconds is the length of a recording's segments
	// (LOUPE_LIVE_SEGMENT_SECONDS; 4): the growing proxy is playable
	// about two of them after the source sent a frame.
	SegmentSeconds int
	// RecordingLease is how long a node holds a recording without
	// renewing it (LOUPE_LIVE_RECORDING_LEASE; 2 s): a dead node's
	// recording goes on elsewhere after at most about this long.
	RecordingLease time.Duration
	// MaxRecordings is how many recordings a node records at once
	// (LOUPE_LIVE_MAX_RECORDINGS; 16).
	MaxRecordings int
}

func (c Config) maxRecordings() int {
	if c.MaxRecordings > 0 {
		return c.MaxRecordings
	}
	return 16
}

// WithDefaults fills what is unset.
func (c Config) WithDefaults() Config {
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = DefaultProbeTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	return c
}

// staleAfter is how long a measurement stays current: two intervals and a
// probe's time, so that one late tick does not make it stale.
func (c Config) staleAfter() time.Duration { return 2*c.ProbeInterval + c.ProbeTimeout }
