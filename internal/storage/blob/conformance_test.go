package blob_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/blob/blobtest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
)

// TestMain stops the test S3 server after the package's tests.
func TestMain(m *testing.M) { s3test.Main(m) }

// TestDiskConformance runs the store suite on a directory, with presigned
// links answered by the /blobs/ handler.
func TestDiskConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobtest.Backend {
		d, err := blob.NewDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(nil)
		t.Cleanup(srv.Close)
		signer := blob.NewSigner([]byte("conformance-test-key-0123456789abcdef"), srv.URL)
		srv.Config.Handler = &blob.Handler{Store: d, Signer: signer}
		return blobtest.Backend{Store: d, Presigner: blob.PresignerFor(d, signer)}
	})
}

// TestS3Conformance runs the same suite on a bucket of a real S3 server,
// with the smallest parts S3 allows, so that multi-MiB bodies go multipart
// and copies go in parts.
func TestS3Conformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blobtest.Backend {
		cfg := s3test.Bucket(t)
		cfg.PartSize = blob.MinPartSize
		cfg.CopyPartSize = blob.MinPartSize
		s, err := blob.NewS3(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return blobtest.Backend{Store: s, Presigner: blob.PresignerFor(s, nil), PartSize: cfg.PartSize}
	})
}
