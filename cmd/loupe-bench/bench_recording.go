package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/loupe-mam/loupe/internal/media/record"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// The recording rows (issue 32; docs/live.md "Measured"): live 1080p25
// H.264/AAC sources (a pre-encoded clip sent in real time over SRT, its
// streams copied, so that the senders cost little) recorded by Loupe's
// recording engine — the streams copied into segments, and with the
// 720p proxy made beside them — several at once for 20 s. CPU per stream
// is the recorders' ffmpeg processes' CPU time (getrusage of the waited
// children, taken before the senders are waited) over the wall time;
// "per core" is its inverse. The latency row is, for every segment, the
// time from the source sending its first frame to the segment being
// stored (a disk store) and listed in the rewritten playlist, in segment
// lengths (goal ≤ 2).

const (
	recordingCopy    = "recording: 1080p25 live sources, streams copied (recordings per core)"
	recordingProxy   = "recording: 1080p25 live sources, copied + 720p H.264 proxy (recordings per core)"
	recordingLatency = "recording: source frame → segment in the growing playlist (worst, in segment lengths)"
)

const (
	recordingSeconds = 20
	recordingSegment = 4
)

func recordingRows(ctx context.Context, dir string, log io.Writer) []procRow {
	fail := func(err error) []procRow {
		return []procRow{{Scenario: recordingCopy, Unmeasured: err.Error()}, {Scenario: recordingProxy, Unmeasured: err.Error()},
			{Scenario: recordingLatency, Unmeasured: err.Error()}}
	}
	work := filepath.Join(dir, "recording")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	fmt.Fprintln(log, "bench: making the 1080p live source with lavfi")
	clip := filepath.Join(work, "source.ts")
	if out, err := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=30",
		"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=30",
		"-c:v", "libx264", "-preset", "veryfast", "-b:v", "8M", "-g", "25", "-c:a", "aac", "-shortest", clip).CombinedOutput(); err != nil {
		return fail(fmt.Errorf("making the source: %v %s", err, out))
	}
	copyRow, latency := recordingRun(ctx, work, clip, 8, false, log)
	copyRow.Scenario = recordingCopy
	proxyRow, _ := recordingRun(ctx, work, clip, 1, true, log)
	proxyRow.Scenario = recordingProxy
	return []procRow{copyRow, proxyRow, latency}
}

// recordingRun records n sources at once for recordingSeconds and answers
// the CPU row and the latency row.
func recordingRun(ctx context.Context, work, clip string, n int, proxy bool, log io.Writer) (procRow, procRow) {
	fmt.Fprintf(log, "bench: recording %d live 1080p sources for %d s (proxy %v)\n", n, recordingSeconds, proxy)
	row := procRow{}
	lat := procRow{Scenario: recordingLatency}
	var senders []*exec.Cmd
	defer func() {
		for _, s := range senders {
			s.Process.Kill() //nolint:errcheck // ended already is fine
			s.Wait()         //nolint:errcheck // killed
		}
	}()
	urls := make([]string, n)
	for i := range n {
		port, err := udpPort()
		if err != nil {
			row.Unmeasured = err.Error()
			return row, lat
		}
		s := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-loglevel", "quiet", "-re", "-stream_loop", "-1", "-i", clip,
			"-c", "copy", "-f", "mpegts", fmt.Sprintf("srt://127.0.0.1:%d?mode=listener", port))
		if err := s.Start(); err != nil {
			row.Unmeasured = err.Error()
			return row, lat
		}
		senders = append(senders, s)
		urls[i] = fmt.Sprintf("srt://127.0.0.1:%d", port)
	}
	time.Sleep(500 * time.Millisecond) // the listeners listen

	files, err := blob.NewDisk(filepath.Join(work, fmt.Sprintf("store-%v", proxy)))
	if err != nil {
		row.Unmeasured = err.Error()
		return row, lat
	}
	played := make([][]record.Stored, n)
	before := childCPU()
	start := time.Now()
	until := start.Add(recordingSeconds * time.Second)
	var mu sync.Mutex
	var worst float64
	var errs []error
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			media := 0.0
			err := record.Run(ctx, record.Options{Source: u, Dir: filepath.Join(work, fmt.Sprintf("rec%d-%v", i, proxy)), Until: until,
				SegmentSeconds: recordingSegment, Proxy: proxy, Protocols: "srt",
				OnSegment: func(s record.Segment) {
					if s.Of != record.Original || s.Run != 0 {
						return
					}
					// Stored and listed as the recorder does: the segment
					// put in a disk store, the playlist so far rewritten.
					key := fmt.Sprintf("rec%d/%05d.m4s", i, s.Index)
					if _, err := blob.PutFile(ctx, files, key, s.Path, "video/iso.segment"); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					played[i] = append(played[i], record.Stored{URI: key, InitURI: "init.mp4", Duration: s.Duration})
					var pl bytes.Buffer
					if err := record.Playlist(&pl, played[i], false); err == nil {
						_, err = files.Put(ctx, fmt.Sprintf("rec%d/index.m3u8", i), &pl)
					}
					// Its first frame left the source about when the run
					// began plus the media before it.
					late := time.Since(began).Seconds() - media
					media += s.Duration
					mu.Lock()
					worst = max(worst, late/recordingSegment)
					mu.Unlock()
				}})
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cpu := childCPU() - before
	if len(errs) > 0 {
		row.Unmeasured = errs[0].Error()
		return row, lat
	}
	perStream := cpu.Seconds() / wall.Seconds() / float64(n)
	row.Took = wall
	row.Value = fmt.Sprintf("%.1f per core", 1/perStream)
	row.Note = fmt.Sprintf("%d at once, %.1f%% of a core each", n, 100*perStream)
	if !proxy {
		row.Note += " (goal: ≥ 8 per core)"
	}
	lat.Value = fmt.Sprintf("%.2f", worst)
	lat.Note = fmt.Sprintf("%d s segments, %d sources at once (goal: ≤ 2)", recordingSegment, n)
	return row, lat
}

// childCPU is the CPU time of this process's waited children so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// udpPort is a free UDP port on loopback (SRT runs over UDP).
func udpPort() (int, error) {
	l, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.LocalAddr().(*net.UDPAddr).Port, nil
}
