package shares

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/platform/envelope"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// PathPrefix is the outsider's side: its own prefix, its own principal
// (a share session), nothing of the API's.
const PathPrefix = "/share"

// CookieName is the session's cookie (the page's); a client may send the
// secret as "Authorization: Share <secret>" instead.
const CookieName = "loupe_share"

// Handler serves the outsider's API under PathPrefix.
type Handler struct {
	Service *Service
	Blobs   *blob.Signer
	Log     *slog.Logger
	// StatusOf maps an error kind to its status (the one table,
	// graph.StatusOf).
	StatusOf func(kind string) int
	// Uploads takes upload shares' files (nil: without a file store, no
	// share takes uploads).
	Uploads Uploader
	// Originals signs links to originals wherever they lie (nil: no
	// original downloads).
	Originals Originals
}

// Originals signs download links to originals (sources.Sources).
type Originals interface {
	OriginalDownload(ctx context.Context, signer *blob.Signer, tenantID, location, storageID, fileName string,
		now time.Time, ttl time.Duration) (string, string, error)
}

// Routes mounts the outsider's API on r (under PathPrefix).
func (h *Handler) Routes(r chi.Router) {
	r.Get(PathPrefix+"/api/links/{token}", h.link)
	r.Head(PathPrefix+"/api/links/{token}", h.link)
	r.Post(PathPrefix+"/api/links/{token}/open", h.open)
	r.Get(PathPrefix+"/api/session", h.withSession(h.root))
	r.Get(PathPrefix+"/api/items/{itemId}", h.withSession(h.item))
	r.Get(PathPrefix+"/api/folders/{folderId}/content", h.withSession(h.content))
	r.Post(PathPrefix+"/api/items/{itemId}/downloads", h.withSession(h.download))
	r.Get(PathPrefix+"/api/items/{itemId}/comments", h.withSession(h.comments))
	r.Post(PathPrefix+"/api/items/{itemId}/comments", h.withSession(h.comment))
	r.Post(PathPrefix+"/api/uploads", h.withSession(h.startUpload))
	// The page (page.go): one document for every link, its assets.
	r.Get(PathPrefix+"/assets/*", h.asset)
	r.Get(PathPrefix+"/{token}", h.page)
}

// linkView is a link before it is opened.
type linkView struct {
	Title            string           `json:"title"`
	Message          string           `json:"message"`
	Access           string           `json:"access"`
	TargetType       string           `json:"targetType"`
	State            loupe.ShareState `json:"state"`
	PasswordRequired bool             `json:"passwordRequired"`
	ExpiresOn        time.Time        `json:"expiresOn"`
	Recipient        *string          `json:"recipient,omitempty"`
	// StateMessage says, for a person, why a link no longer opens.
	StateMessage string `json:"stateMessage,omitempty"`
}

func viewOf(g *store.ShareGrant) linkView {
	v := linkView{Title: g.Title, Message: g.Message, Access: g.Access, TargetType: g.TargetType,
		State: g.State(time.Now()), PasswordRequired: g.HasPassword, ExpiresOn: g.ExpiresOn, Recipient: g.Recipient}
	if v.State != loupe.ShareActive {
		v.StateMessage = (&Closed{State: v.State}).Error()
	}
	return v
}

// browsable refuses an upload share's reads: it takes files, and shows
// nothing of what is already there (a drop box, not a window).
func browsable(g *store.ShareGrant) error {
	if g.Access != loupe.ShareView {
		return loupe.Forbidden("This share takes uploads; it shows nothing of what is there.")
	}
	return nil
}

// link answers what a link is. A GET, a HEAD (net/http drops its body)
// and a scanner's preview count no use.
func (h *Handler) link(w http.ResponseWriter, r *http.Request) {
	g, err := h.Service.Link(r.Context(), chi.URLParam(r, "token"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, viewOf(g))
}

// open is the explicit open: {password} in the body, never in the URL.
func (h *Handler) open(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Password string `json:"password"`
	}
	if r.ContentLength != 0 {
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			h.fail(w, r, loupe.Invalid("the body must be {\"password\": \"…\"}"))
			return
		}
	}
	g, secret, err := h.Service.Open(r.Context(), chi.URLParam(r, "token"), body.Password, address(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: secret, Path: PathPrefix, Expires: *g.SessionExpiresOn,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Cache-Control", "no-store")
	envelope.WriteJSON(w, http.StatusOK, map[string]any{"session": secret, "expiresOn": g.SessionExpiresOn,
		"share": viewOf(g)})
}

type sessionHandler func(w http.ResponseWriter, r *http.Request, g *store.ShareGrant)

// withSession admits a request with a live session of an open share.
func (h *Handler) withSession(next sessionHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Share ")
		if !ok {
			if c, err := r.Cookie(CookieName); err == nil {
				secret = c.Value
			}
		}
		g, err := h.Service.Session(r.Context(), secret)
		if err != nil {
			if loupe.ErrorKind(err) == loupe.ENOTFOUND {
				err = &loupe.Error{Kind: loupe.EUNAUTHORIZED, Message: "Open the share's link first (no session, or it ended)."}
			}
			h.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		next(w, r, g)
	}
}

// itemView is an item as an outsider sees it: what the share's options
// allow, with links that last as long as the session.
type itemView struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	ItemType     string         `json:"itemType"`
	State        string         `json:"state,omitempty"`
	Thumbnail    *string        `json:"thumbnail"`
	Proxy        *string        `json:"proxy"`
	ProxyType    *string        `json:"proxyType"`
	Strip        *string        `json:"strip"`
	Waveform     *string        `json:"waveform"`
	Metadata     map[string]any `json:"metadata"`
	CreatedOn    time.Time      `json:"createdOn"`
	CanDownload  []string       `json:"canDownload"`
	CanComment   bool           `json:"canComment"`
	CanUploadTo  bool           `json:"canUpload"`
	IsShareRoot  bool           `json:"isShareRoot"`
	MediaCreated *time.Time     `json:"mediaCreatedOn,omitempty"`
}

// linkTTL is how long a link handed to g's session lasts: as long as the
// session (a minute at least).
func linkTTL(g *store.ShareGrant) time.Duration {
	return max(time.Until(*g.SessionExpiresOn), time.Minute)
}

func (h *Handler) view(g *store.ShareGrant, it *store.Item) itemView {
	if browsable(g) != nil { // an upload share: where files go, nothing of what is there
		return itemView{ID: it.ID, Title: it.Title, ItemType: it.ItemType, Metadata: map[string]any{},
			CreatedOn: it.CreatedOn, CanDownload: []string{}, IsShareRoot: it.ID == g.TargetID,
			CanUploadTo: it.ItemType == "folder" || g.Settings().Versions}
	}
	o, ttl := g.Settings(), linkTTL(g)
	link := func(name string) *string {
		k := it.Generated.File(name)
		if k == "" || h.Blobs == nil {
			return nil
		}
		u := h.Blobs.URL("GET", k, time.Now(), ttl)
		return &u
	}
	v := itemView{ID: it.ID, Title: it.Title, ItemType: it.ItemType, State: it.TranscodingState,
		Thumbnail: link(pipeline.OutPoster), Proxy: link(pipeline.OutProxy), Waveform: link(pipeline.OutWaveformImage),
		Metadata: map[string]any{}, CreatedOn: it.CreatedOn, CanDownload: []string{},
		CanComment: o.Comments && it.ItemType != "folder", IsShareRoot: it.ID == g.TargetID,
		MediaCreated: it.MediaCreatedOn}
	if v.Proxy != nil {
		t := it.ItemType
		v.ProxyType = &t
	}
	if k := it.Generated.File(pipeline.OutStrip); k != "" && h.Blobs != nil {
		dir, name := path.Split(k)
		u := h.Blobs.DirURL(dir, name, time.Now(), ttl)
		v.Strip = &u
	}
	if o.DownloadProxy && v.Proxy != nil {
		v.CanDownload = append(v.CanDownload, "proxy")
	}
	if o.DownloadOriginal && it.SourceFileLocation != nil && *it.SourceFileLocation != "" && h.Originals != nil {
		v.CanDownload = append(v.CanDownload, "original")
	}
	var form map[string]any
	if len(o.MetadataFields) > 0 && json.Unmarshal(it.MetadataFormData, &form) == nil {
		for _, f := range o.MetadataFields {
			if val, ok := form[f]; ok {
				v.Metadata[f] = val
			}
		}
	}
	return v
}

// root answers the share and its root.
func (h *Handler) root(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	it, err := h.Service.Item(r.Context(), g, g.TargetID)
	if err != nil {
		if loupe.ErrorKind(err) == loupe.ENOTFOUND { // gone, or its creator lost it
			err = &Closed{State: Unavailable}
		}
		h.fail(w, r, err)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, map[string]any{"share": viewOf(g), "root": h.view(g, it),
		"sessionExpiresOn": g.SessionExpiresOn})
}

func (h *Handler) item(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	if err := browsable(g); err != nil {
		h.fail(w, r, err)
		return
	}
	it, err := h.Service.Item(r.Context(), g, chi.URLParam(r, "itemId"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, h.view(g, it))
}

// maxContentPage bounds a page of a shared folder's content.
const maxContentPage = 100

// content is a page of a folder within the share: its children, which are
// within it too.
func (h *Handler) content(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	ctx := r.Context()
	if err := browsable(g); err != nil {
		h.fail(w, r, err)
		return
	}
	folder, err := h.Service.Item(ctx, g, chi.URLParam(r, "folderId"))
	if err == nil && folder.ItemType != "folder" {
		err = loupe.NotFound()
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	q := store.ContentQuery{Size: 50}
	if s := r.URL.Query().Get("size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxContentPage {
			h.fail(w, r, loupe.Invalid("size must be between 1 and %d", maxContentPage))
			return
		}
		q.Size = n
	}
	if t := r.URL.Query().Get("nextToken"); t != "" {
		c, err := store.ParseContentCursor(t)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		q.After = c
	}
	creator := g.Creator()
	entries, _, next, err := h.Service.Store.FolderContent(ctx, creator, folder.ID, q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	items, err := h.Service.Store.ItemsByIDs(ctx, creator, ids)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	views := make([]itemView, 0, len(entries))
	for _, id := range ids {
		if it := items[id]; it != nil && it.DeletedOn == nil {
			views = append(views, h.view(g, it))
		}
	}
	token := ""
	if next != nil {
		token = next.Token()
	}
	envelope.WriteJSON(w, http.StatusOK, map[string]any{"items": views, "nextToken": token})
}

// download answers a link to download a file of an item ({"file":
// "proxy"} or "original"), when the share allows it; each is audited.
func (h *Handler) download(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	var body struct {
		File string `json:"file"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || (body.File != "proxy" && body.File != "original") {
		h.fail(w, r, loupe.Invalid("the body must be {\"file\": \"proxy\"} or {\"file\": \"original\"}"))
		return
	}
	ctx := r.Context()
	if err := browsable(g); err != nil {
		h.fail(w, r, err)
		return
	}
	it, err := h.Service.Item(ctx, g, chi.URLParam(r, "itemId"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	now, ttl := time.Now(), linkTTL(g)
	var url, name string
	if body.File == "proxy" {
		url, name, err = h.proxyDownload(g, it, now, ttl)
	} else {
		url, name, err = h.originalDownload(ctx, g, it, now, ttl)
	}
	if err == nil {
		err = h.Service.Store.AuditShare(ctx, g, it.ID, it.Title, loupe.ActionShareDownload,
			map[string]any{"file": body.File, "address": address(r)})
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, map[string]any{"url": url, "fileName": name})
}

func (h *Handler) proxyDownload(g *store.ShareGrant, it *store.Item, now time.Time, ttl time.Duration) (string, string, error) {
	if !g.Settings().DownloadProxy {
		return "", "", loupe.Forbidden("This share does not allow downloads of the proxy.")
	}
	key := it.Generated.File(pipeline.OutProxy)
	if key == "" || h.Blobs == nil {
		return "", "", &loupe.Error{Kind: loupe.ENOTFOUND, Message: "The item has no proxy (yet)."}
	}
	name := strings.TrimSuffix(it.Title, path.Ext(it.Title)) + " (proxy)" + path.Ext(key)
	return h.Blobs.DownloadURL(key, name, now, ttl), name, nil
}

// originalDownload needs the share's option and, as in the API, its
// creator's right to change the item now: a share never reaches further.
func (h *Handler) originalDownload(ctx context.Context, g *store.ShareGrant, it *store.Item, now time.Time,
	ttl time.Duration) (string, string, error) {
	if !g.Settings().DownloadOriginal {
		return "", "", loupe.Forbidden("This share does not allow downloads of the original.")
	}
	access, err := h.Service.Store.AccessOf(ctx, g.Creator(), []string{it.ID})
	if err != nil {
		return "", "", err
	}
	if !access[it.ID].Updatable {
		return "", "", loupe.Forbidden("This share no longer allows downloads of the original.")
	}
	location := ""
	if it.SourceFileLocation != nil {
		location = *it.SourceFileLocation
	}
	if location == "" || it.ItemType == "folder" || h.Originals == nil {
		return "", "", &loupe.Error{Kind: loupe.ENOTFOUND, Message: "The item has no original file."}
	}
	storageID := ""
	if it.IngestSourceStorageID != nil {
		storageID = *it.IngestSourceStorageID
	}
	return h.Originals.OriginalDownload(ctx, h.Blobs, g.TenantID, location, storageID, it.OriginalFileName, now, ttl)
}

// fail answers err in the envelope of spec section 7: a share that no
// longer opens is 410 with its state, a throttled password 429.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var c *Closed
	var t *Throttled
	switch {
	case errors.As(err, &c):
		envelope.WriteJSON(w, http.StatusGone, envelope.Body{Error: envelope.Error{StatusCode: http.StatusGone,
			Message: c.Error(), Payload: map[string]any{"state": c.State}}})
		return
	case errors.As(err, &t):
		w.Header().Set("Retry-After", strconv.Itoa(t.Seconds()))
		envelope.WriteJSON(w, http.StatusTooManyRequests, envelope.Body{Error: envelope.Error{
			StatusCode: http.StatusTooManyRequests, Message: t.Error()}})
		return
	}
	status, msg := http.StatusInternalServerError, envelope.MsgInternal
	var le *loupe.Error
	if errors.As(err, &le) {
		status, msg = h.StatusOf(le.Kind), le.Message
	}
	if status >= 500 {
		h.Log.Error("share request failed", "path", Redact(r.URL.Path), "err", err)
		msg = envelope.MsgInternal
	}
	envelope.WriteJSON(w, status, envelope.Body{Error: envelope.Error{StatusCode: status, Message: msg}})
}

// address is the client's address (the connection's; a proxy in front
// should pass the client's own, docs/shares.md).
func address(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
