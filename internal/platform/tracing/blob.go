package tracing

import (
	"context"
	"errors"
	"io"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// Files wraps a blob store so that each call made inside a traced context
// is a span ("blob.Put", "blob.Open", …, with the key as loupe.blob.key
// and, where the call answers it, the size as loupe.blob.size); s as it is
// when tracing is off. An Open's span covers opening, not the reading of
// the body. The wrapper is a Store, a Multiparter and a Checker (what the
// metered store, usage.Files, offers), answering blob.ErrNotSupported
// where s lacks one: wrap the store the metered one wraps, not a store
// whose other optional interfaces (Presigner, LocalPath) callers look for.
func (t *Tracing) Files(s blob.Store) blob.Store {
	if t == nil || s == nil {
		return s
	}
	return &tracedFiles{inner: s}
}

type tracedFiles struct{ inner blob.Store }

var _ interface {
	blob.Store
	blob.Multiparter
	blob.Checker
} = (*tracedFiles)(nil)

// start starts op's span when ctx is traced (nil otherwise).
func startBlob(ctx context.Context, op, key string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	return parent.TracerProvider().Tracer(ScopeName).Start(ctx, "blob."+op,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attribute.String("loupe.blob.key", key)))
}

func endBlob(span trace.Span, size int64, err error) {
	if span == nil {
		return
	}
	if size >= 0 {
		span.SetAttributes(attribute.Int64("loupe.blob.size", size))
	}
	if err != nil && !errors.Is(err, blob.ErrNotFound) {
		span.RecordError(err)
		span.SetStatus(codes.Error, "storage call failed")
	} else if err != nil {
		span.SetAttributes(attribute.Bool("loupe.blob.not_found", true))
	}
	span.End()
}

func (f *tracedFiles) Put(ctx context.Context, key string, r io.Reader, opts ...blob.PutOption) (blob.Object, error) {
	ctx, span := startBlob(ctx, "Put", key)
	obj, err := f.inner.Put(ctx, key, r, opts...)
	endBlob(span, obj.Size, err)
	return obj, err
}

func (f *tracedFiles) Open(ctx context.Context, key string) (io.ReadCloser, int64, time.Time, error) {
	ctx, span := startBlob(ctx, "Open", key)
	rc, size, mod, err := f.inner.Open(ctx, key)
	endBlob(span, size, err)
	return rc, size, mod, err
}

func (f *tracedFiles) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, blob.Object, error) {
	ctx, span := startBlob(ctx, "OpenRange", key)
	rc, obj, err := f.inner.OpenRange(ctx, key, offset, length)
	endBlob(span, obj.Size, err)
	return rc, obj, err
}

func (f *tracedFiles) Stat(ctx context.Context, key string) (blob.Object, error) {
	ctx, span := startBlob(ctx, "Stat", key)
	obj, err := f.inner.Stat(ctx, key)
	endBlob(span, obj.Size, err)
	return obj, err
}

func (f *tracedFiles) Copy(ctx context.Context, dst, src string) (blob.Object, error) {
	ctx, span := startBlob(ctx, "Copy", dst)
	obj, err := f.inner.Copy(ctx, dst, src)
	endBlob(span, obj.Size, err)
	return obj, err
}

func (f *tracedFiles) Delete(ctx context.Context, key string) error {
	ctx, span := startBlob(ctx, "Delete", key)
	err := f.inner.Delete(ctx, key)
	endBlob(span, -1, err)
	return err
}

func (f *tracedFiles) List(ctx context.Context, prefix, after string, limit int) ([]blob.Object, bool, error) {
	ctx, span := startBlob(ctx, "List", prefix)
	page, more, err := f.inner.List(ctx, prefix, after, limit)
	endBlob(span, -1, err)
	return page, more, err
}

func (f *tracedFiles) Check(ctx context.Context) error {
	c, ok := f.inner.(blob.Checker)
	if !ok {
		return nil
	}
	ctx, span := startBlob(ctx, "Check", "")
	err := c.Check(ctx)
	endBlob(span, -1, err)
	return err
}

func (f *tracedFiles) CreateMultipart(ctx context.Context, key string, opts ...blob.PutOption) (string, error) {
	m, ok := f.inner.(blob.Multiparter)
	if !ok {
		return "", blob.ErrNotSupported
	}
	ctx, span := startBlob(ctx, "CreateMultipart", key)
	id, err := m.CreateMultipart(ctx, key, opts...)
	endBlob(span, -1, err)
	return id, err
}

func (f *tracedFiles) UploadPart(ctx context.Context, key, uploadID string, number int, r io.Reader, size int64) (blob.Part, error) {
	m, ok := f.inner.(blob.Multiparter)
	if !ok {
		return blob.Part{}, blob.ErrNotSupported
	}
	ctx, span := startBlob(ctx, "UploadPart", key)
	p, err := m.UploadPart(ctx, key, uploadID, number, r, size)
	endBlob(span, size, err)
	return p, err
}

func (f *tracedFiles) CompleteMultipart(ctx context.Context, key, uploadID string, parts []blob.Part) (blob.Object, error) {
	m, ok := f.inner.(blob.Multiparter)
	if !ok {
		return blob.Object{}, blob.ErrNotSupported
	}
	ctx, span := startBlob(ctx, "CompleteMultipart", key)
	obj, err := m.CompleteMultipart(ctx, key, uploadID, parts)
	endBlob(span, obj.Size, err)
	return obj, err
}

func (f *tracedFiles) AbortMultipart(ctx context.Context, key, uploadID string) error {
	m, ok := f.inner.(blob.Multiparter)
	if !ok {
		return blob.ErrNotSupported
	}
	ctx, span := startBlob(ctx, "AbortMultipart", key)
	err := m.AbortMultipart(ctx, key, uploadID)
	endBlob(span, -1, err)
	return err
}
