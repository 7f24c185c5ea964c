package blobtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/loupe-mam/loupe/internal/storage/blob"
)

var multipartBehaviours = []behaviour{
	{"multipart assembles parts in order", multipartAssemble},
	{"multipart refuses bad part lists", multipartRefusals},
	{"multipart abort", multipartAbort},
	{"multipart with a part size", multipartPartSize},
}

func multiparter(t *testing.T, b Backend) blob.Multiparter {
	t.Helper()
	m, ok := b.Store.(blob.Multiparter)
	if !ok {
		t.Fatalf("%T has no multipart uploads", b.Store)
	}
	return m
}

func uploadPart(t *testing.T, m blob.Multiparter, key, id string, n int, src body, seekable bool) blob.Part {
	t.Helper()
	var r io.Reader = streamOnly{src.reader()}
	if seekable {
		r = bytes.NewReader(src.bytes())
	}
	p, err := m.UploadPart(ctx, key, id, n, r, src.n)
	if err != nil {
		t.Fatalf("UploadPart(%d): %v", n, err)
	}
	if p.Number != n || p.Size != src.n || p.ETag == "" {
		t.Fatalf("UploadPart(%d) = %+v", n, p)
	}
	return p
}

func multipartAssemble(t *testing.T, b Backend) {
	m := multiparter(t, b)
	const key = "t1/items/i1/original/big.mxf"
	put(t, b.Store, key, bytes.NewReader([]byte("an older original")))
	id, err := m.CreateMultipart(ctx, key, blob.WithContentType("application/mxf"))
	if err != nil || id == "" {
		t.Fatalf("CreateMultipart = %q, %v", id, err)
	}
	p1 := body{seed: 10, n: blob.MinPartSize}
	p2 := body{seed: 11, n: blob.MinPartSize + 1}
	p3 := body{seed: 12, n: 777}
	// Out of order, streamed and seekable, and part 2 sent twice (a
	// retry): the second one counts.
	parts := make([]blob.Part, 3)
	parts[2] = uploadPart(t, m, key, id, 3, p3, false)
	uploadPart(t, m, key, id, 2, body{seed: 99, n: blob.MinPartSize}, false)
	parts[1] = uploadPart(t, m, key, id, 2, p2, true)
	parts[0] = uploadPart(t, m, key, id, 1, p1, false)
	// Until completion the blob is the old one.
	if got := content(t, b.Store, key); got != "an older original" {
		t.Fatalf("before completion: %d bytes", len(got))
	}
	obj, err := m.CompleteMultipart(ctx, key, id, parts)
	if err != nil {
		t.Fatalf("CompleteMultipart: %v", err)
	}
	wantSize := assembled(t, b, key, obj, p1, p2, p3)
	if st, err := b.Store.Stat(ctx, key); err != nil || st.ETag != obj.ETag || st.Size != wantSize {
		t.Fatalf("Stat = %+v, %v; CompleteMultipart answered %+v", st, err, obj)
	}
	// The upload is gone.
	_, err = m.UploadPart(ctx, key, id, 4, bytes.NewReader([]byte("x")), 1)
	wantErr(t, "UploadPart after completion", err, blob.ErrNoSuchUpload)
	// Nothing of the upload shows in a listing.
	page, _, err := b.Store.List(ctx, "", "", 0)
	if err != nil || len(page) != 1 || page[0].Key != key {
		t.Fatalf("List = %+v, %v; want the one blob", page, err)
	}
}

// assembled checks that the completed blob under key is the parts in
// order, and answers its size.
func assembled(t *testing.T, b Backend, key string, obj blob.Object, parts ...body) int64 {
	t.Helper()
	h := sha256.New()
	var want int64
	for _, p := range parts {
		io.Copy(h, p.reader()) //nolint:errcheck // a generator
		want += p.n
	}
	if obj.Key != key || obj.Size != want || obj.ETag == "" {
		t.Fatalf("CompleteMultipart = %+v, want size %d", obj, want)
	}
	if n, sum := sumOf(t, b.Store, key); n != want || sum != hex.EncodeToString(h.Sum(nil)) {
		t.Fatalf("the assembled blob has %d bytes, SHA-256 %s", n, sum)
	}
	return want
}

func multipartRefusals(t *testing.T, b Backend) {
	m := multiparter(t, b)
	const key = "t1/items/i1/original/refused.mov"
	id, err := m.CreateMultipart(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	small := body{seed: 13, n: 1000}
	full := body{seed: 14, n: blob.MinPartSize}
	p1 := uploadPart(t, m, key, id, 1, small, false)
	p2 := uploadPart(t, m, key, id, 2, full, false)
	p3 := uploadPart(t, m, key, id, 3, small, false)
	bad := map[string][]blob.Part{
		"none":                  nil,
		"out of order":          {p2, p1},
		"a part twice":          {p2, p2},
		"a part never sent":     {p2, {Number: 7, ETag: p2.ETag, Size: p2.Size}},
		"another part's ETag":   {{Number: 2, ETag: p3.ETag, Size: p2.Size}},
		"a small part not last": {p1, p2},
	}
	for name, parts := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := m.CompleteMultipart(ctx, key, id, parts)
			wantErr(t, "CompleteMultipart", err, blob.ErrInvalidPart)
		})
	}
	_, err = b.Store.Stat(ctx, key)
	wantErr(t, "Stat after refused completions", err, blob.ErrNotFound)
	// A body shorter than announced is no part.
	_, err = m.UploadPart(ctx, key, id, 4, streamOnly{small.reader()}, small.n+1)
	if err == nil {
		t.Fatal("UploadPart with a short body succeeded")
	}
	// The upload is still open: a good list completes it.
	obj, err := m.CompleteMultipart(ctx, key, id, []blob.Part{p2, p3})
	if err != nil || obj.Size != full.n+small.n {
		t.Fatalf("CompleteMultipart after refusals = %+v, %v", obj, err)
	}
	// An unknown upload: servers differ in which they answer (versitygw
	// looks for the parts first), and AWS completes a completed upload
	// again, so only a made-up id is refused everywhere.
	_, err = m.CompleteMultipart(ctx, key, "0123456789abcdef0123456789abcdef", []blob.Part{{Number: 1, ETag: "made-up", Size: 1}})
	if !errors.Is(err, blob.ErrNoSuchUpload) && !errors.Is(err, blob.ErrInvalidPart) {
		t.Fatalf("CompleteMultipart of an unknown upload = %v, want ErrNoSuchUpload or ErrInvalidPart", err)
	}
	// An upload id belongs to its key.
	id2, err := m.CreateMultipart(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.UploadPart(ctx, "t1/another/key", id2, 1, bytes.NewReader([]byte("x")), 1)
	wantErr(t, "UploadPart to another key", err, blob.ErrNoSuchUpload)
	m.AbortMultipart(ctx, key, id2) //nolint:errcheck // cleanup
}

func multipartAbort(t *testing.T, b Backend) {
	m := multiparter(t, b)
	const key = "t1/items/i1/original/aborted.mov"
	id, err := m.CreateMultipart(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	p := uploadPart(t, m, key, id, 1, body{seed: 15, n: 1000}, false)
	for i := range 2 {
		if err := m.AbortMultipart(ctx, key, id); err != nil {
			t.Fatalf("AbortMultipart #%d: %v", i+1, err)
		}
	}
	_, err = m.UploadPart(ctx, key, id, 2, bytes.NewReader([]byte("x")), 1)
	wantErr(t, "UploadPart after abort", err, blob.ErrNoSuchUpload)
	_, err = m.CompleteMultipart(ctx, key, id, []blob.Part{p})
	wantErr(t, "CompleteMultipart after abort", err, blob.ErrNoSuchUpload)
	_, err = b.Store.Stat(ctx, key)
	wantErr(t, "Stat after abort", err, blob.ErrNotFound)
}

// multipartPartSize is an upload that promised its part size (Disk writes
// it in place): parts out of order, one replaced, a short last part.
func multipartPartSize(t *testing.T, b Backend) {
	m := multiparter(t, b)
	const key = "t1/items/i1/original/uniform.mov"
	id, err := m.CreateMultipart(ctx, key, blob.WithPartSize(blob.MinPartSize))
	if err != nil {
		t.Fatal(err)
	}
	p1 := body{seed: 20, n: blob.MinPartSize}
	p2 := body{seed: 21, n: blob.MinPartSize}
	p3 := body{seed: 22, n: 4321}
	parts := make([]blob.Part, 3)
	parts[2] = uploadPart(t, m, key, id, 3, p3, false)
	first := uploadPart(t, m, key, id, 2, body{seed: 98, n: blob.MinPartSize}, false)
	parts[1] = uploadPart(t, m, key, id, 2, p2, true)
	if first.ETag == parts[1].ETag {
		t.Fatalf("a part stored again kept its ETag %q", first.ETag)
	}
	parts[0] = uploadPart(t, m, key, id, 1, p1, false)
	_, err = m.CompleteMultipart(ctx, key, id, []blob.Part{parts[0], first, parts[2]})
	wantErr(t, "CompleteMultipart with a replaced part's ETag", err, blob.ErrInvalidPart)
	obj, err := m.CompleteMultipart(ctx, key, id, parts)
	if err != nil {
		t.Fatalf("CompleteMultipart: %v", err)
	}
	assembled(t, b, key, obj, p1, p2, p3)
	page, _, err := b.Store.List(ctx, "", "", 0)
	if err != nil || len(page) != 1 || page[0].Key != key {
		t.Fatalf("List = %+v, %v; want the one blob", page, err)
	}
}
