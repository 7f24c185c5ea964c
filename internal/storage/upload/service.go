// Package upload receives items' originals by tus 1.0 (tusd v2's handler
// as a library) into Loupe's file store, resumably, on any number of nodes
// (docs/uploads.md). Its DataStore streams each request's body in parts to
// the store's multipart upload (blob.Multiparter) and keeps the upload's
// state — offset, parts, tail, SHA-256 state — in Postgres, the only
// place a request resumes from; its Locker is a lease in Postgres too, so
// that two nodes never write one upload at once. A node keeps nothing of
// an upload between requests.
package upload

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	tusd "github.com/tus/tusd/v2/pkg/handler"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/metrics"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// PathPrefix is where the tus endpoint is mounted: POST it to create an
// upload, then HEAD, PATCH and DELETE PathPrefix + "/<uploadId>".
const PathPrefix = "/api/v1/uploads"

// Defaults.
const (
	// DefaultPartSize is the smallest part an upload is stored in; a
	// larger upload gets larger parts, so that it fits in blob.MaxParts.
	DefaultPartSize int64 = 16 << 20
	// MaxSize is the largest upload: 10,000 parts of 5 GiB.
	MaxSize = int64(blob.MaxParts) * blob.MaxPartSize
	// DefaultLockLease is how long a lock outlives a node that stopped
	// renewing it; DefaultLockPoll how often a holder renews it and looks
	// whether another request asked for it.
	DefaultLockLease = 30 * time.Second
	DefaultLockPoll  = 500 * time.Millisecond
)

// Files is what uploads need of the file store: both backends have it.
type Files interface {
	blob.Store
	blob.Multiparter
}

// Config is what the service needs.
type Config struct {
	Store *store.Store
	// Files receives the originals (the metered store); Temp holds tails
	// (the same store unmetered: they are not kept).
	Files Files
	Temp  blob.Store
	// InstanceID names this node in locks (uploadLockOwnerInstanceId).
	InstanceID string
	// PartSize is the smallest part size (DefaultPartSize when 0; at least
	// blob.MinPartSize).
	PartSize int64
	// MaxSize caps one upload (MaxSize when 0).
	MaxSize int64
	// BaseURL is the public URL of the server (upload URLs start with it);
	// empty, the request's host.
	BaseURL string
	// SpoolDir holds a part of a body of unknown length while it arrives
	// (os.TempDir() when empty).
	SpoolDir string
	// ReadAhead is the memory for parts read while the previous one is
	// stored, shared by the node's uploads (DefaultReadAhead when 0; none
	// when negative).
	ReadAhead int64
	LockLease time.Duration
	LockPoll  time.Duration
	Logger    *slog.Logger
	// Metrics counts the bytes stored (nil: none).
	Metrics *metrics.Metrics
}

// Service is the tus endpoint and what GraphQL asks of uploads.
type Service struct {
	Config
	tus       *tusd.UnroutedHandler
	readAhead *readAhead
}

// NewInstanceID names a node: its host name, process id and a random
// suffix (a restarted node is another holder).
func NewInstanceID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "loupe"
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// New makes the service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Files == nil {
		return nil, errors.New("upload: no store or files")
	}
	if cfg.Temp == nil {
		cfg.Temp = cfg.Files
	}
	if cfg.InstanceID == "" {
		cfg.InstanceID = NewInstanceID()
	}
	if cfg.PartSize <= 0 {
		cfg.PartSize = DefaultPartSize
	}
	cfg.PartSize = max(cfg.PartSize, blob.MinPartSize)
	if cfg.MaxSize <= 0 || cfg.MaxSize > MaxSize {
		cfg.MaxSize = MaxSize
	}
	if cfg.LockLease <= 0 {
		cfg.LockLease = DefaultLockLease
	}
	if cfg.LockPoll <= 0 {
		cfg.LockPoll = DefaultLockPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ReadAhead == 0 {
		cfg.ReadAhead = DefaultReadAhead
	}
	s := &Service{Config: cfg, readAhead: newReadAhead(cfg.ReadAhead)}
	composer := tusd.NewStoreComposer()
	ds := dataStore{s: s}
	composer.UseCore(ds)
	composer.UseTerminater(ds)
	composer.UseLocker(locker{s: s})
	base := PathPrefix + "/"
	if cfg.BaseURL != "" {
		base = strings.TrimRight(cfg.BaseURL, "/") + base
	}
	h, err := tusd.NewUnroutedHandler(tusd.Config{
		StoreComposer:             composer,
		MaxSize:                   cfg.MaxSize,
		BasePath:                  base,
		DisableDownload:           true,
		DisableConcatenation:      true,
		Cors:                      &tusd.CorsConfig{Disable: true},
		Logger:                    tusLogger(cfg.Logger),
		PreFinishResponseCallback: s.finishHeaders,
	})
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	s.tus = h
	return s, nil
}

func (s *Service) log(ctx context.Context) *slog.Logger {
	if l := reqlog.From(ctx); l != nil {
		return l
	}
	return s.Logger
}

// URL is the tus URL of an upload.
func (s *Service) URL(id string) string {
	return strings.TrimRight(s.BaseURL, "/") + PathPrefix + "/" + id
}

// maxMetadata bounds an upload's metadata (keys and values).
const maxMetadata = 64 << 10

// Request is a new upload: of the item ItemID names, or of a new item
// (title from Title, else the file name; type from ItemType, else the
// declared FileType's kind; in folder FolderID).
type Request struct {
	ItemID   string
	FileName string
	Size     int64
	Title    string
	ItemType string
	FolderID string
	FileType string
	Metadata map[string]string
}

// Start creates an upload for the principal (GraphQL's startUpload).
func (s *Service) Start(ctx context.Context, p *loupe.Principal, r Request) (*store.Upload, error) {
	if r.Size < 0 {
		return nil, loupe.Invalid("size must not be negative")
	}
	if r.Size > s.MaxSize {
		return nil, loupe.Errorf(loupe.ETOOLARGE, "size must be at most %d bytes", s.MaxSize)
	}
	return s.create(ctx, p, r)
}

// create records an upload after checking what the principal may do.
func (s *Service) create(ctx context.Context, p *loupe.Principal, r Request) (*store.Upload, error) {
	if len(r.FileName) > 1024 || !utf8.ValidString(r.FileName) || strings.ContainsRune(r.FileName, 0) {
		return nil, loupe.Invalid("filename must be at most 1024 bytes of UTF-8 without NUL")
	}
	total := 0
	for k, v := range r.Metadata {
		total += len(k) + len(v)
		if !utf8.ValidString(k) || !utf8.ValidString(v) || strings.ContainsRune(k+v, 0) {
			return nil, loupe.Invalid("metadata %q must be UTF-8 without NUL", k)
		}
	}
	if total > maxMetadata {
		return nil, loupe.Invalid("metadata must be at most %d bytes", maxMetadata)
	}
	in := &store.NewUpload{
		ID: loupe.NewID(), Size: r.Size, PartSize: PartSizeFor(r.Size, s.PartSize), FileName: baseName(r.FileName),
		Metadata: r.Metadata, HashState: emptyHashState(),
	}
	in.Key = func(itemID string) string { return OriginalKey(p.TenantID, itemID, in.ID, in.FileName) }
	if r.ItemID != "" {
		if err := auth.Item(ctx, s.Store, p, r.ItemID, true, loupe.NotFound()); err != nil {
			return nil, err
		}
		in.ItemID = r.ItemID
	} else {
		title := r.Title
		if title == "" {
			title = in.FileName
		}
		if title == "" {
			title = "Upload " + in.ID
		}
		itemType := r.ItemType
		if itemType == "" {
			itemType = itemTypeOf(strings.ToLower(r.FileType))
		}
		if itemType == "" {
			itemType = "document"
		}
		ci := &loupe.CreateItemInput{Title: &title, ItemType: itemType}
		if in.FileName != "" {
			ci.OriginalFileName = &in.FileName
		}
		if r.FolderID != "" {
			ci.FolderParents = []string{r.FolderID}
		}
		in.Item = ci
	}
	return s.Store.CreateUpload(ctx, p, in)
}

// find is the principal's upload id, as tus answers it.
func (s *Service) find(ctx context.Context, id string) (*store.Upload, error) {
	p := auth.From(ctx)
	if p == nil || p.TenantID == "" || !loupe.ValidID(id) {
		return nil, tusd.ErrNotFound
	}
	row, err := s.Store.GetUpload(ctx, p.TenantID, id)
	if err != nil {
		return nil, asTus(err)
	}
	if err := auth.Item(ctx, s.Store, p, row.ItemID, true, loupe.NotFound()); err != nil {
		return nil, asTus(err)
	}
	return row, nil
}

// Get is the tenant's upload of an item the principal may see (GraphQL).
func (s *Service) Get(ctx context.Context, p *loupe.Principal, id string) (*store.Upload, error) {
	row, err := s.Store.GetUpload(ctx, p.TenantID, id)
	if err != nil {
		return nil, err
	}
	if err := auth.Item(ctx, s.Store, p, row.ItemID, false, loupe.NotFound()); err != nil {
		return nil, err
	}
	return row, nil
}

// PartSizeFor is the part size of an upload of size bytes: at least min,
// and large enough for blob.MaxParts parts (rounded up to a MiB).
func PartSizeFor(size, min int64) int64 {
	need := (size + int64(blob.MaxParts) - 1) / int64(blob.MaxParts)
	need = (need + 1<<20 - 1) &^ (1<<20 - 1)
	return max(min, need, blob.MinPartSize)
}

func emptyHashState() []byte {
	b, _ := sha256.New().(encoding.BinaryMarshaler).MarshalBinary()
	return b
}

// OriginalKey is where an upload's file goes:
// <tenantId>/items/<itemId>/original/<uploadId>/<file name>, the name made
// safe for every store (SafeName).
func OriginalKey(tenantID, itemID, uploadID, fileName string) string {
	return loupe.ItemFilesPrefix(tenantID, itemID) + "original/" + uploadID + "/" + SafeName(fileName)
}

// baseName is the last element of a client's file name (a path from some
// systems), "" when there is none.
func baseName(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// SafeName makes a file name a key segment: letters, digits and ._-+()
// kept, anything else _, no leading dot, at most 200 bytes; "original"
// when nothing is left.
func SafeName(name string) string {
	name = baseName(name)
	var b strings.Builder
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-+()", r):
			if b.Len()+utf8.RuneLen(r) > 200 {
				continue
			}
			b.WriteRune(r)
		default:
			if b.Len() < 200 {
				b.WriteByte('_')
			}
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if out == "" || path.Clean(out) != out {
		return "original"
	}
	return out
}

// finishHeaders answers the completing request with the checksum.
func (s *Service) finishHeaders(ev tusd.HookEvent) (tusd.HTTPResponse, error) {
	p := auth.From(ev.Context)
	if p == nil {
		return tusd.HTTPResponse{}, nil
	}
	row, err := s.Store.GetUpload(ev.Context, p.TenantID, ev.Upload.ID)
	if err != nil || row.SHA256 == "" {
		return tusd.HTTPResponse{}, nil
	}
	return tusd.HTTPResponse{Header: tusd.HTTPHeader{
		"Loupe-Item-Id": row.ItemID, "Loupe-Media-Sha256": row.SHA256, "Loupe-Media-Type": row.MediaType,
	}}, nil
}

// request is what one request's handlers share through its context.
type request struct {
	contentLength int64
	// writes is set for requests that write (PATCH, POST with a body):
	// they hold the item's upload lock too.
	writes bool
	// token is the lock's while the request holds it.
	token string
}

type requestKey struct{}

func requestOf(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// ServeHTTP answers tus requests under PathPrefix (after authentication).
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, PathPrefix)
	if !ok {
		notFound(w, r)
		return
	}
	id := strings.Trim(rest, "/")
	rs := &request{contentLength: r.ContentLength}
	r2 := r.WithContext(context.WithValue(r.Context(), requestKey{}, rs))
	u := *r.URL // tusd reads the id from the path; the request log keeps the original
	u.Path, u.RawPath = "/"+id, ""
	r2.URL = &u
	jw := &jsonErrors{ResponseWriter: w}
	defer jw.finish(r, s.MaxSize)
	w = jw
	s.tus.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.writes = r.Method == http.MethodPatch || (r.Method == http.MethodPost && r.ContentLength != 0 &&
			r.Header.Get("Content-Type") == "application/offset+octet-stream")
		switch {
		case id == "" && r.Method == http.MethodPost:
			s.tus.PostFile(w, r)
		case id != "" && !strings.Contains(id, "/") && r.Method == http.MethodHead:
			s.tus.HeadFile(w, r)
		case id != "" && !strings.Contains(id, "/") && r.Method == http.MethodPatch:
			s.tus.PatchFile(w, r)
		case id != "" && !strings.Contains(id, "/") && r.Method == http.MethodDelete:
			s.tus.DelFile(w, r)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("ERR_UPLOAD_NOT_FOUND: upload not found"))
		}
	})).ServeHTTP(w, r2)
}

// locker is the tusd Locker: a lease on the upload's row.
type locker struct{ s *Service }

func (l locker) NewLock(id string) (tusd.Lock, error) { return &lock{s: l.s, id: id}, nil }

type lock struct {
	s      *Service
	id     string
	tenant string
	token  string
	stop   chan struct{}
	done   chan struct{}
}

// Lock takes the upload's lock, asking a holder to let go and waiting
// until it does (or its lease ends, or ctx does). While held, a goroutine
// renews the lease and calls requestUnlock when another request asks for
// the lock or the lock was broken (DELETE …/upload).
func (l *lock) Lock(ctx context.Context, requestUnlock func()) error {
	p := auth.From(ctx)
	if p == nil || p.TenantID == "" || !loupe.ValidID(l.id) {
		return tusd.ErrNotFound
	}
	rs := requestOf(ctx)
	writes := rs != nil && rs.writes
	// The principal must be allowed to use the upload before it can take
	// (and so interrupt) anything.
	if _, err := l.s.find(ctx, l.id); err != nil {
		return err
	}
	l.tenant, l.token = p.TenantID, uuid.NewString()
	wait := 50 * time.Millisecond
	for {
		err := l.s.Store.LockUpload(ctx, l.tenant, l.id, l.s.InstanceID, l.token, l.s.LockLease, writes)
		if err == nil {
			break
		}
		if errors.Is(err, store.ErrItemLockedExternally) {
			return tusError("ERR_UPLOAD_LOCKED", "the item's upload lock is held by another uploader (DELETE /api/v1/items/{itemId}/upload releases it)", http.StatusLocked)
		}
		if !errors.Is(err, store.ErrUploadBusy) {
			return asTus(err)
		}
		select {
		case <-ctx.Done():
			return tusd.ErrLockTimeout
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
	if rs != nil {
		rs.token = l.token
	}
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go l.hold(requestUnlock)
	return nil
}

// hold renews the lease until Unlock.
func (l *lock) hold(requestUnlock func()) {
	defer close(l.done)
	asked := false
	t := time.NewTicker(l.s.LockPoll)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.s.LockLease/2)
		held, wanted, err := l.s.Store.RenewUploadLock(ctx, l.tenant, l.id, l.token, l.s.LockLease)
		cancel()
		if err != nil {
			l.s.Logger.Warn("upload: could not renew a lock", "upload", l.id, "err", err)
			continue
		}
		if (!held || wanted) && !asked {
			asked = true
			requestUnlock()
		}
	}
}

// Unlock releases the lock (and the item's upload lock this request took).
func (l *lock) Unlock() error {
	if l.stop == nil {
		return nil
	}
	close(l.stop)
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return l.s.Store.UnlockUpload(ctx, l.tenant, l.id, l.s.InstanceID, l.token)
}
