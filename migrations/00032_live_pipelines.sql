-- +goose Up

-- Live pipelines (spec 2.21, 4.6; docs/live.md "Pipelines"): configured
-- live sources with a list of alternatives, and the last measurement of
-- the active one, which the node makes (ffprobe) — never a client.
CREATE TABLE live_pipelines (
    tenant_id         uuid NOT NULL,
    id                uuid NOT NULL,
    name              text NOT NULL,
    -- [{key, name, url, type}] (loupe.LiveSource), 1 to 16; current the
    -- active key.
    sources           jsonb NOT NULL,
    current           text NOT NULL,
    list_key          text,
    cidr              text NOT NULL DEFAULT '',
    -- 'loupe' (Loupe's own store) or a storage location id.
    location_id       text NOT NULL,
    object_output     boolean NOT NULL DEFAULT false,
    audio_only        boolean NOT NULL DEFAULT false,
    mxf_with_ts_proxy boolean NOT NULL DEFAULT false,
    -- The last measurement.
    status            text NOT NULL DEFAULT 'unknown' CHECK (status IN ('ok', 'error', 'unknown')),
    reason            text NOT NULL DEFAULT '',
    error_message     text NOT NULL DEFAULT '',
    measured_key      text NOT NULL DEFAULT '',
    measured          jsonb,
    checked_on        timestamptz,
    stale_after       timestamptz,
    -- The scheduler's: when the next measurement is due, and until when a
    -- node that took it holds it.
    next_probe_on     timestamptz NOT NULL,
    probe_lease       timestamptz,
    created_by        uuid NOT NULL,
    created_on        timestamptz NOT NULL,
    modified_on       timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
-- The tenant's list, oldest first.
CREATE INDEX live_pipelines_list ON live_pipelines (tenant_id, created_on, id);
-- The scheduler's due measurements, across tenants.
CREATE INDEX live_pipelines_due ON live_pipelines (next_probe_on);

-- +goose Down
DROP TABLE live_pipelines;
