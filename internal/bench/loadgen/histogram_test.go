package loadgen

import (
	"testing"
	"time"
)

func TestBucketsCoverTheRange(t *testing.T) {
	prev := -1
	for _, us := range []int64{0, 1, 2, 1023, 1024, 1025, 2047, 2048, 4096, 1e5, 1e6, maxTrackable - 1, maxTrackable} {
		b := bucketOf(us)
		if b < prev || b >= numBuckets {
			t.Fatalf("bucketOf(%d) = %d after %d (of %d)", us, b, prev, numBuckets)
		}
		prev = b
		// A bucket's middle is within 0.2% of every value in it.
		if v := valueOf(b); float64(abs(v-us)) > 0.002*float64(us)+0.5 {
			t.Errorf("valueOf(bucketOf(%d)) = %d: off by more than 0.2%%", us, v)
		}
	}
	if got := bucketOf(maxTrackable * 5); got != bucketOf(maxTrackable) {
		t.Errorf("above 10 s: bucket %d, want the top one %d", got, bucketOf(maxTrackable))
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestQuantiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ { // 1 ms .. 1000 ms
		h.record(time.Duration(i) * time.Millisecond)
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.9, 900 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, time.Second}} {
		got := h.quantile(tc.q)
		if d := got - tc.want; d < -tc.want/500 || d > tc.want/500 {
			t.Errorf("quantile(%v) = %v, want %v ± 0.2%%", tc.q, got, tc.want)
		}
	}
	var empty histogram
	if got := empty.quantile(0.5); got != 0 {
		t.Errorf("empty quantile = %v, want 0", got)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	var h histogram
	if n := testing.AllocsPerRun(1000, func() { h.record(1234 * time.Microsecond) }); n != 0 {
		t.Errorf("record allocates %v times", n)
	}
}
