package resolvers

import (
	"encoding/json"
	"path"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/media/pipeline"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/store"
)

// This file answers the item's media fields from what processing made
// (store.GeneratedMedia): signed links to its blobs, made from the item's
// own row (no query), else what a client stored in the field.

// generatedLink is a signed GET link to key, or nil for "".
func (r *Resolver) generatedLink(key string) *string {
	if key == "" {
		return nil
	}
	u := r.Blobs.URL("GET", key, time.Now(), blob.LinkValidity)
	return &u
}

// orStored is the link to processing's output name (pipeline.OutProxy…)
// when it made one, else the stored value.
func (r *Resolver) orStored(it *store.Item, name string, stored *string) *string {
	if k := it.Generated.File(name); k != "" {
		return r.generatedLink(k)
	}
	return stored
}

// audioTrackLinks is proxyAudioTrackUrls: links to the generated audio
// proxies, else the stored value.
func (r *Resolver) audioTrackLinks(it *store.Item) (loupe.JSON, error) {
	tracks := it.Generated.List(pipeline.OutAudioTracks)
	if tracks == nil {
		return it.ProxyAudioTrackUrls, nil
	}
	links := make([]string, len(tracks))
	for i, k := range tracks {
		links[i] = *r.generatedLink(k)
	}
	return json.Marshal(links)
}

// stripLink is a directory link to the strip's WebVTT map: the map names
// its sprite sheets relative to itself, and a directory link makes those
// references work too (blob.Signer.DirURL).
func (r *Resolver) stripLink(it *store.Item) *string {
	if k := it.Generated.File(pipeline.OutStrip); k != "" {
		dir, name := path.Split(k)
		u := r.Blobs.DirURL(dir, name, time.Now(), blob.LinkValidity)
		return &u
	}
	return it.ThumbnailStrip
}

// orLive is a recording's growing playlist while it records (no proxy
// made yet), else stored: a directory link, so that the playlist's
// relative segment names resolve under it (blob.Signer.DirURL).
func (r *Resolver) orLive(it *store.Item, stored *string) *string {
	if k := it.LivePlaylist; k != nil && *k != "" {
		dir, name := path.Split(*k)
		u := r.Blobs.DirURL(dir, name, time.Now(), blob.LinkValidity)
		return &u
	}
	return stored
}

// orLiveThumbnail is a recording's latest thumbnail while it records,
// else stored.
func (r *Resolver) orLiveThumbnail(it *store.Item, stored *string) *string {
	if k := it.LiveThumbnail; k != nil && *k != "" {
		return r.generatedLink(*k)
	}
	return stored
}
