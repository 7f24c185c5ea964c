package blob

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// List implements Store with one ListObjectsV2 (StartAfter is the
// position). It reports every key the bucket has under the prefix, also
// those written by other tools that ValidKey refuses (an ingest scan sees
// them; the store's reads answer ErrNotFound for them).
func (s *S3) List(ctx context.Context, prefix, after string, limit int) ([]Object, bool, error) {
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), MaxKeys: aws.Int32(int32(limit))}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	if after != "" {
		in.StartAfter = aws.String(after)
	}
	out, err := s.client.ListObjectsV2(ctx, in)
	if err != nil {
		return nil, false, s3Error("list", prefix, err)
	}
	page := make([]Object, 0, len(out.Contents))
	for _, o := range out.Contents {
		page = append(page, Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: unquote(o.ETag), ModTime: aws.ToTime(o.LastModified)})
	}
	return page, aws.ToBool(out.IsTruncated), nil
}
