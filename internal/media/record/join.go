package record

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupe-mam/loupe/internal/media"
)

// Join makes the recording's original of its segments of the original
// (in order): each run's init segment and segments joined byte for byte
// (fragmented MP4 is made to be), then the runs one after the other by
// ffmpeg's concat demuxer, the streams copied, into one file at out (its
// extension names the container: .mp4 or .mov). A gap between runs
// closes up: the gaps are the caller's to mark.
func Join(ctx context.Context, segs []Segment, dir, out string) error {
	var runs []string
	var f *os.File
	closeRun := func() error {
		if f == nil {
			return nil
		}
		err := f.Close()
		f = nil
		return err
	}
	run := -1
	for _, s := range segs {
		if s.Of != Original && s.Of != "" {
			continue
		}
		if s.Run != run {
			if err := closeRun(); err != nil {
				return err
			}
			run = s.Run
			path := filepath.Join(dir, fmt.Sprintf("join-run%03d.mp4", run))
			var err error
			if f, err = os.Create(path); err != nil {
				return err
			}
			runs = append(runs, path)
			if err := appendFile(f, s.Init); err != nil {
				f.Close()
				return err
			}
		}
		if err := appendFile(f, s.Path); err != nil {
			f.Close()
			return err
		}
	}
	if err := closeRun(); err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("record: nothing was recorded")
	}
	var list strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&list, "file '%s'\n", strings.ReplaceAll(r, "'", `'\''`))
	}
	listPath := filepath.Join(dir, "join.txt")
	if err := os.WriteFile(listPath, []byte(list.String()), 0o600); err != nil {
		return err
	}
	args := []string{"-f", "concat", "-safe", "0", "-i", listPath, "-map", "0", "-c", "copy"}
	if ext := strings.ToLower(filepath.Ext(out)); ext == ".mp4" || ext == ".mov" {
		args = append(args, "-movflags", "+faststart")
	}
	return media.Run(ctx, media.Command{Args: append(args, out)})
}

// appendFile adds the file at path to f.
func appendFile(f *os.File, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return err
}
