package shares

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/envelope"
	"github.com/loupe-mam/loupe/internal/storage/upload"
	"github.com/loupe-mam/loupe/store"
)

// Uploads through upload shares (docs/shares.md): the outsider starts one
// with a JSON POST, then sends the bytes by tus (HEAD for the offset,
// PATCH from it: resumable) to /share/api/uploads/{id}. The upload is made
// by the share's creator's authority — into a folder within the share, or
// as a new original of a shared item when the share allows versions — and
// processed like any other.

// Uploader is what share uploads need of the upload service.
type Uploader interface {
	Start(ctx context.Context, p *loupe.Principal, r upload.Request) (*store.Upload, error)
	ServeHTTP(w http.ResponseWriter, r *http.Request)
}

// UploadRoutes mounts the tus side of share uploads on r: outside the
// API's body cap and request timeout (a file takes longer than a call),
// under tus's own limits.
func (h *Handler) UploadRoutes(r chi.Router) {
	for _, m := range []string{http.MethodHead, http.MethodPatch} {
		r.Method(m, PathPrefix+"/api/uploads/{uploadId}", h.withSession(h.tus))
	}
}

// uploadPath is where a share upload's bytes go.
func uploadPath(id string) string { return PathPrefix + "/api/uploads/" + id }

// startUpload is POST /share/api/uploads {fileName, size, fileType?,
// folderId?}: {uploadId, uploadUrl, itemId}.
func (h *Handler) startUpload(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	var body struct {
		FileName string  `json:"fileName"`
		Size     int64   `json:"size"`
		FileType string  `json:"fileType"`
		FolderID *string `json:"folderId"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.FileName == "" {
		h.fail(w, r, loupe.Invalid("the body must be {\"fileName\": \"…\", \"size\": 123, \"fileType\": \"video/mp4\", \"folderId\": \"…\"}"))
		return
	}
	if g.Access != loupe.ShareUpload || h.Uploads == nil {
		h.fail(w, r, loupe.Forbidden("This share does not take uploads."))
		return
	}
	req := upload.Request{FileName: body.FileName, Size: body.Size, FileType: body.FileType}
	switch {
	case g.TargetType == "folder":
		into := g.TargetID
		if body.FolderID != nil {
			into = *body.FolderID
		}
		f, err := h.Service.Item(r.Context(), g, into)
		if err == nil && f.ItemType != "folder" {
			err = loupe.NotFound()
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		req.FolderID = f.ID
	case g.Settings().Versions && body.FolderID == nil:
		if _, err := h.Service.Item(r.Context(), g, g.TargetID); err != nil {
			h.fail(w, r, err)
			return
		}
		req.ItemID = g.TargetID
	default:
		h.fail(w, r, loupe.Forbidden("This share takes no new version of its item."))
		return
	}
	up, err := h.Uploads.Start(r.Context(), g.Creator(), req)
	if err == nil {
		err = h.Service.Store.ShareUploadStarted(r.Context(), g, up, body.FileName)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.WriteJSON(w, http.StatusOK, map[string]any{"uploadId": up.ID, "uploadUrl": uploadPath(up.ID),
		"itemId": up.ItemID, "size": up.Size})
}

// tus passes a session's HEAD or PATCH of one of its share's uploads to the
// upload service, as the share's creator.
func (h *Handler) tus(w http.ResponseWriter, r *http.Request, g *store.ShareGrant) {
	id := chi.URLParam(r, "uploadId")
	itemID, err := h.Service.Store.ShareUploadItem(r.Context(), g, id)
	if err == nil && (g.Access != loupe.ShareUpload || h.Uploads == nil) {
		err = loupe.NotFound()
	}
	if err == nil {
		_, err = h.Service.Item(r.Context(), g, itemID)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	r2 := r.WithContext(auth.WithPrincipal(r.Context(), g.Creator()))
	u := *r.URL
	u.Path, u.RawPath = upload.PathPrefix+"/"+id, ""
	r2.URL = &u
	h.Uploads.ServeHTTP(w, r2)
}
