package replicate

import (
	"crypto/md5" //nolint:gosec // S3's ETag is an MD5: what the destination computed of what it received
	hexenc "encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// Verification on arrival without reading the copy back: an S3 server
// answers each PUT and each uploaded part with its ETag, the MD5 of the
// bytes it received, and a completed multipart upload with the MD5 of the
// parts' MD5s and their count. Compared with the MD5 of the bytes sent,
// they say the destination holds exactly those bytes (whose SHA-256 was
// taken as they were read). Where an ETag is no MD5 — a disk store's, an
// SSE-KMS object's, a server that composes otherwise — the copy is read
// back instead (verify).

// md5ETag is an ETag that is an MD5, unquoted; false when it is not one.
func md5ETag(etag string) (string, bool) {
	e := strings.ToLower(strings.Trim(etag, `"`))
	if len(e) != 2*md5.Size {
		return "", false
	}
	if _, err := hexenc.DecodeString(e); err != nil {
		return "", false
	}
	return e, true
}

// arrived checks an ETag against the MD5 of the bytes sent: whether it
// vouches for them (false when it is no MD5), or errBadCopy when it
// differs.
func arrived(etag string, sent []byte, what string) (bool, error) {
	got, ok := md5ETag(etag)
	if !ok {
		return false, nil
	}
	if want := hexenc.EncodeToString(sent); got != want {
		return false, fmt.Errorf("%w: %s arrived with MD5 %s, %s was sent", errBadCopy, what, got, want)
	}
	return true, nil
}

// partSum is one part's MD5 as its ETag says it (checked when it arrived).
func partSum(p blob.Part) ([]byte, bool) {
	e, ok := md5ETag(p.ETag)
	if !ok {
		return nil, false
	}
	b, _ := hexenc.DecodeString(e)
	return b, true
}

// multipartVouched says whether a completed upload's ETag is the S3
// composite of its parts' MD5s: then, the parts having been checked one
// by one, the object is the bytes sent. False (read it back) otherwise.
func multipartVouched(parts []blob.Part, etag string) bool {
	h := md5.New() //nolint:gosec // S3's composite
	for _, p := range parts {
		sum, ok := partSum(p)
		if !ok {
			return false
		}
		h.Write(sum) //nolint:errcheck // hashes never fail
	}
	want := hexenc.EncodeToString(h.Sum(nil)) + "-" + strconv.Itoa(len(parts))
	return strings.Trim(etag, `"`) == want
}
