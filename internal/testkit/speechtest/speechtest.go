// Package speechtest makes test speech of known words: Debian's flite
// (its slt voice, which PocketSphinx's US English model hears well — espeak-ng
// speech came out at a word error rate near 1) says sentences, with a
// known silence between them.
package speechtest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// Sentences the tests say, and where they start in the speech Say makes
// (ms): each is followed by Gap of silence.
var Sentences = []string{
	"the quick brown fox jumped over the lazy dog",
	"we will meet at the harbor tomorrow morning",
	"please send the report before noon",
}

// Gap is the silence after each sentence, in ms.
const Gap = 1500

// Say writes the sentences as a 16 kHz mono WAV in dir and answers its path
// and the start of each sentence (ms).
func Say(t testing.TB, dir string, sentences ...string) (string, []int64) {
	t.Helper()
	mediatest.Need(t, "flite", "ffmpeg", "ffprobe")
	var args []string
	var filter string
	for i, s := range sentences {
		wav := filepath.Join(dir, "s"+strconv.Itoa(i)+".wav")
		if out, err := exec.Command("flite", "-voice", "slt", "-t", s, "-o", wav).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v %s", err, out)
		}
		args = append(args, "-i", wav)
		filter += "[" + strconv.Itoa(i) + ":a]aresample=16000,apad=pad_dur=" + strconv.FormatFloat(Gap/1000.0, 'f', 3, 64) + "[a" + strconv.Itoa(i) + "];"
	}
	for i := range sentences {
		filter += "[a" + strconv.Itoa(i) + "]"
	}
	filter += "concat=n=" + strconv.Itoa(len(sentences)) + ":v=0:a=1[out]"
	out := filepath.Join(dir, "speech.wav")
	args = append([]string{"-nostdin", "-loglevel", "error", "-y"}, args...)
	args = append(args, "-filter_complex", filter, "-map", "[out]", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", out)
	if b, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, b)
	}
	// Each sentence's start: the durations before it, gaps included.
	starts := make([]int64, len(sentences))
	var at int64
	for i := range sentences {
		starts[i] = at
		b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
			filepath.Join(dir, "s"+strconv.Itoa(i)+".wav")).Output()
		if err != nil {
			t.Fatal(err)
		}
		d, _ := strconv.ParseFloat(string(b[:len(b)-1]), 64)
		at += int64(d*1000) + Gap
	}
	return out, starts
}
