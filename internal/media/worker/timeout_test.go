package worker

import (
	"testing"
	"time"
)

func TestTranscodeTimeout(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		want    time.Duration
	}{
		{-1, Timeout},                       // unknown: the longest
		{0, 2 * time.Minute},                // a still image, a document
		{60, 2*time.Minute + 3*time.Minute}, // a minute: three times its length
		{3600, 2*time.Minute + 3*time.Hour}, // an hour
		{1e7, 24 * Timeout},                 // bounded
	} {
		if got := TranscodeTimeout(transcodeFloor, c.seconds); got != c.want {
			t.Errorf("TranscodeTimeout(%v) = %v, want %v", c.seconds, got, c.want)
		}
	}
	if got := TranscodeTimeout(10*time.Second, 10); got != 40*time.Second {
		t.Errorf("with a floor of 10 s: %v", got)
	}
}
