-- +goose Up

-- Ingest from object storage (spec 2.14, 2.15, 4.1, 4.3; docs/ingest.md).
--
-- ingest_configs: a bucket + prefix with the credentials that reach it,
-- what to do with the objects found there, and the state of its scan.
-- Rows of ingest_config_type 'default_upload_location' are the tenant's
-- upload locations (2.15); the oldest is the default upload location.
CREATE TABLE ingest_configs (
    tenant_id           uuid NOT NULL REFERENCES tenants (id),
    id                  uuid NOT NULL,
    title               text NOT NULL,
    ingest_config_type  text NOT NULL CHECK (ingest_config_type IN ('ingest_media', 'default_upload_location')),
    is_disabled         boolean NOT NULL DEFAULT false,
    source_bucket       text NOT NULL,
    source_key_prefix   text NOT NULL DEFAULT '',
    source_endpoint     text,
    access_type         text NOT NULL CHECK (access_type IN ('key-user', 'assume-role')),
    access_key          text,
    external_id         text,
    -- The secret access key sealed with the server's credentials key
    -- (internal/platform/secretbox, bound to tenant and id); never returned.
    secret_sealed       bytea,
    -- The optional keys of 2.14 (filters, target folder, sidecar, analytic
    -- config, default metadata, ...), as the API answers them.
    settings            jsonb NOT NULL DEFAULT '{}',
    created_by          uuid NOT NULL,
    created_on          timestamptz NOT NULL DEFAULT now(),
    modified_on         timestamptz NOT NULL DEFAULT now(),
    -- The scan: state (queued, scanning, complete, failed), its message, the
    -- last key done (the resume position) and the counts so far.
    scan_state          text,
    scan_message        text,
    scan_modified_on    timestamptz,
    scan_after          text NOT NULL DEFAULT '',
    scan_counts         jsonb NOT NULL DEFAULT '{}',
    -- The scan's number: each scan asked for from a finished state is the
    -- next one (its job's identity, so one scan runs per configuration).
    scan_run            integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, id)
);
-- The listing order (oldest first), also by type (upload locations, and the
-- default upload location: the oldest).
CREATE INDEX ingest_configs_order_idx ON ingest_configs (tenant_id, created_on, id);
CREATE INDEX ingest_configs_type_idx ON ingest_configs (tenant_id, ingest_config_type, created_on, id);

-- What was ingested: one row per object version (bucket + key + ETag), the
-- item it became. The primary key makes an ingest idempotent; the key index
-- finds the item an earlier version of the same object became.
CREATE TABLE ingested_objects (
    tenant_id   uuid NOT NULL,
    bucket      text NOT NULL,
    key         text NOT NULL,
    etag        text NOT NULL,
    config_id   uuid,
    item_id     uuid NOT NULL,
    size        bigint NOT NULL,
    ingested_on timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, bucket, key, etag),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);
CREATE INDEX ingested_objects_item_idx ON ingested_objects (tenant_id, item_id);
CREATE INDEX ingested_objects_config_idx ON ingested_objects (tenant_id, config_id) WHERE config_id IS NOT NULL;

-- Gateway configs (/config/api/v1/configs/gateway): an edge gateway that
-- uploads into a bucket; its upload location is listed with the others.
CREATE TABLE gateway_configs (
    tenant_id     uuid NOT NULL REFERENCES tenants (id),
    id            uuid NOT NULL,
    name          text NOT NULL,
    endpoint      text NOT NULL DEFAULT '',
    bucket_name   text NOT NULL,
    path_prefix   text NOT NULL DEFAULT '',
    access_key    text,
    secret_sealed bytea,
    delete_enabled boolean NOT NULL DEFAULT false,
    last_obj_server_keys_uploaded_at timestamptz,
    created_on    timestamptz NOT NULL DEFAULT now(),
    modified_on   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX gateway_configs_order_idx ON gateway_configs (tenant_id, created_on, id);

-- +goose Down
DROP TABLE gateway_configs;
DROP TABLE ingested_objects;
DROP TABLE ingest_configs;
