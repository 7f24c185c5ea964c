-- +goose Up

-- Replication sources (spec 4.5, 2.28 {sources}; docs/replication.md): a
-- tenant's rules copying or moving items' files from one place to another.
-- PUT /prime/api/v1/replication replaces the tenant's set; position keeps
-- the order it was given in. Locations and the folder are not foreign keys:
-- a location or folder deleted later makes the source's transfers fail, or
-- its runs find nothing, saying so, rather than blocking the delete.
CREATE TABLE replication_sources (
    tenant_id            uuid NOT NULL,
    id                   uuid NOT NULL,
    position             integer NOT NULL,
    name                 text NOT NULL,
    scope_type           text NOT NULL CHECK (scope_type IN ('tenant', 'folder')),
    folder_id            uuid,
    -- NULL: Loupe's own file store.
    from_location_id     uuid,
    to_location_id       uuid NOT NULL,
    media                text[] NOT NULL,
    mode                 text NOT NULL CHECK (mode IN ('copy', 'move')),
    on_ingest            boolean NOT NULL,
    interval_minutes     integer,
    max_bytes_per_second bigint NOT NULL DEFAULT 0,
    enabled              boolean NOT NULL,
    created_on           timestamptz NOT NULL,
    modified_on          timestamptz NOT NULL,
    last_run_on          timestamptz,
    run_requested_on     timestamptz,
    -- When the schedule runs it next (NULL: no schedule, or disabled).
    next_run_on          timestamptz,
    PRIMARY KEY (tenant_id, id)
);
-- The tenant's list, in the order given.
CREATE INDEX replication_sources_list ON replication_sources (tenant_id, position, id);
-- The scheduler's look across tenants for sources due.
CREATE INDEX replication_sources_due ON replication_sources (next_run_on) WHERE next_run_on IS NOT NULL;
-- The ingest trigger's look for a tenant's sources.
CREATE INDEX replication_sources_ingest ON replication_sources (tenant_id) WHERE enabled AND on_ingest;

-- Transfers: one file copied (or moved) from one place to another. The row
-- is the truth of a transfer; River jobs only wake a worker for it. A
-- worker holds the row by lease (lease_owner, heartbeat_on) while it
-- copies; a lease not renewed for a while (a killed node) is taken over by
-- a new job, which resumes from the parts recorded in transfer_parts.
CREATE TABLE transfers (
    tenant_id            uuid NOT NULL,
    id                   uuid NOT NULL,
    -- The replication source that asked (NULL once deleted: the history stays).
    source_id            uuid,
    item_id              uuid NOT NULL,
    media                text NOT NULL CHECK (media IN ('original', 'generated')),
    mode                 text NOT NULL CHECK (mode IN ('copy', 'move')),
    state                text NOT NULL DEFAULT 'queued'
                         CHECK (state IN ('queued', 'copying', 'verifying', 'complete', 'failed')),
    -- NULL: Loupe's own file store.
    from_location_id     uuid,
    from_key             text NOT NULL,
    -- The item's sourceFileLocation when asked (originals): a move switches
    -- the item only if it still points there.
    from_ref             text NOT NULL DEFAULT '',
    to_location_id       uuid NOT NULL,
    to_key               text NOT NULL,
    -- The item's mediaSha256 when asked (originals; '' when unknown).
    expected_sha256      text NOT NULL DEFAULT '',
    -- The SHA-256 verified at the destination.
    sha256               text NOT NULL DEFAULT '',
    total_bytes          bigint,
    bytes_done           bigint NOT NULL DEFAULT 0,
    bytes_per_second     double precision,
    max_bytes_per_second bigint NOT NULL DEFAULT 0,
    -- Multipart: the upload and its part size, chosen at the first start.
    upload_id            text,
    part_size            bigint,
    attempts             integer NOT NULL DEFAULT 0,
    -- Where the last attempt started (bytes): > 0 when it resumed.
    resumed_from_bytes   bigint NOT NULL DEFAULT 0,
    errors               jsonb NOT NULL DEFAULT '[]',
    lease_owner          text,
    heartbeat_on         timestamptz,
    created_on           timestamptz NOT NULL,
    started_on           timestamptz,
    finished_on          timestamptz,
    modified_on          timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
-- Listings newest first (ids are UUIDv7), by state, source and item; the
-- source's counts read the index alone.
CREATE INDEX transfers_state ON transfers (tenant_id, state, id);
CREATE INDEX transfers_source ON transfers (tenant_id, source_id, id) INCLUDE (state) WHERE source_id IS NOT NULL;
CREATE INDEX transfers_item ON transfers (tenant_id, item_id, id);
-- One transfer at a time writes a destination key.
CREATE UNIQUE INDEX transfers_active_key ON transfers (tenant_id, to_location_id, to_key)
    WHERE state IN ('queued', 'copying', 'verifying');
-- A run skips files already copied to the same key from the same key.
CREATE INDEX transfers_done_key ON transfers (tenant_id, to_location_id, to_key, from_key) WHERE state = 'complete';
-- The rescuer's look across tenants for leases not renewed.
CREATE INDEX transfers_leases ON transfers (heartbeat_on) WHERE state IN ('copying', 'verifying');

-- The parts of a multipart transfer that reached the destination, each
-- with the SHA-256 state through its end (crypto/sha256's binary state):
-- a resumed copy continues the hash without reading again what was sent.
CREATE TABLE transfer_parts (
    tenant_id   uuid NOT NULL,
    transfer_id uuid NOT NULL,
    upload_id   text NOT NULL,
    number      integer NOT NULL,
    etag        text NOT NULL,
    size        bigint NOT NULL,
    hash_state  bytea NOT NULL,
    PRIMARY KEY (tenant_id, transfer_id, number),
    FOREIGN KEY (tenant_id, transfer_id) REFERENCES transfers ON DELETE CASCADE
);

-- The ingest trigger reads the outbox from its head.
INSERT INTO event_readers (name, tx, seq)
SELECT 'replication', COALESCE(max(tx), '0'), 0 FROM events;
UPDATE event_readers r SET seq = COALESCE((SELECT max(seq) FROM events e WHERE e.tx = r.tx), 0)
WHERE name = 'replication';

-- +goose Down
DELETE FROM event_readers WHERE name = 'replication';
DROP TABLE transfer_parts;
DROP TABLE transfers;
DROP TABLE replication_sources;
