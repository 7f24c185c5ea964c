package upload

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loupe-mam/loupe/internal/platform/envelope"
)

// tusd answers an error in plain text, "ERR_CODE: message\n", with the
// status of its kind. The rest of the API answers the envelope of spec
// section 7; so do uploads (docs/uploads.md, "Errors"): jsonErrors holds
// back an error answer, and writeTusError writes the same status and
// headers (Tus-Resumable among them) with the envelope as its body — the
// message a sentence a person can act on, the tus code in payload.key and
// tusd's own line as developerMessage. tus clients read only the status.

// tusMessages are the sentences of tusd's own errors, by code; a code not
// here keeps tusd's message (capitalised), and Loupe's own errors
// (tusError, asTus) carry theirs.
var tusMessages = map[string]string{
	"ERR_UPLOAD_NOT_FOUND":            "Upload not found: it does not exist or you may not use it; start a new upload with POST " + PathPrefix + ".",
	"ERR_MISMATCHED_OFFSET":           "The request's Upload-Offset is not where the upload stands: HEAD the upload URL and send from the Upload-Offset it answers.",
	"ERR_UPLOAD_SIZE_EXCEEDED":        "The request sends more bytes than the upload's Upload-Length leaves after its Upload-Offset.",
	"ERR_INVALID_UPLOAD_LENGTH":       "Upload-Length must be the file's size in bytes, a number from 0 (uploads of a deferred length are not supported).",
	"ERR_INVALID_OFFSET":              "Upload-Offset must be a number of bytes from 0: HEAD the upload URL to learn it.",
	"ERR_INVALID_CONTENT_TYPE":        "A PATCH must have Content-Type: application/offset+octet-stream.",
	"ERR_UNSUPPORTED_VERSION":         "Tus-Resumable must be 1.0.0: this server speaks tus 1.0.0.",
	"ERR_UPLOAD_LOCKED":               "Another request is writing this upload: retry when it ends.",
	"ERR_LOCK_TIMEOUT":                "Another request held this upload too long: retry.",
	"ERR_UPLOAD_INTERRUPTED":          "Another request for this upload took it over: HEAD the upload URL and resume from its Upload-Offset.",
	"ERR_UNEXPECTED_EOF":              "The request body ended before its Content-Length: HEAD the upload URL and resume from its Upload-Offset.",
	"ERR_NOT_IMPLEMENTED":             "Uploads of a deferred length and concatenated uploads are not supported: declare Upload-Length.",
	"ERR_CONCATENATION_UNSUPPORTED":   "Concatenated uploads are not supported.",
	"ERR_AMBIGUOUS_UPLOAD_LENGTH":     "Send Upload-Length or Upload-Defer-Length, not both (deferred lengths are not supported).",
	"ERR_INVALID_UPLOAD_LENGTH_DEFER": "Uploads of a deferred length are not supported: declare Upload-Length.",
	"ERR_SERVER_SHUTDOWN":             "The server is shutting down: HEAD the upload URL in a moment and resume from its Upload-Offset.",
	"ERR_READ_TIMEOUT":                "The request body stopped arriving: HEAD the upload URL and resume from its Upload-Offset.",
	"ERR_CONNECTION_RESET":            "The connection was reset: HEAD the upload URL and resume from its Upload-Offset.",
}

// maxErrorBody bounds what is kept of a held-back error body (tusd's are
// a line).
const maxErrorBody = 4 << 10

// jsonErrors passes an answer through unless its status is an error: that
// one it holds back (status and body) for finish to rewrite.
type jsonErrors struct {
	http.ResponseWriter
	status  int // the error status held back; 0 while none
	body    bytes.Buffer
	written bool
}

func (j *jsonErrors) WriteHeader(code int) {
	if code >= http.StatusBadRequest && !j.written && j.status == 0 {
		j.status = code
		return
	}
	j.written = true
	j.ResponseWriter.WriteHeader(code)
}

func (j *jsonErrors) Write(b []byte) (int, error) {
	if j.status != 0 {
		j.body.Write(b[:min(len(b), max(0, maxErrorBody-j.body.Len()))])
		return len(b), nil
	}
	j.written = true
	return j.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (tusd sets
// read and write deadlines through it).
func (j *jsonErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// finish writes the held-back error, if any, as the envelope.
func (j *jsonErrors) finish(r *http.Request, maxSize int64) {
	if j.status == 0 {
		return
	}
	code, msg, _ := strings.Cut(strings.TrimSpace(j.body.String()), ": ")
	writeTusError(j.ResponseWriter, r, j.status, code, msg, maxSize)
}

// writeTusError answers a tus error of status with the envelope. code and
// msg are tusd's (both "" for a HEAD, whose answer has no body).
func writeTusError(w http.ResponseWriter, r *http.Request, status int, code, msg string, maxSize int64) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json; charset=utf-8")
	if r.Method == http.MethodHead {
		w.WriteHeader(status) // a HEAD answer has no body
		return
	}
	env := envelope.Error{StatusCode: status, Message: tusMessage(status, code, msg, maxSize)}
	if code != "" {
		env.Payload = map[string]any{"key": code}
		if status < http.StatusInternalServerError || code != "ERR_INTERNAL_SERVER_ERROR" {
			env.DeveloperMessage = code + ": " + msg
		}
	}
	envelope.WriteJSON(w, status, envelope.Body{Error: env})
}

// tusMessage is the envelope's message of a tus error.
func tusMessage(status int, code, msg string, maxSize int64) string {
	switch {
	case code == "ERR_INTERNAL_SERVER_ERROR" || (code == "" && status >= http.StatusInternalServerError):
		return envelope.MsgInternal // the cause is in the log, never in an answer
	case code == "ERR_MAX_SIZE_EXCEEDED":
		return fmt.Sprintf("The upload is larger than this server takes: at most %d bytes.", maxSize)
	case code == "ERR_UPLOAD_LOCKED" && msg != "file currently locked":
		return sentence(msg) // Loupe's: the item's upload lock
	}
	if m, ok := tusMessages[code]; ok {
		return m
	}
	if msg == "" {
		return http.StatusText(status)
	}
	return sentence(msg)
}

// sentence capitalises msg and ends it with a full stop.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// notFound answers a request no tus handler takes (a GET, a path below an
// upload) as tus answers a missing upload.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeTusError(w, r, http.StatusNotFound, "ERR_UPLOAD_NOT_FOUND", "upload not found", 0)
}
