package shares

import "net/http"

// page serves the outsider's page (being written: docs/shares.md).
func (h *Handler) page(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }

// asset serves the page's files.
func (h *Handler) asset(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
