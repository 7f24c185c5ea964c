package store

import (
	"context"
	"fmt"
	"strconv"
)

// This file holds the checkpoint of a long video proxy's segments
// (internal/media/pipeline, segments.go; migrations/00039): which segments
// a processing job's attempts finished and kept, so that the job's next
// attempt, on any node, encodes only from the next one on.

// ProxySegment is one kept segment of a job's proxy.
type ProxySegment struct {
	Segment int    `db:"segment"`
	Plan    string `db:"plan"`
	// RunKey is the attempt that kept it; Key is its blob in the server's
	// file store (under that attempt's own prefix), Size and SHA256 what
	// the blob held when kept.
	RunKey string `db:"run_key"`
	Key    string `db:"blob_key"`
	Size   int64  `db:"size"`
	SHA256 string `db:"sha256"`
	// Last: the proxy's last segment.
	Last bool `db:"last"`
}

const (
	// keepProxySegmentSQL records a segment for run $4 while it holds the
	// item. The item's row is locked (FOR SHARE) so that a newer run's
	// claim and this write are one before the other: a write after the
	// claim finds the new run key and writes nothing.
	keepProxySegmentSQL = `
WITH holder AS (
    SELECT tenant_id, id FROM items
    WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL AND media->'progressInfo'->>'runKey' = $4
    FOR SHARE
)
INSERT INTO proxy_segments (tenant_id, item_id, job_id, segment, plan, run_key, blob_key, size, sha256, last, kept_on)
SELECT tenant_id, id, $3, $5, $6, $4, $7, $8, $9, $10, now() FROM holder
ON CONFLICT (tenant_id, item_id, job_id, segment) DO UPDATE SET plan = EXCLUDED.plan, run_key = EXCLUDED.run_key,
    blob_key = EXCLUDED.blob_key, size = EXCLUDED.size, sha256 = EXCLUDED.sha256, last = EXCLUDED.last,
    kept_on = EXCLUDED.kept_on
RETURNING segment`

	proxySegmentsSQL = `
SELECT segment, plan, run_key, blob_key, size, sha256, last FROM proxy_segments
WHERE tenant_id = $1 AND item_id = $2 AND job_id = $3
ORDER BY segment`

	dropProxySegmentsSQL = `DELETE FROM proxy_segments WHERE tenant_id = $1 AND item_id = $2 AND job_id = $3`
)

// ProxySegmentsPrefix is where a processing job's attempts keep the
// segments of an item's proxy; each attempt writes below it in a
// directory of its own.
func ProxySegmentsPrefix(tenantID, itemID string, jobID int64) string {
	return "media/" + tenantID + "/" + itemID + "/segments/" + strconv.FormatInt(jobID, 10) + "/"
}

// KeepProxySegment records seg as kept by run runKey of job jobID.
// ErrStaleRun when another run holds the item or it is gone.
func (s *Store) KeepProxySegment(ctx context.Context, tenantID, itemID string, jobID int64, runKey string, seg ProxySegment) error {
	rows, err := s.db.QueryContext(ctx, keepProxySegmentSQL, tenantID, itemID, jobID, runKey, seg.Segment, seg.Plan,
		seg.Key, seg.Size, seg.SHA256, seg.Last)
	if err != nil {
		return fmt.Errorf("store: unable to keep a proxy segment: %w", err)
	}
	defer rows.Close()
	written := rows.Next()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: unable to keep a proxy segment: %w", err)
	}
	if !written {
		return ErrStaleRun
	}
	return nil
}

// ProxySegments answers the segments job jobID's attempts kept for the
// item's proxy, in order.
func (s *Store) ProxySegments(ctx context.Context, tenantID, itemID string, jobID int64) ([]ProxySegment, error) {
	var segs []ProxySegment
	if err := s.db.SelectContext(ctx, &segs, proxySegmentsSQL, tenantID, itemID, jobID); err != nil {
		return nil, fmt.Errorf("store: unable to read the proxy's segments: %w", err)
	}
	return segs, nil
}

// DropProxySegments forgets job jobID's segments (its run is done, or
// failed for good); the caller deletes their blobs.
func (s *Store) DropProxySegments(ctx context.Context, tenantID, itemID string, jobID int64) error {
	if _, err := s.db.ExecContext(ctx, dropProxySegmentsSQL, tenantID, itemID, jobID); err != nil {
		return fmt.Errorf("store: unable to drop the proxy's segments: %w", err)
	}
	return nil
}
