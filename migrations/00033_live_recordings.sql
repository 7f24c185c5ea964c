-- +goose Up

-- Scheduled recordings and series (spec 4.6, 2.12 recordings keys;
-- docs/live.md "Scheduled recordings"). A recording is an item (video, or
-- audio for an audioOnly pipeline) with a row here; a series makes one
-- such item per occurrence, a week ahead.

CREATE TABLE live_series (
    tenant_id        uuid NOT NULL,
    id               uuid NOT NULL,
    title            text NOT NULL,
    pipeline_id      uuid NOT NULL,
    folder_id        uuid,
    -- The MDF the occurrences' items get: {formId, formData}.
    metadata         jsonb,
    -- The first occurrence's start; the others at the same wall-clock
    -- time in time_zone (an IANA name).
    first_start      timestamptz NOT NULL,
    time_zone        text NOT NULL,
    duration_seconds integer NOT NULL CHECK (duration_seconds > 0),
    -- daily, weekly, or days (on the ISO weekdays in days, 1 = Monday).
    repeat           text NOT NULL CHECK (repeat IN ('daily', 'weekly', 'days')),
    days             smallint[] NOT NULL DEFAULT '{}',
    -- No occurrence starts after until_start (null: none given); at most
    -- occurrences of them (null: no count).
    until_start      timestamptz,
    occurrences      integer,
    -- Occurrence starts removed (exceptions).
    exceptions       timestamptz[] NOT NULL DEFAULT '{}',
    -- Occurrences starting before this have their items (the scheduler
    -- makes the next ones as time goes on).
    made_until       timestamptz NOT NULL,
    created_by       uuid NOT NULL,
    created_on       timestamptz NOT NULL,
    modified_on      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX live_series_pipeline ON live_series (tenant_id, pipeline_id);
CREATE INDEX live_series_period ON live_series (tenant_id, first_start);
-- The scheduler's series to extend, across tenants.
CREATE INDEX live_series_made ON live_series (made_until);

CREATE TABLE live_recordings (
    tenant_id        uuid NOT NULL,
    -- The recording's item.
    item_id          uuid NOT NULL,
    pipeline_id      uuid NOT NULL,
    series_id        uuid,
    starts_on        timestamptz NOT NULL,
    ends_on          timestamptz NOT NULL CHECK (ends_on > starts_on),
    -- crash: started at once (crashRecordingDuration / crashRecordingName).
    crash            boolean NOT NULL DEFAULT false,
    -- scheduled → recording → finishing → complete | failed; cancelled.
    state            text NOT NULL DEFAULT 'scheduled'
                     CHECK (state IN ('scheduled', 'recording', 'finishing', 'complete', 'failed', 'cancelled')),
    error            text NOT NULL DEFAULT '',
    -- The node recording it, until when its lease holds, and the lease's
    -- number: every write of a holder names it, so that a node whose
    -- lease was taken over can no longer write (fencing).
    lease_node       text NOT NULL DEFAULT '',
    lease_until      timestamptz,
    epoch            integer NOT NULL DEFAULT 0,
    -- Media recorded so far, in seconds (the segments' lengths).
    recorded_seconds double precision NOT NULL DEFAULT 0,
    -- [{from, to, reason}]: when the source was away, and node changes.
    gaps             jsonb NOT NULL DEFAULT '[]',
    started_on       timestamptz,
    ended_on         timestamptz,
    created_by       uuid NOT NULL,
    created_on       timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id)
);
-- The period listing (GET /prime/api/v1/live/scheduled).
CREATE INDEX live_recordings_period ON live_recordings (tenant_id, starts_on, item_id);
-- Overlap checks on a pipeline.
CREATE INDEX live_recordings_pipeline ON live_recordings (tenant_id, pipeline_id, starts_on)
    WHERE state <> 'cancelled';
-- A series' occurrences, each made once.
CREATE UNIQUE INDEX live_recordings_occurrence ON live_recordings (tenant_id, series_id, starts_on)
    WHERE series_id IS NOT NULL;
-- The recorders' work, across tenants: what is due or whose lease lapsed.
CREATE INDEX live_recordings_due ON live_recordings (starts_on)
    WHERE state IN ('scheduled', 'recording', 'finishing');

-- The segments recorded, as stored (docs/live.md "How a recording runs").
CREATE TABLE live_recording_segments (
    tenant_id   uuid NOT NULL,
    item_id     uuid NOT NULL,
    -- original or proxy.
    of          text NOT NULL CHECK (of IN ('original', 'proxy')),
    -- The lease (node) and the run (a source reconnect) that made it.
    epoch       integer NOT NULL,
    run         integer NOT NULL,
    idx         integer NOT NULL,
    key         text NOT NULL,
    init_key    text NOT NULL,
    duration    double precision NOT NULL,
    size        bigint NOT NULL,
    recorded_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id, of, epoch, run, idx)
);

-- +goose Down
DROP TABLE live_recording_segments;
DROP TABLE live_recordings;
DROP TABLE live_series;
