// Package mediatest gates tests on the media tools (ffmpeg, ffprobe,
// vipsthumbnail) that scripts/deps installs: where one is missing the test
// skips saying so, unless LOUPE_MEDIATEST=require or LOUPE_WEBTEST=require
// (CI), where it fails.
package mediatest

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"testing"
)

// Tools are the media tools Loupe runs.
var Tools = []string{"ffmpeg", "ffprobe", "vipsthumbnail"}

// Need skips (or fails, where required) t unless every tool is installed
// (all of Tools when none is named).
func Need(t testing.TB, tools ...string) {
	t.Helper()
	if len(tools) == 0 {
		tools = Tools
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, tool+" is not installed (scripts/deps run installs it)")
		}
	}
}

// Missing skips t saying what is missing (msg), or fails it where the
// media tools are required (LOUPE_MEDIATEST=require, LOUPE_WEBTEST=require):
// for what Need cannot look up on PATH (an engine's data, a helper's
// module).
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("LOUPE_MEDIATEST") == "require" || os.Getenv("LOUPE_WEBTEST") == "require" {
		t.Fatal(msg)
	}
	t.Skip("skipped: " + msg)
}

// CorruptDuration answers a copy of an MP4 whose movie header (version 0)
// says it lasts 2^32-16 units of a timescale of 6: 22.7 years — a corrupt
// index, as damaged uploads have.
func CorruptDuration(t testing.TB, mp4 []byte) []byte {
	t.Helper()
	b := bytes.Clone(mp4)
	j := bytes.Index(b, []byte("mvhd"))
	if j < 0 || b[j+4] != 0 {
		t.Fatal("no version 0 mvhd")
	}
	binary.BigEndian.PutUint32(b[j+16:], 6)
	binary.BigEndian.PutUint32(b[j+20:], 0xFFFFFFF0)
	return b
}
