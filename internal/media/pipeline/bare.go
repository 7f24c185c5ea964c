package pipeline

import (
	"context"
	"path/filepath"

	"github.com/loupe-mam/loupe/internal/media"
)

// The benchmark's reference: the commands a run executes, as a shell runs
// them one after the other (cmd/loupe-bench).

// Bare is the commands of a run of every step on input (a video: p is its
// probe) into dir, in table order: what Loupe's run is measured against.
func Bare(input, dir string, p *media.Probe) [][]string {
	w := &Work{Input: input, Dir: dir, Probe: p, Kind: p.Kind(), Duration: p.Duration()}
	rows := rowsOf(w.Kind, false)
	made := AllSteps.made(rows)
	var cmds [][]string
	for _, st := range rows {
		if made[st] && st.Bare != nil {
			cmds = append(cmds, st.Bare(w)...)
		}
	}
	return cmds
}

func bareProbe(w *Work) [][]string { return [][]string{media.ProbeArgv(w.Input)} }

// bareProxy is the measuring commands and the proxy's. The proxy's command
// depends on what they measure, so they are run here once to write it
// (the reference then runs them again, as Loupe does).
func bareProxy(w *Work) [][]string {
	cmds := media.MeasureArgv(w.Input, w.Probe)
	if v := w.Probe.Video(); v != nil && v.Facts == nil {
		media.MeasureVideo(context.Background(), w.Input, w.Probe) //nolint:errcheck // the headers decide where it fails
	}
	args, err := media.ProxyArgs(w.Input, w.proxyPath(), w.Probe)
	if err != nil {
		return nil
	}
	return append(cmds, media.FFmpegArgv(args))
}

func bareCheck(w *Work) [][]string { return [][]string{media.ProbeArgv(w.proxyPath())} }

func bareThumbnails(w *Work) [][]string {
	tdir := filepath.Join(w.Dir, "thumbnails")
	return [][]string{{"mkdir", "-p", tdir},
		media.FFmpegArgv(media.ThumbnailsArgs(w.proxyPath(), filepath.Join(tdir, "%05d.jpg"))),
		media.FFmpegArgv(media.PosterArgs(w.proxyPath(), filepath.Join(w.Dir, "poster.jpg"), media.PosterPosition(w.Duration)))}
}

func bareAudioProxies(w *Work) [][]string {
	l := media.AudioLayoutOf(w.Probe)
	if args := media.AudioProxiesArgs(w.Input, "", trackProxyPaths(w, l), l); args != nil {
		return [][]string{media.FFmpegArgv(args)}
	}
	return nil
}

func bareStrip(w *Work) [][]string {
	sdir := filepath.Join(w.Dir, "strip")
	return [][]string{{"mkdir", "-p", sdir}, media.FFmpegArgv(media.StripArgs(w.proxyPath(), filepath.Join(sdir, "%03d.jpg")))}
}

func bareAudioProxy(w *Work) [][]string {
	l := media.AudioLayoutOf(w.Probe)
	return [][]string{media.FFmpegArgv(media.AudioProxiesArgs(w.Input, filepath.Join(w.Dir, "proxy.m4a"), trackProxyPaths(w, l), l))}
}

// bareWaveform is the peaks' decode; the picture is drawn in Go from them.
func bareWaveform(w *Work) [][]string {
	if w.Probe.Audio() == nil {
		return nil
	}
	return [][]string{media.FFmpegArgv(media.PeaksArgs(w.Input, w.Probe, "/dev/null"))}
}
