package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Checker is a Store that can tell whether it works (the system scope's
// storage manager status).
type Checker interface {
	Check(ctx context.Context) error
}

// Check writes and removes a probe file: the directory exists, is writable
// and has room for a file.
func (d *Disk) Check(context.Context) error {
	f, err := os.CreateTemp(d.root, ".probe-*")
	if err != nil {
		return fmt.Errorf("files cannot be written under %s", d.root)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("files cannot be removed under %s", filepath.Dir(name))
	}
	return nil
}

// Check writes and removes a probe object: the bucket exists and the
// credentials may write and delete in it. The probe's key starts with a
// dot, which no blob's can; it goes under ProbePrefix.
func (s *S3) Check(ctx context.Context) error {
	b := make([]byte, 8)
	rand.Read(b) //nolint:errcheck // never fails
	key := s.probePrefix + ".loupe-probe-" + hex.EncodeToString(b)
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), Body: strings.NewReader("probe"),
	})
	if err != nil {
		return fmt.Errorf("objects cannot be written to bucket %s: %w", s.bucket, err)
	}
	_, err = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("objects cannot be removed from bucket %s: %w", s.bucket, err)
	}
	return nil
}
