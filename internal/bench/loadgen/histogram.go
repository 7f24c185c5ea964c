package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// histogram counts latencies in log-linear buckets: exact microseconds below
// 1024 µs, then 512 linear sub-buckets per power of two, so that a quantile
// is off by less than 0.2% of its value. It is a fixed array, so recording
// costs no allocation and no lock (each worker owns one; they are merged at
// the end). Latencies above maxTrackable share the top bucket; the exact
// maximum is kept beside.
type histogram struct {
	counts [numBuckets]int64
	n      int64
	max    int64 // µs
}

const (
	subBits      = 9                  // 512 sub-buckets per power of two
	linearLimit  = 1 << (subBits + 1) // 1024 µs: exact below this
	maxTrackable = 10 * 1000 * 1000   // 10 s in µs
	topExponent  = 24 - (subBits + 1) // bits.Len64(maxTrackable) = 24
	numBuckets   = linearLimit + topExponent*(1<<subBits)
)

// bucketOf maps a latency in µs to its bucket.
func bucketOf(us int64) int {
	if us < linearLimit {
		if us < 0 {
			return 0
		}
		return int(us)
	}
	if us > maxTrackable {
		us = maxTrackable
	}
	e := bits.Len64(uint64(us)) - (subBits + 1) // ≥ 1: shift keeping the top 10 bits
	m := us >> e                                // in [512, 1023]
	return linearLimit + (e-1)<<subBits + int(m-(1<<subBits))
}

// valueOf is the middle of a bucket, in µs: the estimate a quantile reports.
func valueOf(b int) int64 {
	if b < linearLimit {
		return int64(b)
	}
	e := (b-linearLimit)>>subBits + 1
	m := int64((b-linearLimit)&(1<<subBits-1)) + 1<<subBits
	return m<<e + (int64(1)<<e)/2
}

func (h *histogram) record(d time.Duration) {
	us := d.Microseconds()
	h.counts[bucketOf(us)]++
	h.n++
	if us > h.max {
		h.max = us
	}
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile answers the latency below which a fraction q of the recorded
// ones fall (nearest rank), never above the true maximum.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := min(max(int64(math.Ceil(q*float64(h.n))), 1), h.n)
	var seen int64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(valueOf(b), h.max)) * time.Microsecond
		}
	}
	return time.Duration(h.max) * time.Microsecond
}
