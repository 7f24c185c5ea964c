package record

import (
	"bufio"
	"fmt"
	"io"
	"math"
)

// Stored is a segment where a player fetches it.
type Stored struct {
	// Run is the segment's run: a new run starts after a discontinuity,
	// with its own initialization segment.
	Run int
	// URI is the segment's address, InitURI its run's init segment's.
	URI, InitURI string
	Duration     float64
}

// Playlist writes the HLS media playlist of a recording so far: its
// segments in order, each run after a discontinuity with its own
// initialization segment (EXT-X-MAP). While the recording goes on it is
// an EVENT playlist a player reloads and plays from its start; ended, it
// is closed (EXT-X-ENDLIST).
func Playlist(w io.Writer, segs []Stored, ended bool) error {
	b := bufio.NewWriter(w)
	target := 1.0
	for _, s := range segs {
		target = math.Max(target, math.Ceil(s.Duration))
	}
	fmt.Fprintf(b, "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:%d\n#EXT-X-MEDIA-SEQUENCE:0\n", int(target))
	fmt.Fprintf(b, "#EXT-X-PLAYLIST-TYPE:EVENT\n#EXT-X-INDEPENDENT-SEGMENTS\n")
	for i, s := range segs {
		if i == 0 || s.Run != segs[i-1].Run {
			if i > 0 {
				b.WriteString("#EXT-X-DISCONTINUITY\n")
			}
			fmt.Fprintf(b, "#EXT-X-MAP:URI=%q\n", s.InitURI)
		}
		fmt.Fprintf(b, "#EXTINF:%.6f,\n%s\n", s.Duration, s.URI)
	}
	if ended {
		b.WriteString("#EXT-X-ENDLIST\n")
	}
	return b.Flush()
}
