package media

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-mam/loupe/internal/tool"
)

// Photo is what an image's embedded metadata says (EXIF, XMP, IPTC), read
// by ExifTool: the camera and how the picture was taken, where and when,
// and the words a photographer or agency wrote into it. Empty fields were
// not in the file.
type Photo struct {
	CameraMake   string   `json:"cameraMake,omitempty"`
	CameraModel  string   `json:"cameraModel,omitempty"`
	Lens         string   `json:"lens,omitempty"`
	FNumber      float64  `json:"fNumber,omitempty"`
	ExposureTime float64  `json:"exposureSeconds,omitempty"`
	ISO          float64  `json:"iso,omitempty"`
	FocalLength  float64  `json:"focalLengthMm,omitempty"`
	Orientation  int      `json:"orientation,omitempty"`
	Software     string   `json:"software,omitempty"`
	Creator      string   `json:"creator,omitempty"`
	Copyright    string   `json:"copyright,omitempty"`
	Description  string   `json:"description,omitempty"`
	Headline     string   `json:"headline,omitempty"`
	Keywords     []string `json:"keywords,omitempty"`
	City         string   `json:"city,omitempty"`
	Country      string   `json:"country,omitempty"`
	// TakenOn is DateTimeOriginal, at its offset when the file gives one
	// (else read as UTC).
	TakenOn *time.Time `json:"takenOn,omitempty"`
	// Where is the GPS position (nil without one).
	Where *GeoPoint `json:"-"`
}

// GeoPoint is a position on Earth in degrees (WGS 84), altitude in metres
// above sea level when known.
type GeoPoint struct {
	Latitude  float64  `json:"latitude"`
	Longitude float64  `json:"longitude"`
	Altitude  *float64 `json:"altitude,omitempty"`
}

// valid: within the globe, and not the 0,0 a camera without a fix writes.
func (g *GeoPoint) valid() bool {
	return g != nil && math.Abs(g.Latitude) <= 90 && math.Abs(g.Longitude) <= 180 && (g.Latitude != 0 || g.Longitude != 0)
}

// photoTags are the tags read: numeric values (-n), GPS signed by its
// references (the Composite tags).
var photoTags = []string{"-Make", "-Model", "-LensModel", "-Lens", "-FNumber", "-ExposureTime", "-ISO", "-FocalLength",
	"-Orientation", "-Software", "-Creator", "-Artist", "-By-line", "-Copyright", "-Rights", "-ImageDescription",
	"-Caption-Abstract", "-Description", "-Headline", "-Keywords", "-Subject", "-City", "-Country",
	"-Country-PrimaryLocationName", "-DateTimeOriginal", "-OffsetTimeOriginal",
	"-Composite:GPSLatitude", "-Composite:GPSLongitude", "-Composite:GPSAltitude"}

// ReadPhoto reads path's embedded metadata with exiftool (a local file:
// exiftool reads no URLs), kept running between photos (exifTool).
func ReadPhoto(ctx context.Context, path string) (*Photo, error) {
	args := append([]string{"-json", "-n", "-fast", "-charset", "filename=utf8"}, photoTags...)
	out, stderr, err := exifTool.run(ctx, append(args, path))
	if err != nil {
		return nil, err
	}
	var found []map[string]any
	if err := json.Unmarshal(out, &found); err != nil || len(found) != 1 {
		if msg := strings.TrimSpace(string(stderr)); msg != "" {
			return nil, fmt.Errorf("exiftool: %s: no answer", tool.LastLines(msg, 3))
		}
		return nil, fmt.Errorf("exiftool: unreadable answer: %v", err)
	}
	return photoOf(found[0]), nil
}

// photoOf reads exiftool's JSON of one file, where a tag is a string, a
// number or a list depending on the file.
func photoOf(m map[string]any) *Photo {
	str := func(names ...string) string {
		for _, n := range names {
			switch v := m[n].(type) {
			case string:
				if s := strings.TrimSpace(v); s != "" {
					return s
				}
			case float64:
				return strconv.FormatFloat(v, 'f', -1, 64)
			case []any:
				if len(v) > 0 {
					return fmt.Sprint(v[0])
				}
			}
		}
		return ""
	}
	num := func(name string) float64 {
		switch v := m[name].(type) {
		case float64:
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				return v
			}
		case string:
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
		return 0
	}
	p := &Photo{
		CameraMake: str("Make"), CameraModel: str("Model"), Lens: str("LensModel", "Lens"),
		FNumber: num("FNumber"), ExposureTime: num("ExposureTime"), ISO: num("ISO"), FocalLength: num("FocalLength"),
		Orientation: int(num("Orientation")), Software: str("Software"),
		Creator: str("Creator", "Artist", "By-line"), Copyright: str("Copyright", "Rights"),
		Description: str("Description", "ImageDescription", "Caption-Abstract"), Headline: str("Headline"),
		City: str("City"), Country: str("Country", "Country-PrimaryLocationName"),
	}
	seen := map[string]bool{}
	for _, n := range []string{"Keywords", "Subject"} {
		var words []any
		switch v := m[n].(type) {
		case []any:
			words = v
		case string, float64:
			words = []any{v}
		}
		for _, w := range words {
			s := strings.TrimSpace(fmt.Sprint(w))
			if s != "" && !seen[strings.ToLower(s)] {
				seen[strings.ToLower(s)] = true
				p.Keywords = append(p.Keywords, s)
			}
		}
	}
	p.TakenOn = exifTime(str("DateTimeOriginal"), str("OffsetTimeOriginal"))
	if _, ok := m["GPSLatitude"]; ok {
		g := &GeoPoint{Latitude: num("GPSLatitude"), Longitude: num("GPSLongitude")}
		if _, ok := m["GPSAltitude"]; ok {
			alt := num("GPSAltitude")
			g.Altitude = &alt
		}
		if g.valid() {
			p.Where = g
		}
	}
	return p
}

// exifTime reads EXIF's "2006:01:02 15:04:05" (with sub-seconds or a zone
// sometimes) at offset ("+02:00"; UTC without). Nil when unreadable or
// the zero date cameras write without a clock.
func exifTime(v, offset string) *time.Time {
	if len(v) < 19 {
		return nil
	}
	loc := time.UTC
	if t, err := time.Parse("-07:00", offset); err == nil {
		loc = t.Location()
	}
	t, err := time.ParseInLocation("2006:01:02 15:04:05", v[:19], loc)
	if err != nil || t.Year() < 1900 {
		return nil
	}
	t = t.UTC()
	return &t
}

// iso6709 is the position phones write in a video's metadata
// ("+48.8584+002.2945+035.000/").
var iso6709 = regexp.MustCompile(`^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)?/?$`)

// Where is the position a video's container gives (QuickTime's ISO 6709
// location tags; nil without one).
func (p *Probe) Where() *GeoPoint {
	for _, k := range []string{"com.apple.quicktime.location.ISO6709", "location"} {
		m := iso6709.FindStringSubmatch(strings.TrimSpace(p.Format.Tags[k]))
		if m == nil {
			continue
		}
		g := &GeoPoint{}
		g.Latitude, _ = strconv.ParseFloat(m[1], 64)
		g.Longitude, _ = strconv.ParseFloat(m[2], 64)
		if m[3] != "" {
			alt, _ := strconv.ParseFloat(m[3], 64)
			g.Altitude = &alt
		}
		if g.valid() {
			return g
		}
	}
	return nil
}
