// Package ingest turns objects of tenants' buckets into items, in place
// (docs/ingest.md): a plan (Plan) says which objects an ingest
// configuration or gateway takes and with what metadata; a scan (Scan,
// ScanWorker) walks a configuration's prefix page by page, resumably; One
// ingests one object now. Items, ingested_objects rows and the scan's
// position are written by the store, idempotently by bucket, key and ETag.
package ingest

import (
	"context"
	"errors"
	"strings"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/store"
)

// MsgWrongItemID is the spec's 400 to an ingest naming an item that is not
// a live item of the tenant (section 7).
const MsgWrongItemID = "Wrong item id"

// Service ingests.
type Service struct {
	Store *store.Store
	// Sources opens the buckets with their sealed credentials.
	Sources *sources.Sources
}

// Result is what ingesting one object did.
type Result struct {
	ItemID string
	// Outcome is created (a new item), version (a new version of the
	// item named) or known (the object was ingested before).
	Outcome string
	// TranscodingState is the item's: queued, skipped, or what it is for
	// a known object.
	TranscodingState string
}

// One ingests the object key of a's bucket now, as p, by plan pl: into a
// new item, or as a new version of itemID when given. EINVALID when the key
// is not given, the object is missing or the plan leaves it out, or itemID
// names no live item (MsgWrongItemID).
func (s *Service) One(ctx context.Context, p *loupe.Principal, a sources.Access, pl *Plan, key, itemID string) (*Result, error) {
	if key == "" || len(key) > blob.MaxKeyLen {
		return nil, loupe.Invalid("key is required: the object's key in the bucket (at most %d bytes)", blob.MaxKeyLen)
	}
	if itemID != "" {
		it, err := s.Store.Item(ctx, p, itemID)
		if loupe.ErrorKind(err) == loupe.ENOTFOUND || (err == nil && it.ItemType == "folder") {
			return nil, loupe.Invalid(MsgWrongItemID)
		}
		if err != nil {
			return nil, err
		}
	}
	s3, secret, err := s.Sources.Bucket(ctx, a)
	if err != nil {
		return nil, sources.BucketError("Could not read the bucket: ", err, secret)
	}
	o, err := s3.Stat(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, loupe.Invalid("there is no object %q in bucket %s", key, a.Bucket)
	}
	if err != nil {
		return nil, sources.BucketError("Could not read the object: ", err, secret)
	}
	o.Key = key
	var n loupe.ScanCounts
	objs, err := pl.pageObjects(ctx, s3, []blob.Object{o}, &n)
	if err != nil {
		return nil, sources.BucketError("Could not read the object's sidecar or tags: ", err, secret)
	}
	if len(objs) == 0 {
		return nil, loupe.Invalid("the object %q is not ingested by this configuration: %s", key, strings.ToLower(strings.SplitN(n.Message(), ": ", 2)[1]))
	}
	objs[0].ItemID = itemID
	res, err := s.Store.IngestObjects(ctx, p, pl.Source, objs, nil, map[string]string{})
	if err != nil {
		if loupe.ErrorKind(err) == loupe.ENOTFOUND {
			return nil, loupe.Invalid(MsgWrongItemID)
		}
		return nil, err
	}
	if e := res.Errors[0]; e != nil {
		return nil, e
	}
	out := &Result{ItemID: res.ItemIDs[0], Outcome: "known", TranscodingState: "queued"}
	switch {
	case res.Created == 1:
		out.Outcome = "created"
	case res.Versions == 1:
		out.Outcome = "version"
	}
	if pl.Source.SkipProcessing {
		out.TranscodingState = "skipped"
	}
	if out.Outcome == "known" {
		if it, err := s.Store.Item(ctx, p, out.ItemID); err == nil {
			out.TranscodingState = it.TranscodingState
		}
	}
	return out, nil
}
