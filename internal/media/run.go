package media

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/tool"
)

// Progress is what ffmpeg reports while it runs.
type Progress struct {
	// Done is the media time written so far.
	Done time.Duration
	// Speed is the media time written per wall-clock second (0: unknown).
	Speed float64
	// End is set on the last report.
	End bool
}

// Command is one ffmpeg run.
type Command struct {
	// Args are ffmpeg's arguments after the ones Run adds (quiet, no
	// stdin, progress on stdout).
	Args []string
	// OnProgress receives each progress report (about twice a second).
	OnProgress func(Progress)
}

// quiet are the arguments ffmpeg always runs with: no stdin, only errors
// said, outputs overwritten.
var quiet = []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-y"}

// FFmpegArgv is the ffmpeg command for args, as run without progress.
func FFmpegArgv(args []string) []string {
	return append(append([]string{"ffmpeg"}, quiet...), args...)
}

// Run runs ffmpeg and answers its error with the end of what it said.
func Run(ctx context.Context, c Command) error {
	args := append(append([]string{"-progress", "pipe:1"}, quiet...), c.Args...)
	return tool.Run(ctx, tool.Cmd{Program: "ffmpeg", Args: args, OnLine: progressLines(c.OnProgress)})
}

// progressLines parses ffmpeg's -progress blocks (key=value lines, each
// block ending with progress=continue or progress=end) for fn.
func progressLines(fn func(Progress)) func(line string) {
	var p Progress
	return func(line string) {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return
		}
		switch k {
		case "out_time_us", "out_time_ms": // both are microseconds
			if us, err := strconv.ParseInt(v, 10, 64); err == nil && us >= 0 {
				p.Done = time.Duration(us) * time.Microsecond
			}
		case "speed":
			p.Speed = parseFloat(strings.TrimSuffix(strings.TrimSpace(v), "x"))
		case "progress":
			p.End = v == "end"
			if fn != nil {
				fn(p)
			}
		}
	}
}
