package media

import (
	"bufio"
	"bytes"
	"image"
	"image/jpeg"
	"testing"
)

// The header reader takes any bytes an upload holds: it answers a header
// or errNotPlainJPEG, never panics, and reads a JPEG Go wrote as what it
// is.
func FuzzJPEGHeader(f *testing.F) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewYCbCr(image.Rect(0, 0, 33, 17), image.YCbCrSubsampleRatio420), nil); err != nil {
		f.Fatal(err)
	}
	h, err := readJPEGHeader(bufio.NewReader(bytes.NewReader(b.Bytes())))
	if err != nil || h.width != 33 || h.height != 17 || h.pixFmt() == "" {
		f.Fatalf("Go's JPEG read as %+v, %v", h, err)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:20])
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := readJPEGHeader(bufio.NewReader(bytes.NewReader(data)))
		if err == nil {
			h.pixFmt()
		} else if err != errNotPlainJPEG {
			t.Fatalf("error %v", err)
		}
	})
}
