package rest_test

import (
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// TestMain stops the S3 server the storage location tests start.
//
// The package's longest tests (media processing, analysis engines, renders,
// replication, the hostile and access suites: minutes of the package's
// time) call t.Parallel: each has its own database and server, and they run
// two at a time (-parallel defaults to the cores) after the others, while
// the other packages of `make test` have mostly finished and left a core
// idle. The browser tests and TestEarlyPoster stay serial: what they
// check happens against the clock (playback, a poster before the proxy).
func TestMain(m *testing.M) { s3test.Main(m) }
