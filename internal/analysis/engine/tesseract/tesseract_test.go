package tesseract

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
)

// Words burnt into a frame are read back, a line each, boxed where they
// were drawn.
func TestDetectText(t *testing.T) {
	mediatest.Need(t, "ffmpeg", "tesseract")
	frame := filepath.Join(t.TempDir(), "frame.png")
	font := "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=0x203040:size=1280x720",
		"-vf", "drawtext=fontfile="+font+":text='BREAKING NEWS':fontsize=72:fontcolor=white:x=100:y=100,"+
			"drawtext=fontfile="+font+":text='Harbor closed until noon':fontsize=56:fontcolor=yellow:x=100:y=500",
		"-frames:v", "1", frame).CombinedOutput(); err != nil {
		t.Skipf("no font to draw with: %v %s", err, out)
	}
	lines, err := Engine{}.DetectText(context.Background(), frame, []string{"en-US"})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0].Text != "BREAKING NEWS" || strings.ToLower(lines[1].Text) != "harbor closed until noon" {
		t.Fatalf("lines: %+v", lines)
	}
	if b := lines[1].Box; b.Y < 480 || b.Y > 540 || b.X < 90 || b.X > 120 || lines[1].Confidence < MinWordConfidence {
		t.Errorf("second line: %+v", lines[1])
	}
}

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t640\t360\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t50\t30\t95.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t70\t22\t60\t30\t90.5\tworld\n" +
		"5\t1\t1\t1\t1\t3\t140\t22\t10\t10\t12.0\t~\n" + // unsure: dropped
		"5\t1\t2\t1\t1\t1\t10\t200\t40\t20\t80\t\"quoted\n"
	lines, err := parseTSV(strings.NewReader(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0].Text != "Hello world" || lines[0].Box.W != 120 || lines[0].Box.H != 32 ||
		lines[0].Confidence != 0.93 || lines[1].Text != `"quoted` {
		t.Fatalf("%+v", lines)
	}
}
