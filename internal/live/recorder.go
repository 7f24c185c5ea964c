package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/jobs"
	"github.com/loupe-mam/loupe/internal/media/record"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// Recorder records the scheduled recordings (docs/live.md "How a
// recording runs"): a loop on every working node takes the recordings
// that are due — or whose node stopped renewing its lease — under a lease
// in Postgres, so that exactly one node records each; records the
// pipeline's source into segments on the tenant's storage as they
// arrive, with a growing playlist the item's proxy answers; and at the
// end joins the original's segments into the item's original and asks
// for its processing.
type Recorder struct {
	Store   *store.Store
	Service *Service
	Files   blob.Store
	// Node names this node in the leases.
	Node string
	// TempDir holds the segments between ffmpeg and the store ("": the
	// system's).
	TempDir string
	Logger  *slog.Logger

	mu      sync.Mutex
	holding int
}

// Defaults of the recorder's settings (Config).
const (
	DefaultSegmentSeconds = 4
	DefaultRecordingLease = 2 * time.Second
	// recordingLead is how long before its start a recording is taken,
	// so that ffmpeg has connected when it starts.
	recordingLead = 2 * time.Second
	// thumbnailEvery is how much media passes between thumbnails.
	thumbnailEvery = 30 * time.Second
	thumbnailWidth = 320
)

func (c Config) segmentSeconds() int {
	if c.SegmentSeconds > 0 {
		return c.SegmentSeconds
	}
	return DefaultSegmentSeconds
}

func (c Config) lease() time.Duration {
	if c.RecordingLease > 0 {
		return c.RecordingLease
	}
	return DefaultRecordingLease
}

// Run ticks until ctx ends: a third of the lease, so that a dead node's
// recording is taken over within about a lease and a third.
func (r *Recorder) Run(ctx context.Context) {
	jobs.Every(ctx, r.Service.Config().lease()/3, r.Logger, "live: recordings", r.Tick)
}

// Tick makes the series' next items and takes the due recordings.
func (r *Recorder) Tick(ctx context.Context) error {
	if _, err := r.Store.ExtendSeries(ctx, time.Now(), loupe.SeriesHorizon); err != nil {
		return err
	}
	c := r.Service.Config()
	r.mu.Lock()
	free := c.maxRecordings() - r.holding
	r.mu.Unlock()
	if free <= 0 {
		return nil
	}
	leases, err := r.Store.ClaimRecordings(ctx, r.Node, recordingLead, c.lease(), free)
	if err != nil {
		return err
	}
	for _, l := range leases {
		r.mu.Lock()
		r.holding++
		r.mu.Unlock()
		go func() {
			defer func() {
				r.mu.Lock()
				r.holding--
				r.mu.Unlock()
			}()
			// The loop's context: a node that shuts down stops recording,
			// and its lease lapses to another node.
			r.hold(ctx, l)
		}()
	}
	return nil
}

// hold records l (or finishes it, when a node died while it was being
// finished) while renewing its lease; it stops, writing nothing more,
// when the lease is lost.
func (r *Recorder) hold(ctx context.Context, l *store.RecordingLease) {
	log := r.Logger.With("tenant", l.TenantID, "item", l.ItemID, "epoch", l.Epoch)
	if l.Previous != "" {
		log.Info("live: taking over a recording", "from", l.Previous)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The run's own context: ended when the recording is stopped early.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var endMu sync.Mutex
	end := l.EndsOn
	lost := make(chan struct{})
	go func() {
		lease := r.Service.Config().lease()
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		renewed := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			e, err := r.Store.RenewRecording(ctx, l, time.Now().Add(lease))
			switch {
			case errors.Is(err, store.ErrRecordingLost):
			case err != nil && time.Since(renewed) < lease:
				log.Warn("live: renewing a recording's lease", "err", err)
				continue
			case err != nil:
				// Not renewed within the lease: another node may hold it.
			default:
				renewed = time.Now()
				endMu.Lock()
				earlier := e.Before(end)
				end = e
				endMu.Unlock()
				if earlier {
					// Stopped early (or shortened): the run ends then, and
					// the recording finishes with what there is.
					time.AfterFunc(time.Until(e), stop)
				}
				continue
			}
			log.Warn("live: a recording's lease was lost; another node goes on", "err", err)
			close(lost)
			cancel()
			return
		}
	}()
	endNow := func() time.Time {
		endMu.Lock()
		defer endMu.Unlock()
		return end
	}

	dir, err := os.MkdirTemp(r.TempDir, "loupe-recording-")
	if err != nil {
		log.Error("live: recording", "err", err)
		return
	}
	defer os.RemoveAll(dir)
	if l.State != "finishing" {
		err = r.record(ctx, runCtx, l, dir, endNow, stop, log)
		if isLost(err, lost) || ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Warn("live: recording ended early", "err", err)
		}
		if err := r.Store.FinishingRecording(ctx, l); err != nil {
			if !isLost(err, lost) {
				log.Error("live: recording", "err", err)
			}
			return
		}
	}
	if err := r.finish(ctx, l, dir); err != nil && !isLost(err, lost) {
		log.Error("live: finishing a recording", "err", err)
		if err := r.Store.FailRecording(ctx, l, loupe.RedactLiveText(err.Error())); err != nil && !isLost(err, lost) {
			log.Error("live: failing a recording", "err", err)
		}
	}
}

// isLost says whether err (or the lease watcher) says the lease is gone.
func isLost(err error, lost <-chan struct{}) bool {
	if errors.Is(err, store.ErrRecordingLost) {
		return true
	}
	select {
	case <-lost:
		return true
	default:
		return false
	}
}

// segmentPrefix is where a recording's live segments and playlist are.
func segmentPrefix(l *store.RecordingLease) string {
	return loupe.ItemFilesPrefix(l.TenantID, l.ItemID) + "live/"
}

// record runs the recording engine until the end (runCtx ends early when
// the recording is stopped), storing each segment as it arrives.
func (r *Recorder) record(ctx, runCtx context.Context, l *store.RecordingLease, dir string, end func() time.Time, stop func(),
	log *slog.Logger) error {
	p, err := r.Store.LivePipeline(ctx, l.TenantID, l.PipelineID)
	if err != nil {
		return fmt.Errorf("the recording's pipeline: %w", err)
	}
	in, err := r.Service.Input(ctx, p)
	if err != nil {
		return err
	}
	// What the source sends decides whether a browser can play its copy:
	// as last measured, else measured now, else H.264/AAC assumed. (Not
	// measured anew each time: a source may take one reader only, like an
	// SRT listener.)
	m := p.Measured()
	if m == nil || p.MeasuredKey != p.Current {
		m = r.Service.Measure(ctx, p).Measured
	}
	opts := record.Options{Source: in.URL, Protocols: in.Protocols, Headers: in.Headers, Dir: dir, Until: end(), End: end,
		SegmentSeconds: r.Service.Config().segmentSeconds()}
	if m != nil {
		if m.Audio != nil {
			opts.AudioCodec = m.Audio.Codec
		}
		opts.Proxy = !browserPlays(m)
	}
	play := record.Original
	if opts.Proxy {
		play = record.ProxyOut
	}
	w, err := r.newWriter(ctx, l, play, p.AudioOnly)
	if err != nil {
		return err
	}
	w.stop = stop
	opts.OnSegment = w.segment
	if !w.lastEnd.IsZero() && l.Previous != "" {
		// Taken over: the media is missing from the earlier node's last
		// stored segment until this node's first.
		opts.Missing = &record.Gap{From: w.lastEnd,
			Reason: fmt.Sprintf("the recording node %s stopped; %s went on", l.Previous, l.Node)}
	}
	opts.OnGap = func(g record.Gap) {
		if err := r.Store.AddRecordingGap(ctx, l, store.RecordingGap{From: g.From, To: g.To, Reason: g.Reason}); err != nil {
			w.fail(err)
		}
	}
	// Taken a little early so that all is ready; recorded from its start.
	select {
	case <-runCtx.Done():
	case <-time.After(time.Until(l.StartsOn)):
	}
	err = record.Run(runCtx, opts)
	if w.err != nil {
		return w.err
	}
	if runCtx.Err() != nil && ctx.Err() == nil {
		return nil // stopped early
	}
	return err
}

// browserPlays says whether a browser plays the source's streams as
// copied (H.264 with AAC or no audio): else the recording makes a proxy.
func browserPlays(m *loupe.LiveMeasurement) bool {
	if m.Video != nil && m.Video.Codec != "h264" {
		return false
	}
	return m.Audio == nil || m.Audio.Codec == "aac" || m.Audio.Codec == "mp3"
}

// writer stores one hold's segments, the playlist and the thumbnails.
type writer struct {
	r      *Recorder
	ctx    context.Context
	l      *store.RecordingLease
	prefix string
	play   string
	audio  bool
	played []record.Stored
	inits  map[string]string
	// lastEnd is when an earlier hold's last stored media ended (zero:
	// none).
	lastEnd  time.Time
	media    time.Duration
	nextShot time.Duration
	// err is the first failure to store; stop then ends the run (the
	// recording finishes with what is stored).
	err  error
	stop func()
}

func (r *Recorder) newWriter(ctx context.Context, l *store.RecordingLease, play string, audioOnly bool) (*writer, error) {
	w := &writer{r: r, ctx: ctx, l: l, prefix: segmentPrefix(l), play: play, audio: audioOnly, inits: map[string]string{}}
	// What earlier holds stored stays in the playlist, before a
	// discontinuity.
	segs, err := r.Store.RecordingSegments(ctx, l.TenantID, l.ItemID, play)
	if err != nil {
		return nil, err
	}
	for _, s := range segs {
		w.played = append(w.played, record.Stored{Run: runOf(s.Epoch, s.Run), URI: strings.TrimPrefix(s.Key, w.prefix),
			InitURI: strings.TrimPrefix(s.InitKey, w.prefix), Duration: s.Duration})
		w.lastEnd = s.On
	}
	return w, nil
}

// runOf numbers a hold's run among all of a recording's runs.
func runOf(epoch, run int) int { return epoch*100_000 + run }

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
		w.stop()
	}
}

// segment stores one complete segment (its run's init segment with the
// first), records it, and — for the played output — rewrites the
// playlist; the local files go once stored.
func (w *writer) segment(s record.Segment) {
	if w.err != nil {
		return
	}
	// One directory, the playlist's: its directory link reaches the
	// files beside it only (blob.Signer.DirURL).
	base := fmt.Sprintf("e%d-%s-r%03d-", w.l.Epoch, s.Of, s.Run)
	initKey := w.prefix + base + "init.mp4"
	if w.inits[initKey] == "" {
		if err := w.put(initKey, s.Init, "video/mp4"); err != nil {
			w.fail(err)
			return
		}
		w.inits[initKey] = s.Init
	}
	key := w.prefix + base + fmt.Sprintf("%05d.m4s", s.Index)
	st, err := os.Stat(s.Path)
	if err != nil {
		w.fail(err)
		return
	}
	if err := w.put(key, s.Path, "video/iso.segment"); err != nil {
		w.fail(err)
		return
	}
	if s.Of == record.Original {
		if err := w.thumbnail(s); err != nil {
			w.r.Logger.Warn("live: a recording's thumbnail", "item", w.l.ItemID, "err", err)
		}
	}
	if err := w.r.Store.AddRecordingSegment(w.ctx, w.l, store.RecordingSegment{Of: s.Of, Run: s.Run, Index: s.Index,
		Key: key, InitKey: initKey, Duration: s.Duration, Size: st.Size()}); err != nil {
		w.fail(err)
		return
	}
	if s.Of == w.play {
		w.played = append(w.played, record.Stored{Run: runOf(w.l.Epoch, s.Run), URI: strings.TrimPrefix(key, w.prefix),
			InitURI: strings.TrimPrefix(initKey, w.prefix), Duration: s.Duration})
		var b bytes.Buffer
		if err := record.Playlist(&b, w.played, false); err != nil {
			w.fail(err)
			return
		}
		pl := w.prefix + "index.m3u8"
		if _, err := w.r.Files.Put(w.ctx, pl, &b, blob.WithContentType("application/vnd.apple.mpegurl"),
			blob.WithSize(int64(b.Len()))); err != nil {
			w.fail(err)
			return
		}
		if len(w.played) == 1 || s.Index == 0 {
			if err := w.r.Store.SetLiveMedia(w.ctx, w.l, pl, ""); err != nil {
				w.fail(err)
				return
			}
		}
	}
	// The init segment stays: the run's next segments are read after it.
	os.Remove(s.Path)
}

// thumbnail stores a thumbnail of the segment's first frame as the item's
// latest, with the first segment and then every thumbnailEvery of media.
func (w *writer) thumbnail(s record.Segment) error {
	at := w.media
	w.media += time.Duration(s.Duration * float64(time.Second))
	if w.audio || at < w.nextShot {
		return nil
	}
	w.nextShot = at + thumbnailEvery
	out := s.Path + ".jpg"
	defer os.Remove(out)
	if err := record.Thumbnail(w.ctx, s, thumbnailWidth, out); err != nil {
		return err
	}
	key := w.prefix + fmt.Sprintf("thumbnails/e%d-%06d.jpg", w.l.Epoch, int(at.Seconds()))
	if err := w.put(key, out, "image/jpeg"); err != nil {
		return err
	}
	return w.r.Store.SetLiveMedia(w.ctx, w.l, "", key)
}

// put stores the file at path under key: three tries, half a second
// apart (a store may fail for a moment).
func (w *writer) put(key, path, contentType string) error {
	for try := 1; ; try++ {
		_, err := blob.PutFile(w.ctx, w.r.Files, key, path, contentType)
		if err == nil || try == 3 || w.ctx.Err() != nil {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// finish joins the original's stored segments into the item's original
// and completes the recording (its processing follows).
func (r *Recorder) finish(ctx context.Context, l *store.RecordingLease, dir string) error {
	segs, err := r.Store.RecordingSegments(ctx, l.TenantID, l.ItemID, record.Original)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return errors.New("nothing was recorded: the source sent no media during the recording (its gaps say why)")
	}
	parts := make([]record.Segment, len(segs))
	seconds := 0.0
	inits := map[string]string{}
	for i, s := range segs {
		p := filepath.Join(dir, fmt.Sprintf("join-%06d.m4s", i))
		if err := blob.Download(ctx, r.Files, s.Key, p); err != nil {
			return fmt.Errorf("reading a segment back: %w", err)
		}
		if inits[s.InitKey] == "" {
			ip := filepath.Join(dir, fmt.Sprintf("join-init-%06d.mp4", i))
			if err := blob.Download(ctx, r.Files, s.InitKey, ip); err != nil {
				return fmt.Errorf("reading a segment back: %w", err)
			}
			inits[s.InitKey] = ip
		}
		parts[i] = record.Segment{Of: record.Original, Run: runOf(s.Epoch, s.Run), Index: s.Index, Path: p,
			Init: inits[s.InitKey], Duration: s.Duration}
		seconds += s.Duration
	}
	name := "recording-" + l.StartsOn.UTC().Format("20060102T150405Z")
	ext, contentType := ".mp4", "video/mp4"
	if movOnly(ctx, parts[0]) {
		ext, contentType = ".mov", "video/quicktime"
	}
	out := filepath.Join(dir, name+ext)
	if err := record.Join(ctx, parts, dir, out); err != nil {
		return fmt.Errorf("joining the segments: %w", err)
	}
	key := loupe.ItemFilesPrefix(l.TenantID, l.ItemID) + "original/" + name + ext
	obj, err := blob.PutFile(ctx, r.Files, key, out, contentType)
	if err != nil {
		return err
	}
	analyses, err := r.analyses(ctx, l.TenantID)
	if err != nil {
		return err
	}
	err = r.Store.CompleteRecording(ctx, l, store.Recorded{Key: key, FileName: name + ext, MediaType: contentType,
		SHA256: obj.SHA256, Size: obj.Size, Seconds: seconds}, analyses)
	if errors.Is(err, store.ErrRecordingLost) || errors.Is(err, store.ErrRecordingItemGone) {
		_ = r.Files.Delete(context.WithoutCancel(ctx), key)
	}
	if errors.Is(err, store.ErrRecordingItemGone) {
		return nil // ended as failed, saying why
	}
	return err
}

// movOnly says whether the recording's streams need QuickTime rather than
// MP4 (PCM audio, ProRes, DNxHD): the init segment's codecs say.
func movOnly(ctx context.Context, s record.Segment) bool {
	codecs, err := record.Codecs(ctx, s.Init)
	if err != nil {
		return false
	}
	for _, c := range codecs {
		if strings.HasPrefix(c, "pcm_") || c == "prores" || c == "dnxhd" || c == "s302m" {
			return true
		}
	}
	return false
}

// analyses are what the tenant's recordingsAnalyticConfig switches on.
func (r *Recorder) analyses(ctx context.Context, tenantID string) ([]string, error) {
	tc, err := r.Store.TenantConfig(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	var on map[string]bool
	_ = json.Unmarshal(tc.RecordingsAnalyticConfig, &on) // a non-boolean value switches nothing on
	out := []string{}
	for _, k := range jobs.AnalysisKinds {
		if on[k] {
			out = append(out, k)
		}
	}
	return out, nil
}
