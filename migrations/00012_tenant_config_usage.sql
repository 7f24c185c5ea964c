-- +goose Up

-- Tenant configuration (spec 2.12): only the keys a tenant admin wrote; the
-- documented defaults (docs/tenant-config.md) fill in the rest on read.
CREATE TABLE tenant_config (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (id),
    config      jsonb NOT NULL,
    modified_by uuid NOT NULL,
    modified_on timestamptz NOT NULL
);

-- A tenant's own transcription languages (spec 2.24), replaced whole; a
-- tenant without a row uses the system's list.
CREATE TABLE transcription_language_settings (
    tenant_id   uuid PRIMARY KEY REFERENCES tenants (id),
    settings    jsonb NOT NULL,
    modified_by uuid NOT NULL,
    modified_on timestamptz NOT NULL
);

-- Usage counters per tenant, metric and hour (UTC), written in batches by
-- the in-process recorder (internal/usage). unique_users here counts the
-- distinct users of each hour; usage_users holds who they were, so that a
-- longer range counts each user once.
CREATE TABLE usage_hourly (
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    metric    text NOT NULL,
    hour      timestamptz NOT NULL,
    count     bigint NOT NULL,
    PRIMARY KEY (tenant_id, metric, hour)
);
-- systemActivity pages newest hour first.
CREATE INDEX usage_hourly_time_idx ON usage_hourly (tenant_id, hour DESC, metric);

CREATE TABLE usage_users (
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    hour      timestamptz NOT NULL,
    user_id   uuid NOT NULL,
    PRIMARY KEY (tenant_id, hour, user_id)
);

-- Every file Loupe's blob store holds for a tenant (attachments, thumbnails,
-- transcripts), with the time it was stored and, once gone, deleted: the
-- metering of storage integrates bytes over time from these rows.
CREATE TABLE stored_files (
    tenant_id  uuid NOT NULL REFERENCES tenants (id),
    id         uuid NOT NULL,
    key        text NOT NULL,
    size_bytes bigint NOT NULL,
    stored_on  timestamptz NOT NULL,
    deleted_on timestamptz,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX stored_files_key_key ON stored_files (tenant_id, key) WHERE deleted_on IS NULL;
CREATE INDEX stored_files_time_idx ON stored_files (tenant_id, stored_on);

-- +goose Down
DROP TABLE stored_files, usage_users, usage_hourly, transcription_language_settings, tenant_config;
