package sources

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
)

// Messages of a download of an original that cannot be made.
const (
	MsgNoOriginal   = "The item has no original file (it was made without one, or its upload has not completed)."
	MsgOriginalGone = "The item's original is in a storage location or ingest source that no longer exists."
)

// OriginalDownload signs a download link to an original at location
// (its file name fileName, else its key's), valid for ttl: in Loupe's file
// store the signer's (Loupe's /blobs/ link, or the bucket's presigned URL
// with direct downloads), elsewhere — a storage location, an ingest
// source's bucket — a URL presigned with that place's credentials (the
// link carries a signature, never the secret). The API's originalDownload
// and shares' outsiders both use it.
func (s *Sources) OriginalDownload(ctx context.Context, signer *blob.Signer, tenantID, location, storageID,
	fileName string, now time.Time, ttl time.Duration) (link, name string, err error) {
	files, key, _, err := s.Original(ctx, tenantID, location, storageID)
	switch loupe.ErrorKind(err) {
	case loupe.ENOTFOUND:
		return "", "", &loupe.Error{Kind: loupe.ENOTFOUND, Message: MsgOriginalGone}
	case loupe.EINVALID:
		var le *loupe.Error
		errors.As(err, &le)
		return "", "", &loupe.Error{Kind: loupe.ENOTFOUND, Message: MsgNoOriginal, DeveloperMessage: le.Message}
	}
	if err != nil {
		return "", "", fmt.Errorf("sources: unable to open the original at %s: %w", location, err)
	}
	name = fileName
	if name == "" {
		name = path.Base(key)
	}
	if _, ok := loupe.FileKey(location); ok {
		return signer.DownloadURL(key, name, now, ttl), name, nil
	}
	dp, ok := files.(blob.DownloadPresigner)
	if !ok {
		return "", "", fmt.Errorf("sources: the store of the original at %s does not presign", location)
	}
	link, err = dp.PresignDownload(ctx, key, name, min(ttl, blob.MaxPresignTTL))
	if err != nil {
		return "", "", fmt.Errorf("sources: unable to sign a link to the original at %s: %w", location, err)
	}
	return link, name, nil
}
