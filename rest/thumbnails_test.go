package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

// The keys of a thumbnail record (the spec leaves them open).
var thumbnailKeys = []string{"position", "positionMs", "url", "width", "height"}

// createThumbnail registers a thumbnail through GraphQL (the spec has no
// REST path for it), uploads its image and returns its upload link.
func createThumbnail(t *testing.T, api *loupetest.API, c *loupetest.Client, itemID string, positionMs int, image string) string {
	t.Helper()
	var out struct {
		CreateThumbnail struct {
			UploadURL string `json:"uploadUrl"`
			Thumbnail struct {
				PositionMs int `json:"positionMs"`
			} `json:"thumbnail"`
		} `json:"createThumbnail"`
	}
	c.GraphQL(t, `mutation($in: CreateThumbnailInput!) { createThumbnail(input: $in) { uploadUrl thumbnail { positionMs } } }`,
		map[string]any{"in": map[string]any{"itemId": itemID, "positionMs": positionMs, "width": 320, "height": 180}}).OK(&out)
	if out.CreateThumbnail.Thumbnail.PositionMs != positionMs {
		t.Fatalf("createThumbnail answered %+v", out)
	}
	upload(t, api, out.CreateThumbnail.UploadURL, []byte(image))
	return out.CreateThumbnail.UploadURL
}

func TestThumbnailAtAPosition(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	ntsc := a.CreateItem(t, map[string]any{"title": "NTSC", "itemType": "video"})
	if _, err := api.DB.Exec(`UPDATE items SET technical_metadata = '{"frameRate": "30000/1001"}' WHERE id = $1`, ntsc); err != nil {
		t.Fatal(err)
	}
	empty := a.CreateItem(t, map[string]any{"title": "No thumbnails", "itemType": "video"})
	for _, ms := range []int{0, 10000, 20000} {
		createThumbnail(t, api, a, id, ms, fmt.Sprintf("image at %d", ms))
	}
	createThumbnail(t, api, a, ntsc, 1000, "ntsc at 1000")
	createThumbnail(t, api, a, ntsc, 1500, "ntsc at 1500")

	cases := []struct {
		item, position string
		wantMs         int
	}{
		{id, "0", 0},
		{id, "4.999", 0},
		{id, "5", 0}, // a tie goes to the earlier
		{id, "5.001", 10000},
		{id, "12.5", 10000},
		{id, "16", 20000},
		{id, "999999", 20000},
		{id, "00:00:14:24", 10000}, // 14 s + 24 frames at 25 fps = 14.96 s
		{id, "00:00:15:00", 10000}, // a tie at 15 s
		{id, "00:00:15:01", 20000}, // 15.04 s
		{id, "00:00:15;01", 20000}, // the drop-frame separator
		{id, "00:01:00:00", 20000},
		{ntsc, "00:00:01:07", 1000}, // 1 s + 7 frames at 29.97 fps = 1.234 s (at 25 fps it would be 1.28 s)
		{ntsc, "00:00:01:08", 1500}, // 1.267 s
		{ntsc, "00:00:01:29", 1500}, // frame 29 exists at 29.97 fps
	}
	for _, c := range cases {
		t.Run(c.position, func(t *testing.T) {
			got := a.Get(t, "/api/v1/items/"+c.item+"/thumbnail/"+c.position).Status(http.StatusOK).Object()
			sameKeys(t, "thumbnail", got, thumbnailKeys)
			if got["positionMs"] != float64(c.wantMs) || got["position"] != float64(c.wantMs)/1000 ||
				got["width"] != 320.0 || got["height"] != 180.0 {
				t.Fatalf("thumbnail at %s = %v, want the one at %d ms", c.position, got, c.wantMs)
			}
			img := download(t, api, got["url"].(string)).Status(200).Body
			if want := fmt.Sprintf("at %d", c.wantMs); !strings.HasSuffix(string(img), want) {
				t.Fatalf("url serves %q, want the image %s", img, want)
			}
		})
	}
	bad := []string{"abc", "-1", "1e3", "12.", "00:00:12", "00:61:00:00", "00:00:00:25", "1:2:3:4:5", "00:00:00%3A30"}
	for _, p := range bad {
		t.Run("bad "+p, func(t *testing.T) {
			a.Get(t, "/api/v1/items/"+id+"/thumbnail/"+p).Envelope(400, "")
		})
	}
	a.Get(t, "/api/v1/items/"+ntsc+"/thumbnail/00:00:00:30").Envelope(400, `position "00:00:00:30": frame 30 does not exist at 29.97 frames per second`)
	a.Get(t, "/api/v1/items/"+empty+"/thumbnail/1").Envelope(404, "The server can not find requested resource.")
	b.Get(t, "/api/v1/items/"+id+"/thumbnail/1").Envelope(404, "The server can not find requested resource.")
	a.Get(t, "/api/v1/items/"+missingID+"/thumbnail/1").Envelope(404, "The server can not find requested resource.")
}

func TestThumbnailURLsPages(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	id := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	empty := a.CreateItem(t, map[string]any{"title": "Empty", "itemType": "video"})
	// Created out of order: pages are by position.
	for _, ms := range []int{4000, 0, 3000, 1000, 2000} {
		createThumbnail(t, api, a, id, ms, "img")
	}
	// Replacing the one at 2 s keeps five, with a new file.
	old := createThumbnail(t, api, a, id, 2000, "img")
	createThumbnail(t, api, a, id, 2000, "img v2")
	if blobExists(t, api, blobKeyOf(t, old)) {
		t.Fatal("the replaced thumbnail's file is still stored")
	}

	type page struct {
		Thumbnails []map[string]any `json:"thumbnails"`
		NextIndex  *int             `json:"nextIndex"`
	}
	get := func(query string) page {
		t.Helper()
		r := a.Get(t, "/api/v1/items/"+id+"/thumbnails/urls"+query).Status(200)
		sameKeys(t, "thumbnail page", r.Object(), []string{"thumbnails", "nextIndex"})
		var p page
		r.JSON(&p)
		return p
	}
	positions := func(p page) string {
		var s []string
		for _, th := range p.Thumbnails {
			sameKeys(t, "thumbnail", th, thumbnailKeys)
			s = append(s, fmt.Sprint(th["positionMs"]))
		}
		return strings.Join(s, ",")
	}
	two := func(n int) *int { return &n }
	cases := []struct {
		query string
		want  string
		next  *int
	}{
		{"", "0,1000,2000,3000,4000", nil},
		{"?size=2", "0,1000", two(2)},
		{"?index=2&size=2", "2000,3000", two(4)},
		{"?index=4&size=2", "4000", nil},
		{"?index=3&size=2", "3000,4000", nil},
		{"?index=9", "", nil},
		{"?size=200", "0,1000,2000,3000,4000", nil},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			p := get(c.query)
			if got := positions(p); got != c.want || (p.NextIndex == nil) != (c.next == nil) || (c.next != nil && *p.NextIndex != *c.next) {
				t.Fatalf("%s: positions %s next %v, want %s next %v", c.query, got, p.NextIndex, c.want, c.next)
			}
		})
	}
	// The replaced one serves its new image.
	if img := download(t, api, get("?index=2&size=1").Thumbnails[0]["url"].(string)).Status(200).Body; string(img) != "img v2" {
		t.Fatalf("replaced thumbnail serves %q", img)
	}
	if p := a.Get(t, "/api/v1/items/"+empty+"/thumbnails/urls").Status(200).Object(); len(p["thumbnails"].([]any)) != 0 || p["nextIndex"] != nil {
		t.Fatalf("empty item: %v", p)
	}
	for _, q := range []string{"?size=0", "?size=201", "?index=-1", "?size=x"} {
		a.Get(t, "/api/v1/items/"+id+"/thumbnails/urls"+q).Envelope(400, "")
	}
	b.Get(t, "/api/v1/items/"+id+"/thumbnails/urls").Envelope(404, "The server can not find requested resource.")
	a.Get(t, "/api/v1/items/"+missingID+"/thumbnails/urls").Envelope(404, "The server can not find requested resource.")
}
