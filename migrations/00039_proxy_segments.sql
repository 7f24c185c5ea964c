-- +goose Up

-- The finished segments of a long video's proxy (internal/media/pipeline,
-- segments.go): a processing run keeps each segment in the file store as
-- it finishes it and records it here, so that the run's next attempt — on
-- another node after a takeover, or a retry — encodes only from the next
-- one on. A row is written only by the attempt holding the item (its run
-- key is the item's progressInfo.runKey, checked in the same statement);
-- the next attempt reuses a segment only when the file is what the row
-- says (size, SHA-256). Rows are per job: another job of the item (a new
-- original, a reprocess) starts afresh. Deleted once the job is done
-- (docs/scaling.md, "A dead node's work").
CREATE TABLE proxy_segments (
    tenant_id uuid NOT NULL,
    item_id   uuid NOT NULL,
    job_id    bigint NOT NULL,
    segment   integer NOT NULL,
    -- plan is what the segments are (media.ProxySegments.Fingerprint):
    -- segments of another plan are not joined with the next attempt's.
    plan      text NOT NULL,
    run_key   text NOT NULL,
    blob_key  text NOT NULL,
    size      bigint NOT NULL,
    sha256    text NOT NULL,
    last      boolean NOT NULL,
    kept_on   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id, job_id, segment),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);

-- +goose Down
DROP TABLE proxy_segments;
