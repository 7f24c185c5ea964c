package analysis

import (
	"context"
	"fmt"
	"os"

	"github.com/loupe-mam/loupe/internal/media"
)

// AudioForSpeech writes the first audio track of input (a path or a URL
// ffmpeg reads) to outWav as 16 kHz mono 16-bit PCM, what speech engines
// take, and answers its duration in seconds.
func AudioForSpeech(ctx context.Context, input, outWav string) (float64, error) {
	if err := media.Run(ctx, media.Command{Args: []string{"-i", input, "-map", "0:a:0", "-vn", "-ac", "1", "-ar", "16000",
		"-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-c:a", "pcm_s16le", "-f", "wav", outWav}}); err != nil {
		return 0, err
	}
	return WAVSeconds(outWav)
}

// WAVSeconds is the duration of a 16 kHz mono 16-bit WAV (its size less
// the header, over 32,000 bytes a second).
func WAVSeconds(path string) (float64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if st.Size() < 44 {
		return 0, fmt.Errorf("analysis: %s is not a WAV file", path)
	}
	return float64(st.Size()-44) / 32000, nil
}
