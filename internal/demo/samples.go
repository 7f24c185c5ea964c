// Package demo gives a fresh Loupe something to show: it makes sample media
// with ffmpeg's generated (lavfi) sources, so nothing is downloaded and no
// footage is licensed, and uploads them through the server's real upload
// path (REST item + tus), where they are processed like any upload.
package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Sample is one file the demo makes and the item it becomes.
type Sample struct {
	// FileName is the name the file is made and uploaded under.
	FileName string
	Title    string
	// ItemType is the REST item's itemType (video, audio, image).
	ItemType string
	// Duration is how long a timed sample runs (0: a still).
	Duration time.Duration
	// make writes the sample to out, d long.
	make func(ctx context.Context, out string, d time.Duration) error
}

// Samples are the demo's files, each chosen to show one path of the
// processing (docs/demo.md): a landscape video with sound, a phone clip
// whose pixels are stored sideways, audio alone, and a still far larger
// than any preview.
func Samples() []Sample {
	return []Sample{
		{FileName: "demo-test-pattern.mp4", Title: "Demo: test pattern with timecode (720p, tone)", ItemType: "video", Duration: 20 * time.Second, make: makeTestPattern},
		{FileName: "demo-phone-portrait.mp4", Title: "Demo: phone clip, portrait (rotation metadata)", ItemType: "video", Duration: 10 * time.Second, make: makePhoneClip},
		{FileName: "demo-tones.m4a", Title: "Demo: tones (audio only)", ItemType: "audio", Duration: 15 * time.Second, make: makeTones},
		{FileName: "demo-mandelbrot.jpg", Title: "Demo: Mandelbrot still (4000x3000 JPEG)", ItemType: "image", make: makeStill},
	}
}

// Options change how the samples are made.
type Options struct {
	// MaxDuration caps each timed sample's length (tests make clips of a
	// second or two); 0 keeps each sample's own.
	MaxDuration time.Duration
}

// File is a sample made on disk.
type File struct {
	Sample
	Path string
	Size int64
}

// Make writes every sample into dir, one after another: ffmpeg already uses
// every core for the encodes, and the stills and audio take a second each.
func Make(ctx context.Context, dir string, opt Options) ([]File, error) {
	if !tool.Installed("ffmpeg") {
		return nil, errors.New("ffmpeg is not installed (scripts/deps run installs it, or: apt-get install ffmpeg)")
	}
	var files []File
	for _, s := range Samples() {
		d := s.Duration
		if opt.MaxDuration > 0 && d > opt.MaxDuration {
			d = opt.MaxDuration
		}
		out := filepath.Join(dir, s.FileName)
		if err := s.make(ctx, out, d); err != nil {
			return nil, fmt.Errorf("make %s: %w", s.FileName, err)
		}
		fi, err := os.Stat(out)
		if err != nil {
			return nil, fmt.Errorf("make %s: %w", s.FileName, err)
		}
		files = append(files, File{Sample: s, Path: out, Size: fi.Size()})
	}
	return files, nil
}

// makeTestPattern is a 1280x720 test pattern at 25 fps with a 1 kHz tone
// and a burnt-in timecode, so a player's position can be checked against
// the picture. drawtext needs a font through fontconfig; a system without
// one gets the pattern alone (testsrc2 shows its own running time).
func makeTestPattern(ctx context.Context, out string, d time.Duration) error {
	const tc = ",drawtext=timecode='00\\:00\\:00\\:00':rate=25:fontsize=64:fontcolor=white" +
		":box=1:boxcolor=black@0.6:boxborderw=12:x=(w-tw)/2:y=h-th-48"
	args := func(video string) []string {
		return []string{
			"-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=" + secs(d) + video,
			"-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=" + secs(d),
			"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
			"-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart", out,
		}
	}
	if err := ffmpeg(ctx, args(tc)...); err == nil || ctx.Err() != nil {
		return err
	}
	return ffmpeg(ctx, args("")...)
}

// makePhoneClip is what a phone held upright records: the picture is
// portrait (720x1280) but stored sideways as 1280x720, its top to the
// left, with a display rotation of 90° clockwise, as an iPhone writes it.
// A proxy that ignores the rotation shows it lying on its side; one that
// turns it the wrong way shows it upside down.
func makePhoneClip(ctx context.Context, out string, d time.Duration) error {
	sideways := strings.TrimSuffix(out, filepath.Ext(out)) + ".sideways.mp4"
	defer os.Remove(sideways)
	err := ffmpeg(ctx,
		// Colour bars in a portrait frame: upright, the bars stand above
		// the grey steps.
		"-f", "lavfi", "-i", "smptehdbars=size=720x1280:rate=30:duration="+secs(d),
		"-f", "lavfi", "-i", "sine=frequency=440:beep_factor=4:sample_rate=48000:duration="+secs(d),
		"-vf", "transpose=cclock",
		"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-b:a", "96k", "-shortest", sideways)
	if err != nil {
		return err
	}
	// The rotation is written by remuxing. ffmpeg 6.1+ takes it as an
	// input option (counter-clockwise degrees); older ones take the mov
	// "rotate" tag, whose sign some versions (5.x) turn around and which
	// the newest no longer write. So each way is checked by probing, as the
	// processing worker will read it.
	tries := [][]string{
		{"-display_rotation", "-90", "-i", sideways},
		{"-i", sideways, "-metadata:s:v:0", "rotate=90"},
		{"-i", sideways, "-metadata:s:v:0", "rotate=270"},
	}
	if !displayRotation() {
		tries = tries[1:]
	}
	got := -1
	for _, args := range tries {
		if err := ffmpeg(ctx, append(args, "-c", "copy", "-movflags", "+faststart", out)...); err != nil {
			return err
		}
		p, err := media.ProbeFile(ctx, out)
		if err != nil {
			return err
		}
		if v := p.Video(); v != nil {
			if got = v.Rotation(); got == 90 {
				return nil
			}
		}
	}
	return fmt.Errorf("this ffmpeg wrote no clockwise quarter turn (probed %d°)", got)
}

// makeTones is stereo AAC with no picture: the item gets an audio proxy and
// a waveform, no thumbnails. The swell (a slow amplitude change, out of
// phase between the channels) gives the waveform a shape to look at.
func makeTones(ctx context.Context, out string, d time.Duration) error {
	return ffmpeg(ctx,
		"-f", "lavfi", "-i", "aevalsrc=exprs="+
			"0.5*sin(2*PI*220*t)*(0.55+0.45*sin(2*PI*t/5))|"+
			"0.5*sin(2*PI*330*t)*(0.55+0.45*cos(2*PI*t/5))"+
			":sample_rate=48000:duration="+secs(d),
		"-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", out)
}

// makeStill is a 12-megapixel JPEG, a camera's size: the processing worker must
// shrink it to its thumbnail and preview without decoding it whole at once.
func makeStill(ctx context.Context, out string, _ time.Duration) error {
	return ffmpeg(ctx, "-f", "lavfi", "-i", "mandelbrot=size=4000x3000",
		"-frames:v", "1", "-q:v", "3", out)
}

// ffmpeg runs ffmpeg as the processing does; its error says what went
// wrong.
func ffmpeg(ctx context.Context, args ...string) error {
	return media.Run(ctx, media.Command{Args: args})
}

// displayRotation tells whether this ffmpeg has -display_rotation.
var displayRotation = sync.OnceValue(func() bool {
	var out bytes.Buffer
	tool.Run(context.Background(), tool.Cmd{Program: "ffmpeg", Args: []string{"-hide_banner", "-h", "full"}, Stdout: &out}) //nolint:errcheck // no help: no option
	return bytes.Contains(out.Bytes(), []byte("-display_rotation"))
})

// secs is d in seconds as lavfi durations take it.
func secs(d time.Duration) string {
	return fmt.Sprintf("%g", d.Seconds())
}
