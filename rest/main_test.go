package rest_test

import (
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// TestMain stops the S3 server the storage location tests start.
func TestMain(m *testing.M) { s3test.Main(m) }
