package s3test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// MinIOVersion is the MinIO server of the bucket event tests (versitygw has
// no bucket events). Its module publishes no release versions; this is its
// last commit's pseudo-version (upstream stopped in February 2026).
// scripts/deps builds the same (keep the two in step).
const MinIOVersion = "v0.0.0-20260212201848-7aac2a2c5b7c"

// MinIOBinary is where scripts/deps puts the MinIO binary.
func MinIOBinary() (string, error) { return cached("minio", MinIOVersion) }

// WebhookARN is the ARN bucket notifications name a webhook target of
// StartMinIO by.
func WebhookARN(id string) string { return "arn:minio:sqs::" + strings.ToUpper(id) + ":webhook" }

// StartMinIO runs a MinIO server for the test, stopped at its end, whose
// webhook notification targets are webhooks (id → the URL events are
// POSTed to; WebhookARN(id) names it in a bucket's notification
// configuration). It skips (fails where required) when MinIO is not built.
func StartMinIO(t testing.TB, webhooks map[string]string) *Server {
	t.Helper()
	bin := built(t, "MinIO "+MinIOVersion, MinIOBinary)
	s, err := startServer("minio", func(s *Server, root, port string) *exec.Cmd {
		cmd := exec.Command(bin, "server", "--quiet", "--address", port, root)
		cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+s.AccessKeyID, "MINIO_ROOT_PASSWORD="+s.SecretAccessKey,
			"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_REGION="+Region)
		for id, url := range webhooks {
			id = strings.ToUpper(id)
			cmd.Env = append(cmd.Env, "MINIO_NOTIFY_WEBHOOK_ENABLE_"+id+"=on", "MINIO_NOTIFY_WEBHOOK_ENDPOINT_"+id+"="+url)
		}
		return cmd
	})
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	t.Cleanup(s.stop)
	return s
}
