// Package sqlcount wraps lib/pq in a database/sql driver that counts the
// statements sent to Postgres, so tests and benchmarks can assert how many
// SQL statements a request costs (and catch N+1 queries).
package sqlcount

import "sync/atomic"

// Counter counts statement executions. It is safe for concurrent use; a nil
// *Counter counts nothing.
type Counter struct {
	n atomic.Int64
}

// Count is the number of statements executed since the last Reset.
func (c *Counter) Count() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

// Reset sets the count to zero.
func (c *Counter) Reset() {
	if c != nil {
		c.n.Store(0)
	}
}

func (c *Counter) add() {
	if c != nil {
		c.n.Add(1)
	}
}
