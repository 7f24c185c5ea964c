package resolvers

import (
	"context"
	"path"
	"strings"

	"github.com/google/uuid"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/platform/reqlog"
)

// attachmentKey is a fresh key for an attachment's file:
// <tenant>/items/<item>/attachments/<uuid>[.ext]. Each upload gets a new
// key, so a replaced file is never served half-written and the old one can
// go once the database points at the new one. The file name's extension
// (when short and plain) is kept so that downloads get its Content-Type.
func attachmentKey(tenantID, itemID, fileName string) string {
	return loupe.ItemFilesPrefix(tenantID, itemID) + "attachments/" + uuid.NewString() + safeExt(fileName)
}

// safeExt is the lowercased extension of name when it is 1 to 10 ASCII
// letters or digits, else "".
func safeExt(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if len(ext) < 2 || len(ext) > 11 {
		return ""
	}
	for _, c := range ext[1:] {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return ""
		}
	}
	return ext
}

// deleteFile removes a file the database no longer points at. A failure
// leaves an orphan, which costs space but no correctness, so it is logged
// rather than failing a write that has already committed.
func (r *Resolver) deleteFile(ctx context.Context, key string) {
	if key == "" || r.Files == nil {
		return
	}
	if err := r.Files.Delete(context.WithoutCancel(ctx), key); err != nil {
		reqlog.From(ctx).WarnContext(ctx, "could not delete replaced file", "key", key, "err", err)
	}
}
