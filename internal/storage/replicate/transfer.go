package replicate

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // compared with S3's ETag, the MD5 of what arrived
	"crypto/sha256"
	"encoding"
	hexenc "encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// TransferWorker works a transfer (transfer jobs): it takes the
// transfer's lease, copies the file — in multipart parts when the
// destination has them and the file is larger than a part, each part
// recorded with the SHA-256 state through it, so that a later attempt
// resumes after the last part that arrived — then reads the copy back and
// verifies its size and SHA-256 (against the item's mediaSha256 when
// known, else against the bytes read) before anything else happens. A move
// then switches the item onto the copy (conditional on its original not
// having changed) and only then deletes the source.
type TransferWorker struct {
	river.WorkerDefaults[jobs.TransferArgs]
	Store   *store.Store
	Sources *sources.Sources
	Config  Config
}

// Timeout implements river.Worker: a copy takes as long as the file.
// (A killed node's transfer does not wait for it: its lease runs out and
// the tick makes a new job.)
func (w *TransferWorker) Timeout(*river.Job[jobs.TransferArgs]) time.Duration {
	return jobs.MaxJobTimeout
}

// errBadCopy is a copy whose bytes at the destination are not those read:
// it is dropped and the next attempt starts over.
var errBadCopy = errors.New("the copy at the destination differs from the bytes read")

// Work implements river.Worker.
func (w *TransferWorker) Work(ctx context.Context, job *river.Job[jobs.TransferArgs]) error {
	c := w.Config.withDefaults()
	a := job.Args
	owner := fmt.Sprintf("job %d attempt %d", job.ID, job.Attempt)
	t, err := w.Store.ClaimTransfer(ctx, a.TenantID, a.TransferID, owner, c.LeaseTTL)
	switch {
	case errors.Is(err, store.ErrTransferEnded), errors.Is(err, store.ErrTransferHeld), loupe.ErrorKind(err) == loupe.ENOTFOUND:
		return nil // done, worked by a live worker, or gone
	case err != nil:
		return err
	}
	err = w.transfer(ctx, c, t, owner)
	if err == nil || errors.Is(err, store.ErrLeaseLost) {
		return nil
	}
	var le *loupe.Error
	final := errors.As(err, &le) && le.Kind != loupe.EINTERNAL || job.Attempt >= job.MaxAttempts
	if ferr := w.Store.FailTransfer(context.WithoutCancel(ctx), t, owner, err.Error(), t.Attempts, final); ferr != nil {
		return ferr
	}
	if final {
		return river.JobCancel(err)
	}
	return err
}

// ends are the two stores of a transfer.
type ends struct {
	from, to blob.Store
}

func (w *TransferWorker) open(ctx context.Context, t *store.Transfer) (ends, error) {
	var e ends
	if t.FromLocationID == nil {
		if w.Sources.Files == nil {
			return e, fmt.Errorf("this server has no file store")
		}
		e.from = w.Sources.Files
	} else {
		b, err := w.location(ctx, t.TenantID, *t.FromLocationID, "source")
		if err != nil {
			return e, err
		}
		e.from = b
	}
	b, err := w.location(ctx, t.TenantID, t.ToLocationID, "destination")
	e.to = b
	return e, err
}

func (w *TransferWorker) location(ctx context.Context, tenantID, id, what string) (blob.Store, error) {
	l, err := w.Store.StorageLocation(ctx, tenantID, id)
	if loupe.ErrorKind(err) == loupe.ENOTFOUND {
		return nil, loupe.Invalid("the %s storage location %s no longer exists", what, id)
	}
	if err != nil {
		return nil, err
	}
	return w.Sources.OpenLocation(ctx, l)
}

func (w *TransferWorker) transfer(ctx context.Context, c Config, t *store.Transfer, owner string) error {
	e, err := w.open(ctx, t)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &progress{start: time.Now()}
	// The heartbeat renews the lease and writes the progress; a lease lost
	// stops the copy.
	var hb sync.WaitGroup
	hb.Add(1)
	stopHB := make(chan struct{})
	go func() {
		defer hb.Done()
		tick := time.NewTicker(c.Heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-stopHB:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				done, rate := p.now()
				if err := w.Store.TransferProgress(ctx, t, owner, done, rate, p.state()); errors.Is(err, store.ErrLeaseLost) {
					cancel(err)
					return
				}
			}
		}
	}()
	defer func() { close(stopHB); hb.Wait() }()

	sha, vouched, err := w.copy(ctx, c, t, owner, e, p)
	if err != nil {
		if errors.Is(err, errBadCopy) { // the destination said it received other bytes
			e.to.Delete(context.WithoutCancel(ctx), t.ToKey)     //nolint:errcheck // dropped either way
			w.Store.ResetTransfer(context.WithoutCancel(ctx), t) //nolint:errcheck // the next attempt starts over
		}
		if cause := context.Cause(ctx); errors.Is(cause, store.ErrLeaseLost) {
			return cause
		}
		return err
	}
	// Verify on arrival, before anything else happens.
	p.setState(loupe.TransferVerifying)
	done, rate := p.now()
	if err := w.Store.TransferProgress(ctx, t, owner, done, rate, loupe.TransferVerifying); err != nil {
		return err
	}
	// Where the destination's checksums of what arrived do not vouch for
	// the bytes sent (arrival.go), the copy is read back.
	if !vouched {
		if err := verify(ctx, e.to, t, sha); err != nil {
			if errors.Is(err, errBadCopy) {
				e.to.Delete(context.WithoutCancel(ctx), t.ToKey)     //nolint:errcheck // dropped either way
				w.Store.ResetTransfer(context.WithoutCancel(ctx), t) //nolint:errcheck // the next attempt resumes at worst
			}
			return err
		}
	}
	if want := t.ExpectedSHA256; want != "" && sha != want {
		// The source is not the file the item recorded: no copy of it.
		e.to.Delete(context.WithoutCancel(ctx), t.ToKey) //nolint:errcheck // unreferenced
		return loupe.Invalid("the source's SHA-256 %s is not the item's mediaSha256 %s: not copied", sha, want)
	}
	switchTo := ""
	if t.Mode == loupe.ReplicationMove && t.Media == loupe.ReplicationOriginal {
		switchTo = loupe.StorageLocationFile(t.ToLocationID, t.ToKey)
	}
	if err := w.Store.FinishTransfer(ctx, t, owner, sha, switchTo); err != nil {
		if loupe.ErrorKind(err) == loupe.ECONFLICT && switchTo != "" {
			e.to.Delete(context.WithoutCancel(ctx), t.ToKey) //nolint:errcheck // unreferenced
		}
		return err
	}
	if t.Mode == loupe.ReplicationMove {
		// The item points at the verified copy: the source may go (one left
		// behind by a failed delete is only space).
		e.from.Delete(context.WithoutCancel(ctx), t.FromKey) //nolint:errcheck
	}
	return nil
}

// progress is a transfer's bytes and state, shared with its heartbeat.
type progress struct {
	start    time.Time
	from     atomic.Int64 // where this attempt started
	done     atomic.Int64
	verified atomic.Bool
}

func (p *progress) now() (int64, float64) {
	done := p.done.Load()
	rate := 0.0
	if s := time.Since(p.start).Seconds(); s > 0 {
		rate = float64(done-p.from.Load()) / s
	}
	return done, rate
}

func (p *progress) setState(s loupe.TransferState) { p.verified.Store(s == loupe.TransferVerifying) }

func (p *progress) state() loupe.TransferState {
	if p.verified.Load() {
		return loupe.TransferVerifying
	}
	return loupe.TransferCopying
}

// copy copies the file and answers the SHA-256 of the bytes read.
// copy answers the SHA-256 of the bytes read, and whether the
// destination's own checksums vouch that it holds them (arrival.go).
func (w *TransferWorker) copy(ctx context.Context, c Config, t *store.Transfer, owner string, e ends, p *progress) (string, bool, error) {
	st, err := e.from.Stat(ctx, t.FromKey)
	if errors.Is(err, blob.ErrNotFound) {
		return "", false, loupe.Invalid("the file %s is missing from where it was to be copied from", t.FromKey)
	}
	if err != nil {
		return "", false, err
	}
	size := st.Size
	partSize := choosePartSize(c.PartSize, size)
	mp, ok := e.to.(blob.Multiparter)
	if !ok || size <= partSize {
		return w.single(ctx, t, owner, e, size, p)
	}
	return w.multipart(ctx, c, t, owner, e.from, mp, size, partSize, p)
}

// choosePartSize is the configured part size, at least S3's minimum, and
// large enough that the file needs at most blob.MaxParts.
func choosePartSize(want, size int64) int64 {
	ps := max(want, blob.MinPartSize)
	if need := (size + blob.MaxParts - 1) / blob.MaxParts; need > ps {
		ps = (need + 1<<20 - 1) &^ (1<<20 - 1)
	}
	return ps
}

// single copies a small file in one write (a crash restarts it).
func (w *TransferWorker) single(ctx context.Context, t *store.Transfer, owner string, e ends, size int64, p *progress) (string, bool, error) {
	if err := w.Store.StartTransfer(ctx, t, owner, size, nil, nil, 0); err != nil {
		return "", false, err
	}
	rc, _, _, err := e.from.Open(ctx, t.FromKey)
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", t.FromKey, err)
	}
	defer rc.Close()
	h, m := sha256.New(), md5.New() //nolint:gosec // compared with S3's ETag
	r := &meter{r: rc, p: p, limit: newLimiter(t.MaxBytesPerSecond)}
	obj, err := e.to.Put(ctx, t.ToKey, io.TeeReader(r, io.MultiWriter(h, m)), blob.WithSize(size))
	if err != nil {
		return "", false, fmt.Errorf("writing %s: %w", t.ToKey, err)
	}
	vouched, err := arrived(obj.ETag, m.Sum(nil), t.ToKey)
	return hexenc.EncodeToString(h.Sum(nil)), vouched, err
}

// part is one part read, on its way to the destination.
type part struct {
	n     int
	buf   []byte
	state []byte
}

// multipart copies a large file in parts, resuming after the parts of the
// transfer's upload that reached the destination.
func (w *TransferWorker) multipart(ctx context.Context, c Config, t *store.Transfer, owner string, from blob.Store,
	to blob.Multiparter, size, partSize int64, p *progress) (string, bool, error) {
	var uploadID string
	var parts []*store.TransferPart
	if t.UploadID != nil && t.PartSize != nil && *t.PartSize == partSize {
		uploadID = *t.UploadID
		var err error
		if parts, err = w.Store.TransferParts(ctx, t, uploadID); err != nil {
			return "", false, err
		}
	} else {
		var err error
		if uploadID, err = to.CreateMultipart(ctx, t.ToKey); err != nil {
			return "", false, fmt.Errorf("starting the upload of %s: %w", t.ToKey, err)
		}
	}
	// Resume after the parts recorded in order from the first: their
	// hash state continues the SHA-256 without reading them again.
	h := sha256.New()
	var offset int64
	var done []blob.Part
	for i, pt := range parts {
		if pt.Number != i+1 || pt.Size != partSize {
			break
		}
		done = append(done, blob.Part{Number: pt.Number, ETag: pt.ETag, Size: pt.Size})
		offset += pt.Size
	}
	if len(done) > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(parts[len(done)-1].HashState); err != nil {
			return "", false, err
		}
	}
	if err := w.Store.StartTransfer(ctx, t, owner, size, &uploadID, &partSize, offset); err != nil {
		return "", false, err
	}
	p.from.Store(offset)
	p.done.Store(offset)
	n := int((size + partSize - 1) / partSize)
	if len(done) < n {
		more, err := w.sendParts(ctx, c, t, owner, from, to, uploadID, size, partSize, len(done)+1, n, h, p)
		if err != nil {
			return "", false, err
		}
		done = append(done, more...)
	}
	slices.SortFunc(done, func(a, b blob.Part) int { return a.Number - b.Number })
	obj, err := to.CompleteMultipart(ctx, t.ToKey, uploadID, done)
	if err != nil {
		if errors.Is(err, blob.ErrInvalidPart) || errors.Is(err, blob.ErrNoSuchUpload) {
			w.Store.ResetTransfer(context.WithoutCancel(ctx), t) //nolint:errcheck // the next attempt starts over at worst
		}
		return "", false, fmt.Errorf("completing the upload of %s: %w", t.ToKey, err)
	}
	return hexenc.EncodeToString(h.Sum(nil)), multipartVouched(done, obj.ETag), nil
}

// sendParts reads parts first to last from the source (hashing them in
// order, the hash state kept with each) and uploads up to c.Concurrency at
// once; each part that arrives is recorded with its hash state.
func (w *TransferWorker) sendParts(ctx context.Context, c Config, t *store.Transfer, owner string, from blob.Store,
	to blob.Multiparter, uploadID string, size, partSize int64, first, last int, h hash.Hash, p *progress) ([]blob.Part, error) {
	offset := int64(first-1) * partSize
	rc, _, err := from.OpenRange(ctx, t.FromKey, offset, -1)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", t.FromKey, err)
	}
	defer rc.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &meter{r: rc, limit: newLimiter(t.MaxBytesPerSecond)}
	buffers := make(chan []byte, c.Concurrency+1)
	for range c.Concurrency + 1 {
		buffers <- make([]byte, partSize)
	}
	todo := make(chan part)
	var mu sync.Mutex
	var sent []blob.Part
	var wg sync.WaitGroup
	for range c.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pt := range todo {
				sum := md5.Sum(pt.buf) //nolint:gosec // compared with S3's ETag
				bp, err := to.UploadPart(ctx, t.ToKey, uploadID, pt.n, bytes.NewReader(pt.buf), int64(len(pt.buf)))
				if err == nil {
					// A part is recorded only once it arrived intact.
					_, err = arrived(bp.ETag, sum[:], fmt.Sprintf("part %d", pt.n))
				}
				if err == nil {
					p.done.Add(int64(len(pt.buf)))
					done, rate := p.now()
					err = w.Store.RecordTransferPart(ctx, t, owner, uploadID,
						&store.TransferPart{Number: pt.n, ETag: bp.ETag, Size: bp.Size, HashState: pt.state}, done, rate)
				}
				buffers <- pt.buf[:cap(pt.buf)]
				if err != nil {
					cancel(fmt.Errorf("part %d of %s: %w", pt.n, t.ToKey, err))
					continue
				}
				mu.Lock()
				sent = append(sent, bp)
				mu.Unlock()
			}
		}()
	}
	readErr := func() error {
		defer close(todo)
		for n := first; n <= last; n++ {
			var buf []byte
			select {
			case buf = <-buffers:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			buf = buf[:min(partSize, size-int64(n-1)*partSize)]
			if _, err := io.ReadFull(ctxReader{ctx, r}, buf); err != nil {
				return fmt.Errorf("reading part %d of %s: %w", n, t.FromKey, err)
			}
			h.Write(buf) //nolint:errcheck // hashes never fail
			state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return err
			}
			select {
			case todo <- part{n: n, buf: buf, state: state}:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		return nil
	}()
	wg.Wait()
	if readErr != nil {
		cancel(readErr)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return sent, nil
}

// verify reads the copy back: its size must be the transfer's, its SHA-256
// that of the bytes read (sha).
func verify(ctx context.Context, to blob.Store, t *store.Transfer, sha string) error {
	rc, size, _, err := to.Open(ctx, t.ToKey)
	if err != nil {
		return fmt.Errorf("reading the copy %s back: %w", t.ToKey, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, rc})
	if err != nil {
		return fmt.Errorf("reading the copy %s back: %w", t.ToKey, err)
	}
	if t.TotalBytes != nil && (n != *t.TotalBytes || size != *t.TotalBytes) {
		return fmt.Errorf("%w: %d bytes, the source has %d", errBadCopy, n, *t.TotalBytes)
	}
	if got := hexenc.EncodeToString(h.Sum(nil)); got != sha {
		return fmt.Errorf("%w: SHA-256 %s, the bytes read %s", errBadCopy, got, sha)
	}
	return nil
}

// ctxReader stops reading when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(b)
}
