package live_test

import (
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// The recordings' tests store their segments in the S3 server s3test
// starts (and stops after the tests).
func TestMain(m *testing.M) { s3test.Main(m) }
