package blob

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Tags returns the object's tags (S3's GetObjectTagging): one request per
// object, which an ingest filtering on tags pays for each object it lists.
// Returns ErrNotFound when there is no object under key.
func (s *S3) Tags(ctx context.Context, key string) (map[string]string, error) {
	out, err := s.client.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		return nil, s3Error("tags", key, err)
	}
	tags := make(map[string]string, len(out.TagSet))
	for _, t := range out.TagSet {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return tags, nil
}
