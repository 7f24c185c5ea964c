package record

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe/internal/media"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Thumbnail writes a JPEG of a segment's first frame, width px wide, to
// out: thumbnails as the recording goes. A segment of fragmented MP4 is
// read after its run's init segment (the concat protocol joins the
// bytes).
func Thumbnail(ctx context.Context, s Segment, width int, out string) error {
	return media.Run(ctx, media.Command{Args: []string{
		"-i", "concat:" + s.Init + "|" + s.Path, "-map", "0:v:0", "-frames:v", "1",
		"-vf", "scale=" + strconv.Itoa(width) + ":-2", "-q:v", "4", "-f", "image2", out}})
}

// Codecs names the codecs of the streams an init segment declares (what
// container the joined original needs).
func Codecs(ctx context.Context, init string) ([]string, error) {
	var out bytes.Buffer
	err := tool.Run(ctx, tool.Cmd{Program: "ffprobe", Args: []string{"-v", "error", "-show_entries", "stream=codec_name",
		"-of", "csv=p=0", init}, Stdout: &out})
	if err != nil {
		return nil, err
	}
	return strings.Fields(out.String()), nil
}
