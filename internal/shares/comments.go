package shares

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/platform/envelope"
	"github.com/loupe-mam/loupe/store"
)

// Outsiders' comments (docs/shares.md): read and written on an item within
// a share whose options allow comments. An outsider sees no account's
// email: the team's comments are signed "Team", outsiders' with the name
// they gave (or their link's recipient).

// maxGuestName bounds the name an outsider signs with.
const maxGuestName = 100

// commentView is a comment as an outsider sees it.
type commentView struct {
	ID           string    `json:"id"`
	Text         string    `json:"text"`
	AuthorName   string    `json:"authorName"`
	FromOutsider bool      `json:"fromOutsider"`
	StartSecond  *float64  `json:"startSecond"`
	CreatedOn    time.Time `json:"createdOn"`
}

func viewOfComment(c *store.Comment) commentView {
	v := commentView{ID: c.ID, Text: c.Text, AuthorName: "Team", CreatedOn: c.CreatedOn}
	if c.AuthorType == "share" {
		v.FromOutsider, v.AuthorName = true, "Guest"
		if c.AuthorName != nil {
			v.AuthorName = *c.AuthorName
		}
	}
	if ctx := c.Context(); ctx != nil {
		s := ctx.StartSecond.Approximate
		v.StartSecond = &s
	}
	return v
}

// commentable is the item of the request when the share allows comments.
func (h *Handler) commentable(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) *store.Item {
	err := browsable(g)
	var it *store.Item
	if err == nil {
		it, err = h.Service.Item(r.Context(), g, chi.URLParam(r, "itemId"))
	}
	if err == nil && !g.Settings().Comments {
		err = loupe.Forbidden("This share does not allow comments.")
	}
	if err != nil {
		h.fail(w, r, err)
		return nil
	}
	return it
}

// comments is a page of the item's comments, oldest first
// (?nextToken= continues).
func (h *Handler) comments(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	it := h.commentable(w, r, g)
	if it == nil {
		return
	}
	list, more, err := h.Service.Store.Comments(r.Context(), g.TenantID, store.CommentQuery{ItemID: it.ID,
		After: r.URL.Query().Get("nextToken"), First: store.MaxCommentPage})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	views := make([]commentView, 0, len(list))
	for _, c := range list {
		if c.DeletedOn == nil {
			views = append(views, viewOfComment(c))
		}
	}
	next := ""
	if more && len(list) > 0 {
		next = list[len(list)-1].ID
	}
	envelope.WriteJSON(w, http.StatusOK, map[string]any{"comments": views, "nextToken": next})
}

// comment writes an outsider's comment: {text, startSecond?, name?}; a
// timed one is anchored at startSecond (the player's time).
func (h *Handler) comment(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	var body struct {
		Text        string   `json:"text"`
		StartSecond *float64 `json:"startSecond"`
		Name        *string  `json:"name"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		h.fail(w, r, loupe.Invalid("the body must be {\"text\": \"…\", \"startSecond\": 12.5, \"name\": \"…\"}"))
		return
	}
	name := g.Recipient
	if body.Name != nil && strings.TrimSpace(*body.Name) != "" { // "": no name given
		n := strings.TrimSpace(*body.Name)
		if utf8.RuneCountInString(n) > maxGuestName || !utf8.ValidString(n) || strings.ContainsRune(n, 0) {
			h.fail(w, r, loupe.Invalid("name must be 1 to %d characters", maxGuestName))
			return
		}
		name = &n
	}
	it := h.commentable(w, r, g)
	if it == nil {
		return
	}
	in := &loupe.CreateCommentInput{ItemID: it.ID, Text: body.Text}
	if body.StartSecond != nil {
		at := loupe.ApproximateSecondInput{Approximate: *body.StartSecond}
		in.Context = &loupe.CommentContextInput{StartSecond: at, EndSecond: at}
	}
	c, err := h.Service.Store.CreateShareComment(r.Context(), g, in, name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, viewOfComment(c))
}
