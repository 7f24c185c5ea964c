package render

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/tool"
)

// RefusedError is a profile ffmpeg would not render; Reason is what it
// said (its last meaningful lines, no paths).
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

// Dry-run source: a second of testsrc2 and tones.
const (
	dryWidth, dryHeight = 320, 240
	drySeconds          = 1
)

// DryRun renders a second of a synthetic source (testsrc2 and tones, as
// many audio streams and channels as the mapping reads) with p into a
// throwaway file in dir, probes it and answers the resolved profile:
// "<container>/<video codec>/<W>x<H>/<fps>/<audio codec>/<N>ch", the
// codecs as ffprobe names them, "-" for each part of a missing stream
// ("mov/-/-/-/pcm_s24le/2ch"). Where ffmpeg refuses (a codec the
// container does not take, a rate the codec does not know) the error is a
// *RefusedError saying why.
func DryRun(ctx context.Context, p Profile, dir string) (string, error) {
	if err := Validate(p); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "render-dry-run-*."+p.Container)
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}

	src, clip := synthetic(p)
	j, err := build([]placed{{clip: clip, src: src, rate: src.rate}}, p, abs, nil)
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	argv := media.FFmpegArgv(j.Args)
	if err := tool.Run(ctx, tool.Cmd{Program: argv[0], Args: argv[1:], Stderr: &stderr}); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &RefusedError{Reason: reason(stderr.String(), err, abs, name, dir)}
	}
	pr, err := media.ProbeFile(ctx, abs)
	if err != nil {
		return "", &RefusedError{Reason: "the file made cannot be read back: " + reason(err.Error(), nil, abs, name, dir)}
	}
	return resolved(p.Container, pr), nil
}

// synthetic is the dry run's source and its clip: a second of picture at
// the profile's rate (25 without video; the edit rate where there is
// one) and a tone on every channel the mapping reads.
func synthetic(p Profile) (*source, Clip) {
	rate := Rational{25, 1}
	if r := profileRate(p); r.valid() {
		rate = r
	}
	frames := max(1, int64(math.Round(rate.Float()*drySeconds)))
	lavfi := []string{fmt.Sprintf("testsrc2=size=%dx%d:rate=%s:duration=%d[out0]", dryWidth, dryHeight, rate, drySeconds)}
	src := &source{video: &videoStream{width: dryWidth, height: dryHeight, matrix: "bt601"}, rate: rate,
		seconds: drySeconds, frames: frames}
	if a := p.Audio; p.hasAudio() {
		// Each stream the mapping reads, with the channels it reads.
		need := map[int]int{}
		streams := 0
		for _, row := range a.Mapping {
			if row[0] >= 0 {
				need[row[0]] = max(need[row[0]], row[1]+1)
				streams = max(streams, row[0]+1)
			}
		}
		for s := range streams {
			n := max(1, need[s])
			exprs := make([]string, n)
			for c := range exprs {
				exprs[c] = fmt.Sprintf("0.1*sin(%d*2*PI*t)", 220+110*(s*8+c))
			}
			lavfi = append(lavfi, fmt.Sprintf("aevalsrc=exprs=%s:s=48000:d=%d[out%d]",
				strings.Join(exprs, "|"), drySeconds, s+1))
			src.audio = append(src.audio, audioStream{channels: n})
		}
	}
	src.input = []string{"-f", "lavfi", "-i", strings.Join(lavfi, ";")}
	return src, Clip{Source: "synthetic", In: 0, Out: frames}
}

// resolved is the dry run's answer for what ffprobe found in the file.
func resolved(container string, pr *media.Probe) string {
	parts := []string{container, "-", "-", "-", "-", "-"}
	if v := pr.Video(); v != nil {
		parts[1] = v.CodecName
		parts[2] = fmt.Sprintf("%dx%d", v.Width, v.Height)
		if r, ok := parseRational(v.RFrameRate); ok {
			parts[3] = r.String()
		}
	}
	if a := pr.Audio(); a != nil {
		parts[4] = a.CodecName
		parts[5] = strconv.Itoa(a.Channels) + "ch"
	}
	return strings.Join(parts, "/")
}

// logPrefix is what ffmpeg puts before a component's message:
// "[mp4 @ 0x55d1c0a3e2c0] ", "[Parsed_pan_0 @ 0x…] [SWR @ 0x…] ".
var logPrefix = regexp.MustCompile(`^(\[[^\]]* @ 0x[0-9a-f]+\] ?)+`)

// noise are ffmpeg's closing lines that say only that it failed.
var noise = []string{"Conversion failed!", "Exiting normally", "Error while filtering", "Error while processing the decoded data",
	"Failed to inject frame into filter network", "Error reinitializing filters!", "Error closing file",
	"Nothing was written into output file", "Error writing trailer", "Error initializing output stream"}

// reason is what ffmpeg said went wrong, from its stderr: the last lines
// that say something (at most three), ffmpeg's log prefixes and the
// throwaway file's path taken out.
func reason(stderr string, err error, paths ...string) string {
	clean := func(line string) string {
		line = strings.TrimSpace(logPrefix.ReplaceAllString(strings.TrimSpace(line), ""))
		for _, p := range paths {
			if p != "" {
				line = strings.ReplaceAll(line, "file:"+p, "the output")
				line = strings.ReplaceAll(line, p, "the output")
			}
		}
		return line
	}
	var kept []string
	for line := range strings.SplitSeq(stderr, "\n") {
		line = clean(line)
		if line == "" || hasPrefix(noise, line) {
			continue
		}
		if len(kept) == 0 || kept[len(kept)-1] != line {
			kept = append(kept, line)
		}
	}
	if len(kept) > 3 {
		kept = kept[len(kept)-3:]
	}
	switch {
	case len(kept) > 0:
		return strings.Join(kept, "; ")
	case err != nil:
		return "ffmpeg failed: " + clean(err.Error())
	}
	return "ffmpeg failed"
}

// hasPrefix reports whether s starts with one of prefixes.
func hasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
