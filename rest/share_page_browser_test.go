package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/mediatest"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// sharePageSummary is what testdata/share_page.cjs prints.
type sharePageSummary struct {
	Landing struct {
		HTMLHasToken           bool
		Title, Expiry          string
		PasswordFocused        string
		WrongMessage           string
		ThrottledMessage       string
		DisabledWhileThrottled bool
		ReenabledAfterMs       int
		ReenabledMessage       string
	}
	Grid struct {
		Titles, SubfolderTitles, BackTitles []string
		Heading, SubfolderHeading, Crumbs   string
	}
	Media struct {
		Duration    float64
		Width       int
		Poster      bool
		Focused     string
		TileStarts  []float64
		TileSize    struct{ Width, Height int }
		ClickedTile float64
		AfterSeek   float64
		CurrentTile string
		Advanced    float64
		Title       string
		Field       string
		FieldLabel  string
		Message     string
	}
	Download struct{ URL, FileName string }
	Comments struct {
		Status                  int
		At, SeekedTo            float64
		ShownTime, Listed, Time string
		Author                  string
	}
	BackFromItem []string
	Reload       struct {
		PasswordForm int
		Titles       []string
	}
	Plain struct {
		PasswordInputs  int
		Title           string
		DownloadButtons int
		Fields          int
		LandingScroll   struct{ ScrollWidth, InnerWidth int }
		ItemScroll      struct{ ScrollWidth, InnerWidth int }
	}
	Narrow struct {
		Scroll         struct{ ScrollWidth, InnerWidth int }
		TabsToPassword int
		FocusVisible   bool
		NextFocus      string
	}
	Revoked struct {
		Heading string
		Forms   int
	}
	Unknown struct{ Heading, Body string }

	OffHost       []string
	CSPViolations []string `json:"cspViolations"`
	PageErrors    []string
	ConsoleErrors []struct{ Text, URL string }
	Answers       []struct {
		Method, Path string
		Status       int
	}
}

// The share page as an outsider uses it, in a real browser that can reach
// nothing but the server: a folder share with a password (a wrong one
// refused, the throttle waited out), its grid and a subfolder's, the
// processed video played and sought through its thumbnail strip, the
// chosen metadata shown, the proxy downloaded, a timed comment (once the
// server has them); a share without downloads at phone width; a revoked
// share and an unknown link said plainly.
func TestSharePageInChromium(t *testing.T) {
	mediatest.Need(t)
	chromium := webtest.Chromium(t)
	data := lavfiClip(t, "clip.mp4", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=10", "-f", "lavfi",
		"-i", "sine=duration=10", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	shared := folder(t, a, "Client review")
	sub := folder(t, a, "Selects", shared)
	a.CreateItem(t, map[string]any{"title": "Select 1", "itemType": "video", "folderParents": []string{sub}})
	const description = "Harbour at dusk, second grade"
	item := a.CreateItem(t, map[string]any{"title": "Harbour cut", "itemType": "video", "folderParents": []string{shared},
		"metadata": map[string]any{"formData": map[string]any{"default_description": description}}})
	withOriginal(t, api, a, item, "clip.mp4", data)
	if it := waitState(t, api, a, item, nil, "complete", "failed"); it["transcodingState"] != "complete" {
		t.Fatalf("processing: %v", it["progressInfo"])
	}

	const password = "open sesame"
	folderShare := createShare(t, a, map[string]any{"targetId": shared, "password": password,
		"message": "Notes welcome.\nThanks!",
		"options": map[string]any{"metadataFields": []string{"default_description"}, "downloadProxy": true}})
	plain := createShare(t, a, map[string]any{"targetId": item, "options": map[string]any{"downloadProxy": false}})
	revoked := createShare(t, a, map[string]any{"targetId": item})
	a.GraphQL(t, `mutation($id: ID!) { revokeShare(id: $id) { state } }`, map[string]any{"id": revoked.Share.ID}).OK(nil)
	unknown := "s_" + strings.Repeat("Q", 43)

	cfg, _ := json.Marshal(map[string]string{
		"folderToken": folderShare.Links[0].Token, "password": password, "itemTitle": "Harbour cut",
		"subfolderTitle": "Selects", "field": "default_description", "noDownloadToken": plain.Links[0].Token,
		"revokedToken": revoked.Links[0].Token, "unknownToken": unknown,
	})
	out := webtest.Node(t, 4*time.Minute, "testdata/share_page.cjs", nil, api.URL, chromium, string(cfg))
	var s sharePageSummary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("share_page.cjs printed no summary (%v):\n%s", err, out)
	}
	t.Logf("summary: %s", out)

	// Wholly self-contained, under its CSP, without script errors; the
	// only failed requests are those the scenario makes fail.
	if len(s.OffHost) > 0 {
		t.Errorf("the page asked for something beyond the server: %q", s.OffHost)
	}
	if len(s.CSPViolations) > 0 {
		t.Errorf("the page broke its Content-Security-Policy: %q", s.CSPViolations)
	}
	if len(s.PageErrors) > 0 {
		t.Errorf("script errors: %q", s.PageErrors)
	}
	for _, e := range s.ConsoleErrors {
		u, _ := url.Parse(e.URL)
		p := ""
		if u != nil {
			p = u.Path
		}
		expected := strings.Contains(e.Text, "Failed to load resource") &&
			(p == "/share/api/links/"+folderShare.Links[0].Token+"/open" && (strings.Contains(e.Text, " 401") || strings.Contains(e.Text, " 429")) ||
				p == "/share/api/links/"+unknown && strings.Contains(e.Text, " 404") ||
				strings.HasSuffix(p, "/comments") && s.Comments.Status == http.StatusNotFound && strings.Contains(e.Text, " 404"))
		if !expected {
			t.Errorf("console error: %s (%s)", e.Text, e.URL)
		}
	}

	// The landing: the link's title and expiry, the password form; a
	// wrong password's sentence; the right one at once is throttled, the
	// button waits, then opens.
	l := s.Landing
	if l.HTMLHasToken {
		t.Error("the served HTML names the token")
	}
	if l.Title != "Client review" || !strings.HasPrefix(l.Expiry, "Available until ") || l.PasswordFocused != "share-password" {
		t.Errorf("landing: title %q, expiry %q, focus on %q", l.Title, l.Expiry, l.PasswordFocused)
	}
	if l.WrongMessage != "Wrong password." {
		t.Errorf("a wrong password shows %q", l.WrongMessage)
	}
	if !strings.HasPrefix(l.ThrottledMessage, "Too many wrong passwords") || !l.DisabledWhileThrottled ||
		l.ReenabledAfterMs < 500 || l.ReenabledAfterMs > 8000 || l.ReenabledMessage != "You can try the password again now." {
		t.Errorf("throttled: %q, button disabled %v, enabled again after %d ms (%q)", l.ThrottledMessage,
			l.DisabledWhileThrottled, l.ReenabledAfterMs, l.ReenabledMessage)
	}

	g := s.Grid
	if !slices.Equal(sortedTitles(g.Titles), []string{"Harbour cut", "Selects"}) || g.Heading != "In this folder" {
		t.Errorf("the folder's grid: %q under %q", g.Titles, g.Heading)
	}
	if !slices.Equal(g.SubfolderTitles, []string{"Select 1"}) || g.SubfolderHeading != "Selects" ||
		!strings.Contains(g.Crumbs, "Client review") || !strings.Contains(g.Crumbs, "Selects") {
		t.Errorf("the subfolder: %q under %q, crumbs %q", g.SubfolderTitles, g.SubfolderHeading, g.Crumbs)
	}
	if !slices.Equal(sortedTitles(g.BackTitles), []string{"Harbour cut", "Selects"}) {
		t.Errorf("back from the subfolder: %q", g.BackTitles)
	}

	// The player: the proxy loaded with its poster; the strip's tiles are
	// the map's cues (one per 2 s keyframe); a click on one seeks there;
	// playing moves on.
	m := s.Media
	if m.Title != "Harbour cut" || math.Abs(m.Duration-10) > 0.5 || m.Width != 1280 || !m.Poster || m.Focused != "view-title" {
		t.Errorf("player: %q, duration %.2f, width %d, poster %v, focus on %q", m.Title, m.Duration, m.Width, m.Poster, m.Focused)
	}
	if !slices.Equal(m.TileStarts, []float64{0, 2, 4, 6, 8}) || m.TileSize.Width != 112 || m.TileSize.Height != 63 {
		t.Errorf("strip: tiles at %v, %+v", m.TileStarts, m.TileSize)
	}
	if m.ClickedTile != 4 || math.Abs(m.AfterSeek-m.ClickedTile) > 1 || m.CurrentTile != "4" {
		t.Errorf("a click on the tile at %.1f s seeked to %.2f (current tile %q)", m.ClickedTile, m.AfterSeek, m.CurrentTile)
	}
	if m.Advanced < 0.3 {
		t.Errorf("playing moved %.2f s in 1.5 s", m.Advanced)
	}
	if m.Field != description || m.FieldLabel != "Default description" || m.Message != "Notes welcome.\nThanks!" {
		t.Errorf("metadata %q = %q, message %q", m.FieldLabel, m.Field, m.Message)
	}

	d := s.Download
	if !strings.Contains(d.URL, "/blobs/") || !strings.HasPrefix(d.URL, api.URL) || d.FileName != "Harbour cut (proxy).mp4" {
		t.Errorf("download: %q as %q", d.URL, d.FileName)
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE action_type = 'shareDownload' AND executed_by = $1`,
		folderShare.Share.ID); n != 1 {
		t.Errorf("%d downloads audited, want 1", n)
	}

	switch c := s.Comments; c.Status {
	case http.StatusNotFound:
		t.Log("the share comments endpoint answers 404: the comments part is skipped")
	case http.StatusOK:
		if math.Abs(c.At-6) > 1 || c.ShownTime != "00:06" {
			t.Errorf("the comment form at %.2f shows %q", c.At, c.ShownTime)
		}
		if c.Listed != "Cut here, please" || c.Author != "Dana" || c.Time != "00:06" {
			t.Errorf("the comment listed: %q by %q at %q", c.Listed, c.Author, c.Time)
		}
		if math.Abs(c.SeekedTo-c.At) > 0.5 {
			t.Errorf("clicking the comment seeked to %.2f, want %.2f", c.SeekedTo, c.At)
		}
	default:
		t.Errorf("GET comments answered %d", c.Status)
	}

	if !slices.Equal(sortedTitles(s.BackFromItem), []string{"Harbour cut", "Selects"}) {
		t.Errorf("back from the item: %q", s.BackFromItem)
	}
	// A reload reuses the session: no password asked, no use counted.
	if s.Reload.PasswordForm != 0 || len(s.Reload.Titles) != 2 {
		t.Errorf("after a reload: %d password forms, grid %q", s.Reload.PasswordForm, s.Reload.Titles)
	}
	if n := api.Count(t, `SELECT uses FROM shares WHERE id = $1`, folderShare.Share.ID); n != 1 {
		t.Errorf("the folder share counted %d uses, want 1 (one open; the reload reused it)", n)
	}

	// Without a password nor downloads, at phone width.
	p := s.Plain
	if p.PasswordInputs != 0 || p.Title != "Harbour cut" || p.DownloadButtons != 0 || p.Fields != 0 {
		t.Errorf("the plain share: %d password inputs, %q, %d download buttons, %d fields", p.PasswordInputs, p.Title,
			p.DownloadButtons, p.Fields)
	}
	for what, sc := range map[string]struct{ ScrollWidth, InnerWidth int }{"landing": p.LandingScroll, "item": p.ItemScroll,
		"password form": s.Narrow.Scroll} {
		if sc.InnerWidth != 390 || sc.ScrollWidth > sc.InnerWidth {
			t.Errorf("at phone width, the %s is %d px wide in %d", what, sc.ScrollWidth, sc.InnerWidth)
		}
	}
	if n := s.Narrow; n.TabsToPassword < 1 || n.TabsToPassword > 3 || !n.FocusVisible || n.NextFocus != "open-button" {
		t.Errorf("keyboard: %d tabs to the password (focus visible %v), then %q", n.TabsToPassword, n.FocusVisible, n.NextFocus)
	}

	if s.Revoked.Heading != "This share was revoked by the person who made it." || s.Revoked.Forms != 0 {
		t.Errorf("revoked: %q, %d forms", s.Revoked.Heading, s.Revoked.Forms)
	}
	if s.Unknown.Heading != "This share link does not exist." || strings.Contains(s.Unknown.Body, "{") ||
		strings.Contains(s.Unknown.Body, "statusCode") {
		t.Errorf("unknown link: %q", s.Unknown.Body)
	}
}

func sortedTitles(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// shareUploadSummary is what testdata/share_page.cjs prints for an upload
// share.
type shareUploadSummary struct {
	Upload struct {
		LandingTitle, OpenLabel, Intro  string
		Title, Message, Expiry, Heading string
		ChooseLabel                     string
		InputMultiple, ChooserMultiple  bool
		Grids, TabsToChoose             int
		FocusVisible                    bool
		HighlightedOnDrag               bool
		HighlightedAfterDrop            bool
		EmptyScroll, ListedScroll       struct{ ScrollWidth, InnerWidth int }
		DoneScroll                      struct{ ScrollWidth, InnerWidth int }
		Live                            string
		Files                           []struct {
			Name, State, Status, Percent, ProgressLabel string
			Progress, Max                               float64
			Statuses                                    []string
		}
		Tus []struct {
			Method, Path, Cut, Failure string
			Body                       struct {
				FileName string
				Size     int64
				FileType string
				FolderID *string
			}
			Answer struct {
				UploadID, UploadURL, ItemID string
				Size                        int64
			}
			Offset, Length, AnsweredOffset, ServerOffset int64
			Status, ServerStatus                         int
		}
	}
	OffHost       []string
	CSPViolations []string `json:"cspViolations"`
	PageErrors    []string
	ConsoleErrors []struct{ Text, URL string }
	Answers       []struct {
		Method, Path string
		Status       int
	}
}

// An upload share of a folder as a client uses it, at phone width: the
// link opened, two files chosen with the keyboard alone (the browser's
// file chooser) and a third dropped on the zone, sent one after another
// in chunks; the first file's first two chunks fail (one whose answer is
// lost after the server stored it, one that never left) and the page
// resumes from the offset the server answers. Then, through the API:
// each file is an item of the folder, of the share's creator, with the
// file's bytes; the clip processes to its 50 frames; each upload is
// audited.
func TestSharePageUploadInChromium(t *testing.T) {
	mediatest.Need(t)
	chromium := webtest.Chromium(t)
	// 2 s at 25 fps of noise, kept losslessly: some 8 MB, more than one of
	// the page's 5 MiB chunks.
	clip := lavfiClip(t, "drop.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
		"-vf", "noise=alls=100:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p")
	const chunk = 5 << 20
	if len(clip) <= chunk {
		t.Fatalf("the clip is %d bytes: not more than a chunk", len(clip))
	}
	tone := lavfiClip(t, "tone.wav", "-f", "lavfi", "-i", "sine=frequency=440:duration=1")
	dir := t.TempDir()
	clipPath, tonePath := filepath.Join(dir, "Harbour take 3.mp4"), filepath.Join(dir, "tone.wav")
	for p, b := range map[string][]byte{clipPath: clip, tonePath: tone} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const dropName, dropText = "notes.txt", "Take 3 is the one: the light is right from 0:01.\n"

	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	ed := a.User(t, "ed@a.test", []string{"editors"}, false)
	drop := folder(t, a, "Client drop")
	const message = "Send the rushes here."
	made := createShare(t, ed, map[string]any{"targetId": drop, "access": "upload", "title": "Rushes for Ed",
		"message": message})

	cfg, _ := json.Marshal(map[string]any{"uploadToken": made.Links[0].Token, "files": []string{clipPath, tonePath},
		"dropName": dropName, "dropText": dropText})
	out := webtest.Node(t, 4*time.Minute, "testdata/share_page.cjs", nil, api.URL, chromium, string(cfg))
	var s shareUploadSummary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("share_page.cjs printed no summary (%v):\n%s", err, out)
	}
	t.Logf("summary: %s", out)
	u := s.Upload

	if len(s.OffHost) > 0 || len(s.CSPViolations) > 0 || len(s.PageErrors) > 0 {
		t.Errorf("off host %q, CSP violations %q, script errors %q", s.OffHost, s.CSPViolations, s.PageErrors)
	}
	// The only console errors are the two chunks the scenario cut.
	cut := 0
	for _, e := range s.ConsoleErrors {
		if strings.Contains(e.Text, "net::ERR_CONNECTION_RESET") || strings.Contains(e.Text, "net::ERR_CONNECTION_FAILED") {
			cut++
			continue
		}
		t.Errorf("console error: %s (%s)", e.Text, e.URL)
	}
	if cut > 2 {
		t.Errorf("%d cut requests in the console, want at most 2", cut)
	}
	// The session of an upload share reads nothing of the folder: the page
	// asks for nothing but the link, the open, the session and uploads.
	for _, ans := range s.Answers {
		if !strings.HasPrefix(ans.Path, "/share/api/links/") && ans.Path != "/share/api/session" &&
			!strings.HasPrefix(ans.Path, "/share/api/uploads") {
			t.Errorf("the upload page asked %s %s (%d)", ans.Method, ans.Path, ans.Status)
		}
		if ans.Status >= 400 {
			t.Errorf("%s %s answered %d", ans.Method, ans.Path, ans.Status)
		}
	}

	// The landing and the open share: the title, message and expiry, the
	// drop zone, nothing of what is there.
	if u.LandingTitle != "Rushes for Ed" || u.OpenLabel != "Open to send files" || u.Intro == "" {
		t.Errorf("landing: %q, button %q, intro %q", u.LandingTitle, u.OpenLabel, u.Intro)
	}
	if u.Title != "Rushes for Ed" || u.Message != message || !strings.HasPrefix(u.Expiry, "Available until ") ||
		u.Heading != "Send files" || u.Grids != 0 {
		t.Errorf("the open share: %q, %q, %q, %q, %d grid elements", u.Title, u.Message, u.Expiry, u.Heading, u.Grids)
	}
	// The keyboard: Tab from the top reaches the file input (the control
	// its "Choose files" label shows), its focus visible; Space opens the
	// browser's chooser, which takes several files.
	if u.ChooseLabel != "Choose files" || !u.InputMultiple || u.TabsToChoose < 1 || u.TabsToChoose > 3 ||
		!u.FocusVisible || !u.ChooserMultiple {
		t.Errorf("keyboard: label %q, multiple %v/%v, %d tabs, focus visible %v", u.ChooseLabel, u.InputMultiple,
			u.ChooserMultiple, u.TabsToChoose, u.FocusVisible)
	}
	if !u.HighlightedOnDrag || u.HighlightedAfterDrop {
		t.Errorf("the zone under a drag: highlighted %v, after the drop %v", u.HighlightedOnDrag, u.HighlightedAfterDrop)
	}
	for what, sc := range map[string]struct{ ScrollWidth, InnerWidth int }{"empty zone": u.EmptyScroll,
		"list of files": u.ListedScroll, "uploaded files": u.DoneScroll} {
		if sc.InnerWidth != 390 || sc.ScrollWidth > sc.InnerWidth {
			t.Errorf("at phone width, the %s is %d px wide in %d", what, sc.ScrollWidth, sc.InnerWidth)
		}
	}

	// Each file: uploaded, its bar full, labelled with its name.
	names := []string{"Harbour take 3.mp4", "tone.wav", dropName}
	sizes := map[string]int64{names[0]: int64(len(clip)), names[1]: int64(len(tone)), names[2]: int64(len(dropText))}
	if len(u.Files) != 3 {
		t.Fatalf("the page lists %d files, want 3", len(u.Files))
	}
	for i, f := range u.Files {
		if f.Name != names[i] || f.State != "done" || f.Status != "Uploaded" || f.Progress != 100 || f.Max != 100 ||
			f.Percent != "100%" || f.ProgressLabel != "Upload of "+names[i] {
			t.Errorf("file %d: %+v", i, f)
		}
	}
	if !strings.Contains(u.Live, "All 3 files were uploaded") {
		t.Errorf("last announcement %q", u.Live)
	}

	// The requests: one start per file, in turn (the next file starts when
	// the one before is sent); the first file's chunks from 0, cut twice,
	// resumed from the offset a HEAD answers each time.
	type start struct {
		at     int
		itemID string
	}
	starts := map[string]start{}
	var clipPatches []string
	lastPatchOf := map[string]int{}
	for i, r := range u.Tus {
		switch r.Method {
		case http.MethodPost:
			if r.Status != http.StatusOK || r.Answer.ItemID == "" || r.Answer.Size != sizes[r.Body.FileName] ||
				r.Body.Size != sizes[r.Body.FileName] || r.Body.FolderID != nil {
				t.Errorf("start of %q: %d %+v %+v", r.Body.FileName, r.Status, r.Body, r.Answer)
			}
			starts[r.Body.FileName] = start{i, r.Answer.ItemID}
		case http.MethodPatch, http.MethodHead:
			for name, st := range starts {
				if r.Path == "/share/api/uploads/"+u.Tus[st.at].Answer.UploadID {
					lastPatchOf[name] = i
					if name != names[0] {
						continue
					}
					// what went, from where, and the offset the server
					// answered (to the page, or — the answer lost — to
					// no one)
					got := fmt.Sprintf("%s %d → %d", r.Method, r.Offset, r.AnsweredOffset)
					switch r.Cut {
					case "answer lost":
						got = fmt.Sprintf("%s %d → %d, lost", r.Method, r.Offset, r.ServerOffset)
					case "never sent":
						got = fmt.Sprintf("%s %d, never sent", r.Method, r.Offset)
					}
					clipPatches = append(clipPatches, got)
				}
			}
		}
	}
	for i := 1; i < len(names); i++ {
		if starts[names[i]].at <= lastPatchOf[names[i-1]] {
			t.Errorf("%s started (request %d) before %s was sent (request %d)", names[i], starts[names[i]].at,
				names[i-1], lastPatchOf[names[i-1]])
		}
	}
	wantClip := []string{
		fmt.Sprintf("PATCH 0 → %d, lost", chunk),       // stored, its answer lost
		fmt.Sprintf("HEAD 0 → %d", chunk),              // where the server stands
		fmt.Sprintf("PATCH %d, never sent", chunk),     // cut before it left
		fmt.Sprintf("HEAD 0 → %d", chunk),              // still there
		fmt.Sprintf("PATCH %d → %d", chunk, len(clip)), // the rest
	}
	if !slices.Equal(clipPatches, wantClip) {
		t.Errorf("the clip's tus requests:\n got %q\nwant %q", clipPatches, wantClip)
	}
	resumed := 0
	for _, st := range u.Files[0].Statuses {
		if strings.HasPrefix(st, "retrying: ") && strings.Contains(st, "Resuming in ") {
			resumed++
		}
	}
	if resumed != 2 {
		t.Errorf("the page said it resumes %d times, want 2: %q", resumed, u.Files[0].Statuses)
	}

	// Through the API: the folder holds the three, each the creator's, with
	// the file's size; the clip's original is the file, byte for byte.
	var content contentPage
	a.Get(t, "/api/v1/folders/"+drop+"/content").Status(http.StatusOK).JSON(&content)
	inFolder := map[string]string{}
	for _, h := range content.Hits {
		inFolder[h.Name] = h.ID
	}
	if content.Total != 3 || len(inFolder) != 3 {
		t.Errorf("the folder holds %d: %v", content.Total, inFolder)
	}
	for _, name := range names {
		id := inFolder[name]
		if id == "" || id != starts[name].itemID {
			t.Errorf("%s: item %q in the folder, %q started", name, id, starts[name].itemID)
			continue
		}
		it := a.Get(t, "/api/v1/items/"+id).Status(http.StatusOK).Object()
		if it["mediaSize"] != float64(sizes[name]) || fmt.Sprint(it["folderParents"]) != "["+drop+"]" {
			t.Errorf("%s: mediaSize %v (want %d), in %v", name, it["mediaSize"], sizes[name], it["folderParents"])
		}
		if n := api.Count(t, `SELECT count(*) FROM items WHERE id = $1 AND created_by = $2`, id, ed.UserID); n != 1 {
			t.Errorf("%s is not the share creator's", name)
		}
	}
	clipID := inFolder[names[0]]
	it := waitState(t, api, a, clipID, nil, "complete", "failed")
	if it["transcodingState"] != "complete" || it["frameCount"] != 50.0 || it["mediaSize"] != float64(len(clip)) {
		t.Errorf("the clip processed: %v, %v frames, %v bytes (%v)", it["transcodingState"], it["frameCount"],
			it["mediaSize"], it["progressInfo"])
	}
	var orig originalDownload
	a.Get(t, "/api/v1/items/"+clipID+"/original").Status(http.StatusOK).JSON(&orig)
	if orig.Size != int64(len(clip)) || orig.SHA256 != sha256Hex(clip) {
		t.Errorf("the clip's original: %d bytes, sha256 %s; the file: %d, %s", orig.Size, orig.SHA256, len(clip), sha256Hex(clip))
	}
	if resp, body := fetch(t, orig.DownloadURL); resp.StatusCode != http.StatusOK || !bytes.Equal(body, clip) {
		t.Errorf("the clip's original link: %d, %d bytes, not the file's %d", resp.StatusCode, len(body), len(clip))
	}
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE action_type = 'shareUpload' AND executed_by = $1`,
		made.Share.ID); n != 3 {
		t.Errorf("%d shareUpload records, want 3", n)
	}
	t.Logf("clip %d bytes in %d chunks, resumed twice; item %s: %v, %v frames, mediaSize %v", len(clip),
		(len(clip)+chunk-1)/chunk, clipID, it["transcodingState"], it["frameCount"], it["mediaSize"])
}
