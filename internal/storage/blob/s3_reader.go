package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// s3Reader reads one version of an S3 object and can seek: reading at
// another position than the open body's closes it and issues a ranged GET
// from there, conditional on the same ETag, so that an object replaced
// meanwhile fails the read instead of splicing two versions. Seeking alone
// costs nothing, which is how http.ServeContent learns the size (seek to
// the end and back) before it reads.
type s3Reader struct {
	ctx     context.Context
	s       *S3
	obj     Object
	off     int64         // where the next Read reads
	body    io.ReadCloser // the open body, at bodyOff; nil when none
	bodyOff int64
}

func (r *s3Reader) Read(p []byte) (int, error) {
	if r.off >= r.obj.Size {
		return 0, io.EOF
	}
	if r.body == nil || r.bodyOff != r.off {
		if err := r.reopen(); err != nil {
			return 0, err
		}
	}
	n, err := r.body.Read(p)
	r.off += int64(n)
	r.bodyOff += int64(n)
	if err == io.EOF && r.off < r.obj.Size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// reopen replaces the body with one starting at r.off.
func (r *s3Reader) reopen() error {
	if r.body != nil {
		r.body.Close() //nolint:errcheck // abandoned
		r.body = nil
	}
	in := &s3.GetObjectInput{
		Bucket: aws.String(r.s.bucket),
		Key:    aws.String(r.obj.Key),
		Range:  aws.String("bytes=" + strconv.FormatInt(r.off, 10) + "-"),
	}
	if r.obj.ETag != "" {
		in.IfMatch = aws.String(`"` + r.obj.ETag + `"`)
	}
	out, err := r.s.client.GetObject(r.ctx, in)
	if err != nil {
		return s3Error("get", r.obj.Key, err)
	}
	r.body, r.bodyOff = out.Body, r.off
	return nil
}

func (r *s3Reader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.obj.Size
	default:
		return 0, errors.New("blob: invalid whence")
	}
	if offset < 0 {
		return 0, fmt.Errorf("blob: seek to %d: negative position", offset)
	}
	r.off = offset
	return offset, nil
}

func (r *s3Reader) Close() error {
	if r.body == nil {
		return nil
	}
	err := r.body.Close()
	r.body = nil
	return err
}
