package worker

import (
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe/internal/jobs"
)

// Timeouts of the two phases (probe.go).
const (
	// probeTimeout bounds the first phase.
	probeTimeout = 2 * time.Minute
	// transcodeFloor is the time a run is given whatever the media (claim,
	// store, switch, a still image's renditions); Worker.TimeoutFloor
	// (LOUPE_TRANSCODE_TIMEOUT_FLOOR) changes it.
	transcodeFloor = 2 * time.Minute
	// slowestRealtime is the slowest whole-pipeline speed measured, a 4K
	// HDR clip's (docs/performance.md), rounded down; the timeout gives
	// three times the time it predicts (two runs sharing a node's cores, a
	// slower disk).
	slowestRealtime = 1.0
)

// Timeout implements river.Worker; River's rescuer calls it too, with the
// job of a node that may be dead.
func (w *Worker) Timeout(job *river.Job[jobs.ProcessArgs]) time.Duration {
	if !job.Args.Probed {
		return probeTimeout
	}
	floor := w.TimeoutFloor
	if floor <= 0 {
		floor = transcodeFloor
	}
	return TranscodeTimeout(floor, job.Args.DurationSeconds)
}

// TranscodeTimeout is a run's timeout for an original of d seconds (< 0:
// unknown).
func TranscodeTimeout(floor time.Duration, d float64) time.Duration {
	if d < 0 {
		return Timeout
	}
	return min(Timeout*24, floor+time.Duration(3*d/slowestRealtime*float64(time.Second)))
}
