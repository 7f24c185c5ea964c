package mediabench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// PlainUpload is the local-disk reference: an HTTP server that streams a
// PUT body into a file and fsyncs it before answering — what a bare upload
// handler costs on this disk. It answers how long one upload of src took.
func PlainUpload(ctx context.Context, dir string, src io.Reader, size int64) (time.Duration, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	path := filepath.Join(dir, "plain-upload")
	defer os.Remove(path)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Create(path)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		if _, err := io.Copy(f, r.Body); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if err := f.Sync(); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	defer srv.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://"+l.Addr().String()+"/", src)
	if err != nil {
		return 0, err
	}
	req.ContentLength = size
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return 0, fmt.Errorf("plain upload: %s", resp.Status)
	}
	return time.Since(start), nil
}
