// Package replicate runs tenants' replication sources (docs/replication.md):
// the scheduler's tick (the ingest trigger, scheduled runs, taking over
// transfers whose worker died), runs (which items' files to copy), and
// transfers — one file each, copied in multipart parts recorded in the
// database so that a copy cut off by a crash resumes from the last part
// that arrived, verified by SHA-256 at the destination before anything
// else happens, and for a move the item switched and the source deleted
// only then.
package replicate

import "time"

// Config tunes the workers; the zero value is the defaults.
type Config struct {
	// Tick is how often the scheduler looks for new originals, due
	// schedules and dead transfers (default 5 s).
	Tick time.Duration
	// Heartbeat is how often a transfer's worker renews its lease and
	// writes its progress (default 2 s); LeaseTTL how long a lease lasts
	// without one (default 15 s): then another worker takes the transfer
	// over.
	Heartbeat time.Duration
	LeaseTTL  time.Duration
	// PartSize is the multipart part size (default 8 MiB, at least
	// blob.MinPartSize; larger when a file would need over 10,000 parts);
	// files up to it are copied in one write. Concurrency is how many
	// parts of one transfer are sent at once (default 2).
	PartSize    int64
	Concurrency int
}

// Defaults of Config.
const (
	DefaultTick        = 5 * time.Second
	DefaultHeartbeat   = 2 * time.Second
	DefaultLeaseTTL    = 15 * time.Second
	DefaultPartSize    = 8 << 20
	DefaultConcurrency = 2
)

func (c Config) withDefaults() Config {
	if c.Tick <= 0 {
		c.Tick = DefaultTick
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.LeaseTTL < 3*c.Heartbeat {
		c.LeaseTTL = 3 * c.Heartbeat
	}
	if c.PartSize <= 0 {
		c.PartSize = DefaultPartSize
	}
	if c.Concurrency < 1 {
		c.Concurrency = DefaultConcurrency
	}
	return c
}
