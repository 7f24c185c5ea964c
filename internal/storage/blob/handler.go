package blob

import (
	"bufio"
	"crypto/md5" //nolint:gosec // S3's ETag of a single-part object, not a security hash
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// Messages of the handler's answers (spec section 7 envelope).
const (
	MsgBadSignature = "The link is not valid for this request."
	MsgExpired      = "The link has expired."
	MsgNotFound     = "The server can not find requested resource."
	MsgInternal     = "Internal server error"
)

// DefaultMaxUpload is the upload cap when none is configured: 5 GiB, the
// largest single PUT an S3-compatible store takes.
const DefaultMaxUpload int64 = 5 << 30

// Handler answers signed links under PathPrefix: GET (and HEAD) download a
// blob, PUT uploads one. The signature is the credential: the handler needs
// no API key, and a link allows exactly the method and key it was signed for
// until it expires. Mount it outside the API's body cap: an upload is
// streamed to the store and capped by MaxUpload instead.
type Handler struct {
	Store  Store
	Signer *Signer
	// MaxUpload caps an upload in bytes (DefaultMaxUpload when zero).
	MaxUpload int64
	// Now is the clock links are checked against (time.Now when nil).
	Now func() time.Time
	// Log receives failures of the store (slog.Default() when nil).
	Log *slog.Logger
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, ok := strings.CutPrefix(r.URL.Path, PathPrefix)
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if !ok || (method != http.MethodGet && method != http.MethodPut) {
		writeError(w, http.StatusForbidden, MsgBadSignature)
		return
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	var err error
	q := r.URL.Query()
	download := method == http.MethodGet && q.Has("filename")
	if download {
		err = h.Signer.verifyDownload(key, q, now())
	} else if strings.HasPrefix(key, dirMark) {
		if method != http.MethodGet {
			writeError(w, http.StatusForbidden, MsgBadSignature)
			return
		}
		key, err = h.Signer.verifyDir(key, now())
	} else {
		err = h.Signer.Verify(method, key, q, now())
	}
	switch {
	case errors.Is(err, ErrExpired):
		writeError(w, http.StatusForbidden, MsgExpired)
		return
	case err != nil:
		writeError(w, http.StatusForbidden, MsgBadSignature)
		return
	}
	if ValidKey(key) != nil {
		writeError(w, http.StatusNotFound, MsgNotFound)
		return
	}
	if method == http.MethodPut {
		h.put(w, r, key)
		return
	}
	if download {
		// A download (Signer.DownloadURL): saved under the name signed
		// into the link.
		w.Header().Set("Content-Disposition", AttachmentDisposition(q.Get("filename")))
	}
	h.get(w, r, key)
}

func (h *Handler) put(w http.ResponseWriter, r *http.Request, key string) {
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
		return
	}
	// The answer is S3's to a presigned PUT — 200, no body, the ETag the
	// quoted MD5 of the bytes — so a client sees one behaviour whether the
	// files are on disk or in a bucket.
	sum := md5.New()
	body := io.TeeReader(http.MaxBytesReader(w, r.Body, limit), sum)
	var opts []PutOption
	if r.ContentLength > 0 {
		opts = append(opts, WithSize(r.ContentLength)) // S3 sizes its parts from it
	}
	_, err := h.Store.Put(r.Context(), key, body, opts...)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
			return
		}
		h.log().ErrorContext(r.Context(), "blob upload failed", "key", key, "err", err)
		writeError(w, http.StatusInternalServerError, MsgInternal)
		return
	}
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum.Sum(nil))+`"`)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

func tooLarge(limit int64) string {
	return fmt.Sprintf("The upload is larger than %d bytes.", limit)
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request, key string) {
	rc, size, mod, err := h.Store.Open(r.Context(), key)
	if errors.Is(err, ErrNotFound) {
		writeError(w, http.StatusNotFound, MsgNotFound)
		return
	}
	if err != nil {
		h.log().ErrorContext(r.Context(), "blob download failed", "key", key, "err", err)
		writeError(w, http.StatusInternalServerError, MsgInternal)
		return
	}
	defer rc.Close()
	name := path.Base(key)
	hdr := w.Header()
	// Uploaded content is served from the API's origin: never let a browser
	// run it or guess another type for it.
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	hdr.Set("Cache-Control", "private, max-age=3600")
	if path.Ext(name) == ".m3u8" {
		// A live recording's playlist grows under the same key: a player
		// reloads it and must get the new one (revalidated by its ETag).
		hdr.Set("Cache-Control", "private, no-cache")
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		hdr.Set("Content-Type", ct)
	}
	// A validator a player revalidates with (If-None-Match → 304): a
	// blob's key is written once, each write a new modification time.
	etag := ""
	if !mod.IsZero() {
		etag = `"` + strconv.FormatInt(mod.UnixNano(), 16) + "-" + strconv.FormatInt(size, 16) + `"`
		hdr.Set("ETag", etag)
	}
	if rs, ok := rc.(io.ReadSeeker); ok {
		// Ranges, conditional requests and HEAD; sniffs the type when the
		// extension did not tell it.
		http.ServeContent(w, r, name, mod, rs)
		return
	}
	if etag != "" && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	br := bufio.NewReader(rc)
	if hdr.Get("Content-Type") == "" {
		head, _ := br.Peek(512)
		hdr.Set("Content-Type", http.DetectContentType(head))
	}
	hdr.Set("Content-Length", strconv.FormatInt(size, 10))
	if !mod.IsZero() {
		hdr.Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, br) //nolint:errcheck // the client went away
	}
}

func (h *Handler) log() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}

// writeError answers the envelope of spec section 7. (The blob package sits
// below rest and graph, so it writes the small envelope itself.)
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"statusCode": status, "message": message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v) // maps of strings and numbers
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Del("Content-Security-Policy")
	w.Header().Del("Content-Disposition")
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the client went away
}
