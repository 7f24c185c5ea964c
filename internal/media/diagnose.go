package media

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/gabriel-vasile/mimetype"
)

// Diagnosis is what a file's bytes say when ffprobe finds no media in it:
// broken media (a cut upload, a damaged index, nothing at all), or a file
// of another kind (a document, an archive).
type Diagnosis struct {
	// Broken: the file is media (or nothing) that cannot be processed; the
	// item fails with Reason.
	Broken bool
	// Reason says what is wrong, for a person who can act on it
	// ("truncated: the file ends at 30 % of its index (moov)").
	Reason string
	// Type is the media type its bytes show ("text/plain",
	// "application/zip"; "" for broken media) and Description names it
	// ("plain text", "a ZIP archive").
	Type        string
	Description string
}

// diagnoseHead is how much of the head sniffing reads.
const diagnoseHead = 64 << 10

// Diagnose reads the file at input (a path, or a URL read with HTTP ranges)
// that ffprobe found no media in, and says why (probeErr: ffprobe's error,
// nil when it read the file but found no stream).
func Diagnose(ctx context.Context, input string, probeErr error) (Diagnosis, error) {
	r, size, closeFn, err := openAt(ctx, input)
	if err != nil {
		return Diagnosis{}, err
	}
	defer closeFn()
	return diagnose(r, size, probeErr), nil
}

func diagnose(r io.ReaderAt, size int64, probeErr error) Diagnosis {
	if size == 0 {
		return Diagnosis{Broken: true, Reason: "empty file: it has no bytes (the upload or copy carried nothing)"}
	}
	head := make([]byte, min(size, diagnoseHead))
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return Diagnosis{Broken: true, Reason: "unreadable: " + err.Error()}
	}
	head = head[:n]
	if isISOBMFF(head) {
		return Diagnosis{Broken: true, Reason: diagnoseISOBMFF(r, size, probeErr)}
	}
	t := SniffType(head)
	if name := containerName(t); name != "" {
		why := "ffmpeg cannot read it"
		if probeErr == nil {
			why = "it holds no audio, video or image stream ffmpeg can decode"
		}
		return Diagnosis{Broken: true, Reason: fmt.Sprintf("damaged: a %s file, but %s", name, why)}
	}
	if t == "text/plain" {
		return Diagnosis{Type: t, Description: "plain text"}
	}
	return Diagnosis{Type: t, Description: describeType(t)}
}

// isISOBMFF reports the ISO base media file format (MP4, MOV, M4A, 3GP,
// HEIF): its first box is one of the format's top-level boxes.
func isISOBMFF(head []byte) bool {
	if len(head) < 8 {
		return false
	}
	switch string(head[4:8]) {
	case "ftyp", "moov", "mdat", "wide", "free", "skip", "pnot":
		return true
	}
	return false
}

// boxRoles names the top-level boxes a person would know by their role.
var boxRoles = map[string]string{"moov": "index (moov)", "mdat": "media data (mdat)"}

// diagnoseISOBMFF walks the top-level boxes: the commonest broken upload
// is an MP4 cut short, with its index (moov) written last — missing, or
// ending inside a box.
func diagnoseISOBMFF(r io.ReaderAt, size int64, probeErr error) string {
	hdr := make([]byte, 16)
	moov := false
	for off := int64(0); off < size; {
		if size-off < 8 {
			return fmt.Sprintf("truncated: the file ends %d bytes into a box header", size-off)
		}
		if _, err := r.ReadAt(hdr[:8], off); err != nil {
			return "unreadable: " + err.Error()
		}
		boxSize, typ := int64(binary.BigEndian.Uint32(hdr[:4])), string(hdr[4:8])
		switch boxSize {
		case 0: // to the end of the file
			boxSize = size - off
		case 1: // a 64-bit size follows
			if _, err := r.ReadAt(hdr[8:16], off+8); err != nil {
				return "truncated: the file ends inside the header of its " + roleOf(typ)
			}
			boxSize = int64(binary.BigEndian.Uint64(hdr[8:16]))
		}
		if boxSize < 8 {
			return fmt.Sprintf("damaged: an invalid box (%q of %d bytes) at byte %d", typ, boxSize, off)
		}
		if typ == "moov" {
			moov = true
		}
		if off+boxSize > size {
			pct := float64(size-off) / float64(boxSize) * 100
			return fmt.Sprintf("truncated: the file ends at %s %% of its %s — the upload or copy stopped before the end (%d of %d bytes)",
				strconv.FormatFloat(pct, 'f', 0, 64), roleOf(typ), size, off+boxSize)
		}
		off += boxSize
	}
	if !moov {
		return "truncated: the file has no index (moov) — it was cut before its end, or its recording never finished"
	}
	if probeErr != nil {
		return "damaged: its index (moov) is there but ffmpeg cannot read it"
	}
	return "damaged: its index (moov) names no audio, video or image stream ffmpeg can decode"
}

func roleOf(typ string) string {
	if r, ok := boxRoles[typ]; ok {
		return r
	}
	return fmt.Sprintf("%q box", typ)
}

// containerName names the audio or video container of media type t (""
// for any other type): such a file that ffprobe cannot read is damaged,
// not a document.
func containerName(t string) string {
	switch t {
	case "application/mxf":
		return "MXF"
	case "video/mp2t":
		return "MPEG transport stream"
	}
	if major, _, _ := strings.Cut(t, "/"); major != "video" && major != "audio" {
		return ""
	}
	if m := mimetype.Lookup(t); m != nil && m.Extension() != "" {
		return strings.ToUpper(strings.TrimPrefix(m.Extension(), "."))
	}
	return t
}

// describeType names a media type for a person.
func describeType(t string) string {
	switch t {
	case "application/zip":
		return "a ZIP archive"
	case "application/pdf":
		return "a PDF document"
	case "application/octet-stream":
		return "data of no known kind"
	}
	if m := mimetype.Lookup(t); m != nil && m.Extension() != "" {
		return "a " + strings.ToUpper(strings.TrimPrefix(m.Extension(), ".")) + " file (" + t + ")"
	}
	return "a file of type " + t
}

// ClaimsMedia reports whether a file's name says it is media (its
// extension is a video, audio or image type's, or a camera or broadcast
// format's): a file so named that is not media is a mistake to report,
// not a document to keep quietly.
func ClaimsMedia(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return false
	}
	if mediaExts[ext] {
		return true
	}
	major, _, _ := strings.Cut(mime.TypeByExtension(ext), "/")
	return major == "video" || major == "audio" || major == "image"
}

// mediaExts are media extensions the system's type table may not know.
var mediaExts = map[string]bool{
	".mp4": true, ".m4v": true, ".mov": true, ".qt": true, ".mkv": true, ".webm": true, ".avi": true, ".mxf": true,
	".mts": true, ".m2ts": true, ".ts": true, ".mpg": true, ".mpeg": true, ".3gp": true, ".wmv": true, ".flv": true,
	".m4a": true, ".mp3": true, ".wav": true, ".aif": true, ".aiff": true, ".flac": true, ".ogg": true, ".opus": true,
	".braw": true, ".r3d": true, ".ari": true, ".dng": true, ".cr2": true, ".cr3": true, ".nef": true, ".arw": true,
	".heic": true, ".avif": true, ".exr": true, ".dpx": true,
}

// openAt opens input for reads at offsets: a local file, or a URL read
// with HTTP ranges (an original in S3 above the local-copy size).
func openAt(ctx context.Context, input string) (io.ReaderAt, int64, func(), error) {
	if !strings.HasPrefix(input, "http://") && !strings.HasPrefix(input, "https://") {
		f, err := os.Open(input)
		if err != nil {
			return nil, 0, nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		return f, st.Size(), func() { f.Close() }, nil
	}
	h := &httpAt{ctx: ctx, url: input}
	size, err := h.size()
	return h, size, func() {}, err
}

// httpAt reads a URL at offsets with Range requests.
type httpAt struct {
	ctx context.Context
	url string
}

func (h *httpAt) size() (int64, error) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", "bytes=0-0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
		_, total, _ := strings.Cut(resp.Header.Get("Content-Range"), "/")
		return strconv.ParseInt(total, 10, 64)
	case http.StatusRequestedRangeNotSatisfiable:
		return 0, nil // an empty object
	case http.StatusOK:
		return resp.ContentLength, nil
	}
	return 0, fmt.Errorf("reading the original: HTTP %d", resp.StatusCode)
}

func (h *httpAt) ReadAt(p []byte, off int64) (int, error) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return 0, fmt.Errorf("reading the original: HTTP %d", resp.StatusCode)
	}
	n, err := io.ReadFull(resp.Body, p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return n, err
}
