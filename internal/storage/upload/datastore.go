package upload

import (
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	tusd "github.com/tus/tusd/v2/pkg/handler"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// headBytes is how much of the start of a file is kept for sniffing its
// type (mimetype's default read limit).
const headBytes = 3072

// dataStore is the tusd DataStore: uploads' bytes go to the file store's
// multipart uploads, their state to Postgres (store.Upload).
type dataStore struct{ s *Service }

// upload is one upload as a request found it.
type upload struct {
	s   *Service
	row *store.Upload
}

// tusError is a tus answer with its status.
func tusError(code, msg string, status int) tusd.Error { return tusd.NewError(code, msg, status) }

// asTus turns store errors into tus answers.
func asTus(err error) error {
	var le *loupe.Error
	if errors.As(err, &le) {
		switch le.Kind {
		case loupe.ENOTFOUND:
			return tusd.ErrNotFound
		case loupe.EINVALID:
			return tusError("ERR_INVALID_UPLOAD", le.Message, http.StatusBadRequest)
		case loupe.ECONFLICT:
			return tusError("ERR_CONFLICT", le.Message, http.StatusConflict)
		case loupe.EFORBIDDEN:
			return tusError("ERR_FORBIDDEN", le.Message, http.StatusForbidden)
		case loupe.ETOOLARGE:
			return tusError("ERR_MAX_SIZE_EXCEEDED", le.Message, http.StatusRequestEntityTooLarge)
		}
	}
	return err
}

// NewUpload implements tusd.DataStore: creation (tus POST). The metadata
// names the item (itemId) or describes a new one (filename, title,
// itemType, folderId).
func (d dataStore) NewUpload(ctx context.Context, info tusd.FileInfo) (tusd.Upload, error) {
	p := auth.From(ctx)
	if p == nil || p.TenantID == "" {
		return nil, tusd.ErrNotFound
	}
	if info.SizeIsDeferred || info.IsPartial || info.IsFinal {
		return nil, tusd.ErrNotImplemented
	}
	row, err := d.s.create(ctx, p, Request{
		ItemID: info.MetaData["itemId"], FileName: info.MetaData["filename"], Size: info.Size,
		Title: info.MetaData["title"], ItemType: info.MetaData["itemType"], FolderID: info.MetaData["folderId"],
		FileType: info.MetaData["filetype"], Metadata: info.MetaData,
	})
	if err != nil {
		return nil, asTus(err)
	}
	return &upload{s: d.s, row: row}, nil
}

// GetUpload implements tusd.DataStore: the tenant's upload of an item the
// principal may change; any other answers not found.
//
// An upload with all its bytes that is not complete (its completion failed:
// the store or the database was away) is completed here, by the next
// request that holds its lock: tus itself never finishes an upload twice.
func (d dataStore) GetUpload(ctx context.Context, id string) (tusd.Upload, error) {
	row, err := d.s.find(ctx, id)
	if err != nil {
		return nil, err
	}
	if rs := requestOf(ctx); row.State == store.UploadUploading && row.Received == row.Size && rs != nil && rs.token != "" {
		if _, err := d.s.finish(ctx, row); err != nil {
			return nil, err
		}
	}
	return &upload{s: d.s, row: row}, nil
}

// AsTerminatableUpload implements tusd.TerminaterDataStore.
func (dataStore) AsTerminatableUpload(u tusd.Upload) tusd.TerminatableUpload { return u.(*upload) }

// GetInfo implements tusd.Upload: the offset is what Postgres says is
// stored.
func (u *upload) GetInfo(context.Context) (tusd.FileInfo, error) {
	meta := tusd.MetaData{}
	_ = json.Unmarshal(u.row.Metadata, &meta) // written by us, from a map of strings
	return tusd.FileInfo{
		ID: u.row.ID, Size: u.row.Size, Offset: u.row.Received, MetaData: meta,
		Storage: map[string]string{"Type": "loupe", "Key": u.row.BlobKey},
	}, nil
}

// GetReader implements tusd.Upload; downloads are disabled.
func (u *upload) GetReader(context.Context) (io.ReadCloser, error) {
	return nil, tusd.ErrNotImplemented
}

// Terminate implements tusd.TerminatableUpload: the multipart upload is
// aborted, the tail removed and the upload forgotten. A completed upload is
// the item's original now: it is not terminated (delete the item).
func (u *upload) Terminate(ctx context.Context) error {
	if u.row.State == store.UploadComplete {
		return tusError("ERR_UPLOAD_COMPLETE", "the upload is complete: its file is the item's original (start a new upload to replace it)", http.StatusConflict)
	}
	if err := u.s.Store.DeleteUpload(ctx, u.row.TenantID, u.row.ID); err != nil {
		return asTus(err)
	}
	if u.row.MultipartID != "" {
		if err := u.s.Files.AbortMultipart(ctx, u.row.BlobKey, u.row.MultipartID); err != nil {
			u.s.log(ctx).Warn("upload: could not abort multipart upload", "upload", u.row.ID, "err", err)
		}
	}
	u.s.dropTail(ctx, u.row.TailKey)
	return nil
}

// FinishUpload implements tusd.Upload: the parts are joined into the
// original and the item gets it (store.CompleteUpload, which also asks for
// processing).
func (u *upload) FinishUpload(ctx context.Context) error {
	_, err := u.s.finish(ctx, u.row)
	return err
}

// WriteChunk implements tusd.Upload. The body streams in parts: each whole
// part (the stored tail, then the body) goes to UploadPart and is recorded
// with the hash state; what is left when the body ends, shorter than a
// part, joins the tail (a blob of its own). Nothing whole is held in
// memory: while the memory for read-ahead lasts (Config.ReadAhead), a
// whole part is read into a buffer and stored while the next one is read;
// else a part streams straight through when the request's Content-Length
// says the body holds it, or is spooled to a temporary file first (at most
// one part). It answers the bytes durably stored; bytes of a part cut
// short by the client are dropped, and the client resumes from the offset
// recorded.
func (u *upload) WriteChunk(ctx context.Context, offset int64, src io.Reader) (written int64, err error) {
	s, row := u.s, rowState{Upload: *u.row}
	if row.State != store.UploadUploading {
		return 0, tusError("ERR_UPLOAD_COMPLETE", "the upload is complete: it takes no more bytes (start a new upload to replace the item's original)", http.StatusConflict)
	}
	if offset != row.Received {
		return 0, tusd.ErrMismatchOffset
	}
	rs := requestOf(ctx)
	if rs == nil || rs.token == "" {
		return 0, errors.New("upload: write without the lock")
	}
	if row.MultipartID == "" && row.Size > 0 {
		id, err := s.Files.CreateMultipart(ctx, row.BlobKey, blob.WithPartSize(row.PartSize))
		if err != nil {
			return 0, fmt.Errorf("upload: unable to start the multipart upload: %w", err)
		}
		if err := s.Store.SetUploadMultipart(ctx, row.TenantID, row.ID, id); err != nil {
			_ = s.Files.AbortMultipart(context.WithoutCancel(ctx), row.BlobKey, id)
			return 0, err
		}
		row.MultipartID = id
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(row.HashState); err != nil {
		return 0, fmt.Errorf("upload: unreadable hash state of %s: %w", row.ID, err)
	}
	body := newHashing(src, h, row.Received, row.Head)
	defer body.close()
	declared := rs.contentLength // -1 when the request did not say
	lastProgress := time.Now()

	// commit records n more bytes stored, a part or (part nil) the
	// pending tail, with the hash state after them.
	commit := func(n int64, part *store.UploadPart, state, head []byte) error {
		c := store.UploadCommit{TenantID: row.TenantID, ID: row.ID, From: row.Received, To: row.Received + n,
			Token: rs.token, HashState: state, Part: part}
		if len(head) != len(row.Head) {
			c.Head = head
		}
		oldTail := row.TailKey
		if part == nil {
			c.TailKey, c.TailSize = row.pendingTail, row.TailSize+n
		}
		if err := s.Store.CommitUpload(ctx, c); err != nil {
			if part == nil {
				s.dropTail(ctx, c.TailKey)
			}
			if errors.Is(err, store.ErrUploadMoved) {
				return tusd.ErrUploadInterrupted
			}
			return err
		}
		if oldTail != c.TailKey {
			s.dropTail(ctx, oldTail)
		}
		row.Received, row.HashState, row.Head, row.TailKey, row.TailSize = c.To, state, head, c.TailKey, c.TailSize
		written += n
		s.Metrics.UploadReceived(n)
		if time.Since(lastProgress) >= time.Second {
			s.progress(ctx, &row)
			lastProgress = time.Now()
		}
		return nil
	}
	// ahead is the part being stored from memory, and then recorded, while
	// the request reads on; settle waits for it. Until then only that
	// goroutine touches row and written, so parts are recorded in order.
	var ahead *partAhead
	settle := func() error {
		if ahead == nil {
			return nil
		}
		err := ahead.wait(s.readAhead)
		ahead = nil
		return err
	}
	defer func() {
		if serr := settle(); serr != nil && err == nil {
			err = serr
		}
		u.row = &row.Upload
		if written > 0 {
			s.progress(ctx, &row)
		}
	}()

	pos := row.Received // the end of what was read and stored or is being stored
	for pos < row.Size {
		tail := int64(0) // with a part ahead there is no tail
		if ahead == nil {
			tail = row.TailSize
		}
		partStart := pos - tail
		number := int(partStart/row.PartSize) + 1
		partLen := min(row.PartSize, row.Size-partStart)
		need := partLen - tail
		left := int64(-1)
		if declared >= 0 {
			left = declared - body.n
			if left <= 0 {
				break
			}
		}
		if left >= need && tail == 0 {
			if buf := s.readAhead.get(partLen); buf != nil {
				_, rerr := io.ReadFull(body, buf)
				var state []byte
				if rerr == nil {
					state, rerr = body.state()
				}
				if rerr != nil {
					s.readAhead.put(buf)
					if err := settle(); err != nil {
						return written, err
					}
					if body.ended {
						return written, nil // the client went away mid-part
					}
					return written, rerr
				}
				if err := settle(); err != nil {
					s.readAhead.put(buf)
					return written, err
				}
				head := body.head
				ahead = s.storeAhead(ctx, row.BlobKey, row.MultipartID, number, buf, func(p blob.Part) error {
					return commit(partLen, &store.UploadPart{Number: p.Number, ETag: p.ETag, Size: p.Size}, state, head)
				})
				pos += partLen
				continue
			}
		}
		if err := settle(); err != nil {
			return written, err
		}
		var (
			n    int64
			part *store.UploadPart
			last bool
		)
		switch {
		case left >= need: // the body holds the rest of the part: stream it
			before := body.n
			r := io.MultiReader(s.tailReader(ctx, &row), io.LimitReader(body, need))
			p, err := s.Files.UploadPart(ctx, row.BlobKey, row.MultipartID, number, r, partLen)
			if err != nil {
				if body.n-before < need && body.ended {
					return written, nil // the client went away mid-part
				}
				return written, fmt.Errorf("upload: unable to store part %d: %w", number, err)
			}
			n, part = need, &store.UploadPart{Number: p.Number, ETag: p.ETag, Size: p.Size}
		case left > 0: // the body ends inside this part: it joins the tail
			var err error
			n, err = s.extendTail(ctx, &row, io.LimitReader(body, left), left)
			if err != nil {
				return written, err
			}
			last = true
		default: // length unknown: spool up to the rest of the part
			var err error
			n, part, err = s.spoolPart(ctx, &row, body, number, need, partLen)
			if err != nil {
				return written, err
			}
			last = part == nil
		}
		if n == 0 {
			break
		}
		state, err := body.state()
		if err != nil {
			return written, err
		}
		if err := commit(n, part, state, body.head); err != nil {
			return written, err
		}
		pos = row.Received
		if last {
			break
		}
	}
	return written, nil
}

// tailReader streams the stored tail (nothing when there is none), opened
// when first read.
func (s *Service) tailReader(ctx context.Context, row *rowState) io.Reader {
	if row.TailSize == 0 {
		return strings.NewReader("")
	}
	return &lazyTail{ctx: ctx, s: s, key: row.TailKey, size: row.TailSize}
}

type lazyTail struct {
	ctx  context.Context
	s    *Service
	key  string
	size int64
	rc   io.ReadCloser
	done bool
}

func (t *lazyTail) Read(p []byte) (int, error) {
	if t.done {
		return 0, io.EOF
	}
	if t.rc == nil {
		rc, obj, err := t.s.Temp.OpenRange(t.ctx, t.key, 0, t.size)
		if err != nil {
			return 0, fmt.Errorf("upload: unable to read the tail %s: %w", t.key, err)
		}
		if obj.Size < t.size {
			rc.Close()
			return 0, fmt.Errorf("upload: the tail %s has %d bytes, not %d", t.key, obj.Size, t.size)
		}
		t.rc = rc
	}
	n, err := t.rc.Read(p)
	if errors.Is(err, io.EOF) {
		t.rc.Close()
		t.done = true
	}
	return n, err
}

// rowState is an upload's row as a request moves it on, with the tail key
// its next commit is to record.
type rowState struct {
	store.Upload
	pendingTail string
}

// extendTail stores tail+body (at most a part) as a new tail blob and
// answers how many body bytes it holds (fewer than max when the body was
// cut short).
func (s *Service) extendTail(ctx context.Context, row *rowState, body io.Reader, max int64) (int64, error) {
	key := tailKey(row.TenantID, row.ID, row.Received+max)
	r := io.MultiReader(s.tailReader(ctx, row), body)
	obj, err := s.Temp.Put(ctx, key, r)
	if err != nil {
		return 0, fmt.Errorf("upload: unable to store the tail: %w", err)
	}
	n := obj.Size - row.TailSize
	if n <= 0 {
		s.dropTail(ctx, key)
		return 0, nil
	}
	row.pendingTail = key
	return n, nil
}

// spoolPart reads up to need body bytes into a temporary file; a whole part
// goes to UploadPart, fewer join the tail.
func (s *Service) spoolPart(ctx context.Context, row *rowState, body io.Reader, number int, need, partLen int64) (int64, *store.UploadPart, error) {
	f, err := os.CreateTemp(s.SpoolDir, "loupe-upload-*")
	if err != nil {
		return 0, nil, fmt.Errorf("upload: unable to spool: %w", err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	n, err := io.Copy(f, io.LimitReader(body, need))
	if err != nil {
		return 0, nil, fmt.Errorf("upload: unable to spool: %w", err)
	}
	if n == 0 {
		return 0, nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, nil, fmt.Errorf("upload: unable to spool: %w", err)
	}
	if n < need {
		got, err := s.extendTail(ctx, row, f, n)
		return got, nil, err
	}
	r := io.MultiReader(s.tailReader(ctx, row), f)
	p, err := s.Files.UploadPart(ctx, row.BlobKey, row.MultipartID, number, r, partLen)
	if err != nil {
		return 0, nil, fmt.Errorf("upload: unable to store part %d: %w", number, err)
	}
	return n, &store.UploadPart{Number: p.Number, ETag: p.ETag, Size: p.Size}, nil
}

// dropTail removes a tail no longer recorded (a leftover costs space only).
func (s *Service) dropTail(ctx context.Context, key string) {
	if key == "" {
		return
	}
	if err := s.Temp.Delete(context.WithoutCancel(ctx), key); err != nil {
		s.log(ctx).Warn("upload: could not delete a tail", "key", key, "err", err)
	}
}

// progress writes the item's uploadProgressInfo (a failure is logged: the
// bytes are stored either way).
func (s *Service) progress(ctx context.Context, row *rowState) {
	u := row.Upload
	if err := s.Store.SetUploadProgress(context.WithoutCancel(ctx), &u); err != nil {
		s.log(ctx).Warn("upload: could not write progress", "upload", row.ID, "err", err)
	}
}

// finish joins the parts into the original and completes the item: the
// checksum from the hash state, the type sniffed from the first bytes.
// Finishing again (a retried request) completes what is left.
func (s *Service) finish(ctx context.Context, row *store.Upload) (*store.Upload, error) {
	if row.State == store.UploadComplete {
		return row, nil
	}
	if row.Received != row.Size {
		return nil, tusError("ERR_UPLOAD_NOT_FINISHED", "the upload is not complete", http.StatusBadRequest)
	}
	if err := s.join(ctx, row); err != nil {
		return nil, err
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(row.HashState); err != nil {
		return nil, fmt.Errorf("upload: unreadable hash state of %s: %w", row.ID, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	mt := media.SniffType(row.Head)
	done, err := s.Store.CompleteUpload(ctx, store.UploadCompletion{
		TenantID: row.TenantID, ID: row.ID, SHA256: sum, MediaType: mt, ItemType: itemTypeOf(mt),
		Location: loupe.FileLocation(row.BlobKey),
	})
	if err != nil {
		return nil, asTus(err)
	}
	*row = *done
	return done, nil
}

// join makes the original from the recorded parts.
func (s *Service) join(ctx context.Context, row *store.Upload) error {
	if row.Size == 0 {
		_, err := s.Files.Put(ctx, row.BlobKey, strings.NewReader(""))
		return err
	}
	recorded, err := s.Store.UploadParts(ctx, row.TenantID, row.ID)
	if err != nil {
		return err
	}
	parts := make([]blob.Part, len(recorded))
	var total int64
	for i, p := range recorded {
		parts[i] = blob.Part{Number: p.Number, ETag: p.ETag, Size: p.Size}
		total += p.Size
	}
	if total != row.Size {
		return fmt.Errorf("upload: %s has parts of %d bytes, not %d", row.ID, total, row.Size)
	}
	if _, err := s.Files.CompleteMultipart(ctx, row.BlobKey, row.MultipartID, parts); err != nil {
		// A completion that succeeded before its request ended (the
		// database was not told) leaves the upload gone and the blob there.
		if obj, serr := s.Files.Stat(ctx, row.BlobKey); serr == nil && obj.Size == row.Size &&
			(errors.Is(err, blob.ErrNoSuchUpload) || errors.Is(err, blob.ErrInvalidPart)) {
			return nil
		}
		return fmt.Errorf("upload: unable to join the parts of %s: %w", row.ID, err)
	}
	return nil
}

// itemTypeOf is the itemType a media type suggests for an item the upload
// made ("" to keep what it was given).
func itemTypeOf(mediaType string) string {
	if mediaType == "application/mxf" {
		return "video"
	}
	switch major, _, _ := strings.Cut(mediaType, "/"); major {
	case "video", "audio", "image":
		return major
	}
	return ""
}

// tailKey names a tail blob by the upload offset it ends at, so a new tail
// never overwrites the one recorded.
func tailKey(tenantID, uploadID string, end int64) string {
	return tenantID + "/uploads/" + uploadID + "/tail-" + strconv.FormatInt(end, 10)
}
