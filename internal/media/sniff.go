package media

import (
	"bytes"
	"mime"

	"github.com/gabriel-vasile/mimetype"
)

// SniffType is the media type of a file from its first bytes (an upload's
// head, an original Diagnose reads), without parameters (image/png,
// video/mp4, application/octet-stream). MXF and MPEG-TS, which mimetype
// does not know, are recognised first.
func SniffType(head []byte) string {
	if t := broadcastType(head); t != "" {
		return t
	}
	t := mimetype.Detect(head).String()
	if base, _, err := mime.ParseMediaType(t); err == nil {
		return base
	}
	return t
}

// mxfPartitionKey begins an MXF file's header partition pack (SMPTE ST
// 377-1: the universal label 06 0E 2B 34, a partition pack, header).
var mxfPartitionKey = []byte{0x06, 0x0E, 0x2B, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0D, 0x01, 0x02, 0x01, 0x01, 0x02}

// broadcastType recognises MXF (application/mxf) and an MPEG transport
// stream (video/mp2t: its sync byte every 188 bytes — or 192, the M2TS of
// AVCHD and Blu-ray — for as many packets as head holds, at least three,
// so a file that merely begins with 'G' is not one); "" otherwise.
func broadcastType(head []byte) string {
	if bytes.HasPrefix(head, mxfPartitionKey) {
		return "application/mxf"
	}
	for _, tp := range []struct{ size, offset int }{{188, 0}, {192, 4}} {
		n := (len(head) - tp.offset) / tp.size
		if n < 3 {
			continue
		}
		ok := true
		for i := range n {
			if head[tp.offset+i*tp.size] != 0x47 {
				ok = false
				break
			}
		}
		if ok {
			return "video/mp2t"
		}
	}
	return ""
}
