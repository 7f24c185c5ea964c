package blob

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// ErrBadEventsTarget is the answer for a target ARN that is not a queue, a
// topic or a function.
var ErrBadEventsTarget = errors.New("blob: an event target is the ARN of a queue (sqs), a topic (sns) or a function (lambda)")

// AttachEvents makes the bucket send an event to target (the ARN of a
// queue, topic or function set up by the operator: AWS SQS/SNS/Lambda, or a
// MinIO-style notification target such as arn:minio:sqs::loupe:webhook) for
// every object created under the store's probe prefix. The configuration
// entry is named id; one of that name is replaced, others are kept. It is
// read back afterwards: a service that accepts the write but keeps nothing
// fails here rather than silently sending no events.
func (s *S3) AttachEvents(ctx context.Context, id, target string) error {
	arnParts := strings.SplitN(target, ":", 6)
	if len(arnParts) != 6 || arnParts[0] != "arn" {
		return ErrBadEventsTarget
	}
	cur, err := s.client.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{
		Bucket: aws.String(s.bucket),
	})
	if err != nil {
		return fmt.Errorf("the event triggers of bucket %s cannot be read: %w", s.bucket, err)
	}
	events := []types.Event{"s3:ObjectCreated:*"}
	var filter *types.NotificationConfigurationFilter
	if s.probePrefix != "" {
		filter = &types.NotificationConfigurationFilter{Key: &types.S3KeyFilter{FilterRules: []types.FilterRule{
			{Name: types.FilterRuleNamePrefix, Value: aws.String(s.probePrefix)},
		}}}
	}
	next := &types.NotificationConfiguration{EventBridgeConfiguration: cur.EventBridgeConfiguration}
	for _, q := range cur.QueueConfigurations {
		if aws.ToString(q.Id) != id {
			next.QueueConfigurations = append(next.QueueConfigurations, q)
		}
	}
	for _, t := range cur.TopicConfigurations {
		if aws.ToString(t.Id) != id {
			next.TopicConfigurations = append(next.TopicConfigurations, t)
		}
	}
	for _, l := range cur.LambdaFunctionConfigurations {
		if aws.ToString(l.Id) != id {
			next.LambdaFunctionConfigurations = append(next.LambdaFunctionConfigurations, l)
		}
	}
	switch arnParts[2] {
	case "sqs":
		next.QueueConfigurations = append(next.QueueConfigurations,
			types.QueueConfiguration{Id: aws.String(id), QueueArn: aws.String(target), Events: events, Filter: filter})
	case "sns":
		next.TopicConfigurations = append(next.TopicConfigurations,
			types.TopicConfiguration{Id: aws.String(id), TopicArn: aws.String(target), Events: events, Filter: filter})
	case "lambda":
		next.LambdaFunctionConfigurations = append(next.LambdaFunctionConfigurations,
			types.LambdaFunctionConfiguration{Id: aws.String(id), LambdaFunctionArn: aws.String(target), Events: events, Filter: filter})
	default:
		return ErrBadEventsTarget
	}
	_, err = s.client.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(s.bucket), NotificationConfiguration: next,
	})
	if err != nil {
		return fmt.Errorf("event triggers cannot be attached to bucket %s: %w", s.bucket, err)
	}
	got, err := s.client.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{
		Bucket: aws.String(s.bucket),
	})
	if err != nil {
		return fmt.Errorf("the event triggers of bucket %s cannot be read back: %w", s.bucket, err)
	}
	for _, q := range got.QueueConfigurations {
		if aws.ToString(q.Id) == id || aws.ToString(q.QueueArn) == target {
			return nil
		}
	}
	for _, t := range got.TopicConfigurations {
		if aws.ToString(t.Id) == id || aws.ToString(t.TopicArn) == target {
			return nil
		}
	}
	for _, l := range got.LambdaFunctionConfigurations {
		if aws.ToString(l.Id) == id || aws.ToString(l.LambdaFunctionArn) == target {
			return nil
		}
	}
	return fmt.Errorf("bucket %s accepted the event triggers but does not keep them", s.bucket)
}
