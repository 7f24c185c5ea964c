package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// s3FromEnv reads the S3 settings (README: Configuration; docs/storage.md).
// With LOUPE_S3_BUCKET set the server keeps its files in that bucket;
// without, on local disk under LOUPE_BLOB_DIR.
func s3FromEnv() blob.S3Config {
	return blob.S3Config{
		Endpoint:        env("LOUPE_S3_ENDPOINT", ""),
		Region:          env("LOUPE_S3_REGION", ""),
		Bucket:          env("LOUPE_S3_BUCKET", ""),
		PathStyle:       envBool("LOUPE_S3_PATH_STYLE", false),
		AccessKeyID:     env("LOUPE_S3_ACCESS_KEY_ID", ""),
		SecretAccessKey: env("LOUPE_S3_SECRET_ACCESS_KEY", ""),
		SessionToken:    env("LOUPE_S3_SESSION_TOKEN", ""),
		RoleARN:         env("LOUPE_S3_ROLE_ARN", ""),
		ExternalID:      env("LOUPE_S3_EXTERNAL_ID", ""),
		STSEndpoint:     env("LOUPE_S3_STS_ENDPOINT", ""),
		PartSize:        int64(envInt("LOUPE_S3_PART_SIZE", 0)),
		Concurrency:     envInt("LOUPE_S3_CONCURRENCY", 0),
	}
}

// s3Configured reports whether any LOUPE_S3_ setting is present: then the
// bucket is required, rather than falling back to disk unnoticed.
func s3Configured() bool {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LOUPE_S3_") && !strings.HasSuffix(kv, "=") {
			return true
		}
	}
	return false
}

// openFiles opens the store of the server's files: the S3 bucket when one
// is configured — checked by writing and removing a probe object, so that
// a wrong endpoint, bucket or key stops the start with a clear message
// instead of failing the first upload — else the directory.
func openFiles(ctx context.Context, c config) (blob.Store, error) {
	if c.S3.Bucket == "" {
		if s3Configured() {
			return nil, errors.New("LOUPE_S3_BUCKET is required with the other LOUPE_S3_ settings")
		}
		d, err := blob.NewDisk(c.BlobDir)
		if err != nil {
			return nil, err
		}
		slog.Info("files are kept on local disk", "dir", d.Root())
		return d, nil
	}
	s, err := blob.NewS3(ctx, c.S3)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Check(cctx); err != nil {
		return nil, fmt.Errorf("files: %s: %w", c.S3, err)
	}
	slog.Info("files are kept in S3", "store", c.S3.String())
	return s, nil
}
