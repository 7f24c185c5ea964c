-- +goose Up

-- Metering of media work (spec 2.25, docs/usage.md): one row per piece of
-- work done on an item's media (a processing run, later a transcription or
-- a translation), with the media time it covered and the outputs it made.
CREATE TABLE media_operations (
    tenant_id     uuid NOT NULL,
    id            uuid NOT NULL,
    item_id       uuid NOT NULL,
    -- transcoding | transcription | translation
    kind          text NOT NULL,
    -- the engine that did it (transcodingService, transcriptionService…)
    provider      text NOT NULL,
    -- the media time of the outputs made, summed over them (a 10-minute
    -- clip with a video proxy and a second audio track's proxy: 20 minutes)
    media_seconds float8 NOT NULL,
    outputs       integer NOT NULL,
    done_on       timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX media_operations_time_idx ON media_operations (tenant_id, done_on);

-- A processing run's outputs are recorded as one set under their prefix
-- (switched and dropped together): file_count is how many files it holds.
ALTER TABLE stored_files ADD COLUMN file_count integer NOT NULL DEFAULT 1;

-- +goose Down
ALTER TABLE stored_files DROP COLUMN file_count;
DROP TABLE media_operations;
