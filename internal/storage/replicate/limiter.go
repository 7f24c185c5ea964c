package replicate

import (
	"io"
	"time"
)

// limiter keeps a reader to a rate (a source's maxBytesPerSecond): it
// sleeps so that the bytes read since the start never run ahead of
// rate × elapsed by more than a tenth of a second's worth.
type limiter struct {
	rate  float64
	start time.Time
	n     int64
}

// newLimiter makes a limiter of rate bytes a second (nil: no limit).
func newLimiter(rate int64) *limiter {
	if rate <= 0 {
		return nil
	}
	return &limiter{rate: float64(rate), start: time.Now()}
}

// wait accounts for n bytes read, sleeping as needed.
func (l *limiter) wait(n int) {
	if l == nil {
		return
	}
	l.n += int64(n)
	ahead := time.Duration(float64(l.n)/l.rate*float64(time.Second)) - time.Since(l.start)
	if ahead > 100*time.Millisecond {
		time.Sleep(ahead)
	}
}

// meter reads through a limiter and counts what it read into p (when not
// nil). Reads are cut to a tenth of a second's worth so that the limiter
// paces them evenly.
type meter struct {
	r     io.Reader
	p     *progress
	limit *limiter
}

func (m *meter) Read(b []byte) (int, error) {
	if m.limit != nil {
		b = b[:min(len(b), max(int(m.limit.rate/10), 32<<10))]
	}
	n, err := m.r.Read(b)
	m.limit.wait(n)
	if m.p != nil {
		m.p.done.Add(int64(n))
	}
	return n, err
}
