package resolvers

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/scalar"
	"github.com/loupe-mam/loupe/store"
)

// A time position as a client writes it: seconds ("12.5") or a timecode
// ("HH:MM:SS:FF", or with ';' before the frames as drop-frame timecodes are
// written; frames count at the item's nominal frame rate either way).
type position struct {
	seconds       float64
	timecode      bool
	h, m, s, f    int64
	originalInput string
}

var (
	secondsRE  = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	timecodeRE = regexp.MustCompile(`^([0-9]{1,3}):([0-5][0-9]):([0-5][0-9])[:;]([0-9]{1,3})$`)
)

// maxPositionSeconds bounds a position (over 11 days: no media is longer).
const maxPositionSeconds = 1e6

func errPosition(s string) error {
	return loupe.Invalid("position must be seconds (12.5) or a timecode (HH:MM:SS:FF), got %q", s)
}

func parsePosition(s string) (position, error) {
	if secondsRE.MatchString(s) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f > maxPositionSeconds {
			return position{}, errPosition(s)
		}
		return position{seconds: f, originalInput: s}, nil
	}
	m := timecodeRE.FindStringSubmatch(s)
	if m == nil {
		return position{}, errPosition(s)
	}
	n := make([]int64, 4)
	for i := range n {
		n[i], _ = strconv.ParseInt(m[i+1], 10, 64) // digits, at most three
	}
	return position{timecode: true, h: n[0], m: n[1], s: n[2], f: n[3], originalInput: s}, nil
}

// ms is the position in milliseconds; a timecode's frames count at fps.
func (p position) ms(fps float64) (int64, error) {
	if !p.timecode {
		return int64(math.Round(p.seconds * 1000)), nil
	}
	if float64(p.f) >= math.Ceil(fps) {
		return 0, loupe.Invalid("position %q: frame %d does not exist at %.4g frames per second", p.originalInput, p.f, fps)
	}
	secs := (p.h*60+p.m)*60 + p.s
	return secs*1000 + int64(math.Round(float64(p.f)*1000/fps)), nil
}

// defaultFrameRate counts timecode frames for media whose frame rate is not
// known (PAL).
const defaultFrameRate = 25

// frameRate reads technicalMetadata.frameRate (or fps): a number, or a
// string such as "29.97" or "30000/1001". Anything else means 25.
func frameRate(tech loupe.JSON) float64 {
	if tech.IsNull() {
		return defaultFrameRate
	}
	var md map[string]json.RawMessage
	if json.Unmarshal(tech, &md) != nil {
		return defaultFrameRate
	}
	for _, k := range []string{"frameRate", "fps"} {
		raw, ok := md[k]
		if !ok {
			continue
		}
		var num float64
		if json.Unmarshal(raw, &num) == nil && validFPS(num) {
			return num
		}
		var str string
		if json.Unmarshal(raw, &str) != nil {
			continue
		}
		if a, b, ok := strings.Cut(str, "/"); ok {
			n, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
			d, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
			if err1 == nil && err2 == nil && d != 0 && validFPS(n/d) {
				return n / d
			}
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(str), 64); err == nil && validFPS(f) {
			return f
		}
	}
	return defaultFrameRate
}

func validFPS(f float64) bool { return f > 0 && f <= 1000 && !math.IsNaN(f) }

// userThumbnailInfo is Item.thumbnailInfo of a poster a user chose: what a
// client (or a processing step reading the record) needs to tell the
// user's choice from a generated thumbnail.
func userThumbnailInfo(u *store.UserThumbnail) loupe.JSON {
	return loupe.JSONOf(map[string]string{
		"chosenBy":   "user",
		"attachment": u.FileName,
		"userId":     u.UserID,
		"chosenOn":   u.ChosenOn.UTC().Format(scalar.Layout),
	})
}
