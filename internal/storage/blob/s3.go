package blob

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// S3Config says where an S3 store lives and how it signs in. It holds
// secrets: its String method leaves them out, and no error of this package
// contains them.
type S3Config struct {
	// Endpoint is the service's base URL (https://minio.example:9000);
	// empty for AWS itself.
	Endpoint string
	// Region signs requests (us-east-1 when empty; most S3-compatible
	// services accept any).
	Region string
	// Bucket holds the blobs. It must exist.
	Bucket string
	// PathStyle addresses the bucket as <endpoint>/<bucket>/<key> rather
	// than <bucket>.<endpoint>/<key>: what MinIO, Ceph and versitygw
	// expect unless they are set up with wildcard DNS.
	PathStyle bool

	// AccessKeyID and SecretAccessKey (plus SessionToken for temporary
	// keys) are the "key-user" credentials. Empty, the SDK's default
	// chain is used (AWS_* environment, shared config, instance role).
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string

	// RoleARN, when set, makes the store "assume-role": it asks STS for
	// temporary credentials of that role, signing in with the credentials
	// above (or the default chain), and refreshes them before they
	// expire. ExternalID is passed along as the role's trust policy
	// requires (the confused-deputy guard for a role in a customer's
	// account). This needs an STS: AWS's (STSEndpoint empty), or one at
	// STSEndpoint (MinIO has one; versitygw, Ceph RGW in most setups, R2
	// and Wasabi have none — use key-user credentials there).
	RoleARN         string
	ExternalID      string
	RoleSessionName string
	STSEndpoint     string

	// PartSize is the size of the parts Put uploads a large body in, and
	// the size above which it uses multipart at all (default 8 MiB; at
	// least 5 MiB). Put holds at most PartSize × (Concurrency + 2) bytes
	// of a body in memory; a body whose size Put knows (WithSize) gets
	// larger parts when it would otherwise need more than 10,000.
	PartSize int64
	// Concurrency is how many parts Put and Copy send at once (default 2).
	Concurrency int
	// CopyPartSize is the size above which Copy copies in parts of that
	// size (UploadPartCopy), as S3 requires above 5 GiB (default 1 GiB;
	// between 5 MiB and 5 GiB).
	CopyPartSize int64

	// ProbePrefix is where Check writes its probe object (empty: the
	// bucket's top): a storage location's path prefix, for credentials
	// that may write only there. It ends in "/" unless empty.
	ProbePrefix string

	// HTTPClient sends the requests (the SDK's default client when nil):
	// for a private CA, a proxy, or a test that looks at the requests.
	HTTPClient aws.HTTPClient
}

// Defaults of S3Config.
const (
	DefaultS3Region       = "us-east-1"
	DefaultS3PartSize     = 8 << 20
	DefaultS3Concurrency  = 2
	DefaultS3CopyPartSize = 1 << 30
)

// String describes the store without its credentials.
func (c S3Config) String() string {
	auth := "default credential chain"
	if c.AccessKeyID != "" {
		auth = "key-user"
	}
	if c.RoleARN != "" {
		auth += " assuming " + c.RoleARN
	}
	ep := c.Endpoint
	if ep == "" {
		ep = "AWS"
	}
	return fmt.Sprintf("s3 bucket %q at %s (region %s, %s)", c.Bucket, ep, c.Region, auth)
}

// GoString keeps %#v from printing the secrets too.
func (c S3Config) GoString() string { return c.String() }

// S3 is a Store in an S3-compatible bucket (AWS, MinIO, Ceph RGW, Wasabi,
// R2, versitygw, …), through aws-sdk-go-v2.
type S3 struct {
	client       *s3.Client
	presign      *s3.PresignClient
	uploader     *transfermanager.Client
	bucket       string
	partSize     int64
	concurrency  int
	copyPartSize int64
	probePrefix  string
}

// NewS3 makes an S3 store. It checks the configuration, not the bucket:
// Check does that.
func NewS3(ctx context.Context, c S3Config) (*S3, error) {
	if err := c.fill(); err != nil {
		return nil, err
	}
	loads := []func(*config.LoadOptions) error{
		config.WithRegion(c.Region),
		// The SDK's default CRC32 checksums on every request are refused
		// by Ceph, R2 and older MinIO: compute and check them only where
		// an operation requires it. Put verifies content with its own
		// SHA-256 instead.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if c.AccessKeyID != "" {
		loads = append(loads, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 configuration: %w", err)
	}
	if c.HTTPClient != nil {
		// Set after loading: the loader would otherwise insist on adding
		// AWS_CA_BUNDLE to a client it does not know how to change.
		cfg.HTTPClient = c.HTTPClient
	}
	if c.RoleARN != "" {
		stsClient := sts.NewFromConfig(cfg, func(o *sts.Options) {
			if c.STSEndpoint != "" {
				o.BaseEndpoint = aws.String(c.STSEndpoint)
			}
		})
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, c.RoleARN,
			func(o *stscreds.AssumeRoleOptions) {
				if c.ExternalID != "" {
					o.ExternalID = aws.String(c.ExternalID)
				}
				o.RoleSessionName = c.RoleSessionName
			}))
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		o.UsePathStyle = c.PathStyle
	})
	s := &S3{
		client:       client,
		presign:      s3.NewPresignClient(client),
		bucket:       c.Bucket,
		partSize:     c.PartSize,
		concurrency:  c.Concurrency,
		copyPartSize: c.CopyPartSize,
		probePrefix:  c.ProbePrefix,
	}
	s.uploader = transfermanager.New(client, func(o *transfermanager.Options) {
		o.PartSizeBytes = c.PartSize
		// The first part is read whole before the uploader decides
		// between one PUT and multipart: no more than one part.
		o.MultipartUploadThreshold = c.PartSize
		o.Concurrency = c.Concurrency
		// The transfer manager applies its own setting over the
		// client's, and defaults to CRC32 on every part.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		// A failed upload is aborted even when its context is done (the
		// client went away): its parts would otherwise stay, and cost.
		o.FailTimeout = abortTimeout
	})
	return s, nil
}

// fill checks the configuration and sets its defaults.
func (c *S3Config) fill() error {
	if c.Bucket == "" {
		return errors.New("blob: s3 configuration: no bucket")
	}
	for _, ep := range []struct{ name, url string }{{"endpoint", c.Endpoint}, {"STS endpoint", c.STSEndpoint}} {
		if ep.url == "" {
			continue
		}
		u, err := url.Parse(ep.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("blob: s3 configuration: the %s %q is not an http(s) URL", ep.name, ep.url)
		}
	}
	if (c.AccessKeyID == "") != (c.SecretAccessKey == "") {
		return errors.New("blob: s3 configuration: an access key id needs its secret, and a secret its access key id")
	}
	if c.ExternalID != "" && c.RoleARN == "" {
		return errors.New("blob: s3 configuration: an external id is only for assuming a role")
	}
	if c.Region == "" {
		c.Region = DefaultS3Region
	}
	if c.RoleSessionName == "" {
		c.RoleSessionName = "loupe"
	}
	if c.PartSize == 0 {
		c.PartSize = DefaultS3PartSize
	}
	if c.PartSize < MinPartSize || c.PartSize > MaxPartSize {
		return fmt.Errorf("blob: s3 configuration: part size %d is not between %d and %d", c.PartSize, MinPartSize, MaxPartSize)
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultS3Concurrency
	}
	if c.CopyPartSize == 0 {
		c.CopyPartSize = DefaultS3CopyPartSize
	}
	if c.CopyPartSize < MinPartSize || c.CopyPartSize > MaxPartSize {
		return fmt.Errorf("blob: s3 configuration: copy part size %d is not between %d and %d", c.CopyPartSize, MinPartSize, MaxPartSize)
	}
	return nil
}

// Bucket is the bucket the store writes to.
func (s *S3) Bucket() string { return s.bucket }

// unquote strips the quotes S3 puts around an ETag.
func unquote(etag *string) string {
	return strings.Trim(aws.ToString(etag), `"`)
}
