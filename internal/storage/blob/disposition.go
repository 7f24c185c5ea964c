package blob

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// DownloadPresigner hands out a GET link to one blob that answers it as an
// attachment named fileName (Content-Disposition: attachment), the way a
// browser saves it under the user's own file name rather than the key's
// last segment. S3 signs the response-content-disposition override; the
// Signer signs the name into its own link.
type DownloadPresigner interface {
	PresignDownload(ctx context.Context, key, fileName string, ttl time.Duration) (string, error)
}

// AttachmentDisposition is the Content-Disposition of a download named
// name: an ASCII fallback in filename (RFC 6266) and, when the name is not
// plain ASCII, the exact name in filename* (RFC 5987, UTF-8).
func AttachmentDisposition(name string) string {
	var fallback strings.Builder
	plain := true
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			fallback.WriteByte('_')
			plain = false
			continue
		}
		fallback.WriteRune(r)
	}
	d := `attachment; filename="` + fallback.String() + `"`
	if !plain {
		d += "; filename*=UTF-8''" + attrEscape(name)
	}
	return d
}

// attrEscape percent-encodes every byte that is not an RFC 5987 attr-char.
func attrEscape(s string) string {
	const attrChars = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(attrChars, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)) + strings.ToUpper(strconv.FormatUint(uint64(c)&15, 16)))
	}
	return b.String()
}

// DownloadURL is a GET link to the blob at key, valid until now+ttl, that
// answers as an attachment named fileName: with DirectDownloads a
// presigned URL of the backend (when it presigns downloads), else the
// server's own link, the name covered by its signature.
func (s *Signer) DownloadURL(key, fileName string, now time.Time, ttl time.Duration) string {
	if dp, ok := s.direct.(DownloadPresigner); ok {
		if u, err := dp.PresignDownload(context.Background(), key, fileName, min(time.Until(now.Add(ttl)), MaxPresignTTL)); err == nil {
			return u
		}
	}
	return s.downloadLink(key, fileName, now.Add(ttl))
}

func (s *Signer) downloadLink(key, fileName string, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	q := url.Values{"method": {"GET"}, "expires": {exp}, "filename": {fileName},
		"signature": {s.signDownload(key, exp, fileName)}}
	return s.baseURL + PathPrefix + escapeKey(key) + "?" + q.Encode()
}

// PresignDownload implements DownloadPresigner with the server's own links.
func (s *Signer) PresignDownload(_ context.Context, key, fileName string, ttl time.Duration) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	return s.downloadLink(key, fileName, time.Now().Add(ttl)), nil
}

// signDownload signs a download link: the plain GET's signature input
// with the file name after it, so that a link's name cannot be changed
// (nor one added to, or dropped from, a link).
func (s *Signer) signDownload(key, expires, fileName string) string {
	return s.sign("GET", key, expires+"\nattachment\n"+fileName)
}

// verifyDownload checks a download link's query (a GET link with filename).
func (s *Signer) verifyDownload(key string, q url.Values, now time.Time) error {
	return checkLink(q, http.MethodGet, s.signDownload(key, q.Get("expires"), q.Get("filename")), now)
}

// PresignDownload implements DownloadPresigner: S3 answers the GET with
// the Content-Disposition signed into the URL.
func (s *S3) PresignDownload(ctx context.Context, key, fileName string, ttl time.Duration) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	if ttl <= 0 || ttl > MaxPresignTTL {
		return "", errors.New("blob: a presigned URL is valid for up to " + MaxPresignTTL.String())
	}
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), ResponseContentDisposition: aws.String(AttachmentDisposition(fileName)),
	}, func(o *s3.PresignOptions) { o.Expires = ttl })
	if err != nil {
		return "", s3Error("presign get", key, err)
	}
	return req.URL, nil
}
