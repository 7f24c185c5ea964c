-- +goose Up

-- Every table carries tenant_id and keys on (tenant_id, id), so the schema can be
-- distributed by tenant (Citus) without change. IDs are UUIDv7.

CREATE TABLE tenants (
    id                uuid PRIMARY KEY,
    name              text NOT NULL,
    archive_folder_id uuid,
    created_on        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tenants_name_key ON tenants (name);

CREATE TABLE users (
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    id          uuid NOT NULL,
    email       text NOT NULL,
    is_admin    boolean NOT NULL DEFAULT false,
    deactivated boolean NOT NULL DEFAULT false,
    created_on  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX users_email_key ON users (tenant_id, lower(email));

-- Groups are named per tenant; ACL entries name them by id or "<tenant_id>:<name>".
CREATE TABLE groups (
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    id        uuid NOT NULL,
    name      text NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX groups_name_key ON groups (tenant_id, name);

CREATE TABLE user_groups (
    tenant_id uuid NOT NULL,
    user_id   uuid NOT NULL,
    group_id  uuid NOT NULL,
    PRIMARY KEY (tenant_id, user_id, group_id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, group_id) REFERENCES groups ON DELETE CASCADE
);

-- Only the SHA-256 of a key's secret is stored. The key id is globally unique
-- because a presented key names no tenant: the tenant comes from this row.
CREATE TABLE api_keys (
    tenant_id       uuid NOT NULL,
    id              text NOT NULL,
    user_id         uuid NOT NULL,
    label           text NOT NULL DEFAULT '',
    secret_hash     bytea NOT NULL,
    is_active       boolean NOT NULL DEFAULT true,
    expires_on      timestamptz,
    max_unused_days integer,
    last_used_on    timestamptz,
    created_on      timestamptz NOT NULL DEFAULT now(),
    modified_on     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users ON DELETE CASCADE
);
CREATE UNIQUE INDEX api_keys_id_key ON api_keys (id);

-- Items: media entries, folders and persons share one id space.
-- Columns hold what is written, filtered or sorted on; "media" holds the
-- processing and ingest state (proxy, thumbnails, transcoding progress, ...),
-- written by the processing and ingest pipelines as one document.
CREATE TABLE items (
    tenant_id                   uuid NOT NULL REFERENCES tenants (id),
    id                          uuid NOT NULL,
    item_type                   text NOT NULL,
    title                       text NOT NULL,
    original_file_name          text NOT NULL DEFAULT '',
    external_id                 text,
    created_by                  uuid NOT NULL,
    created_on                  timestamptz NOT NULL,
    modified_on                 timestamptz NOT NULL,
    media_created_on            timestamptz,
    media_type                  text,
    media_size                  bigint,
    frame_count                 bigint,
    metadata_form_id            text NOT NULL DEFAULT 'default',
    metadata_form_data          jsonb NOT NULL DEFAULT '{}',
    metadata_version            integer NOT NULL DEFAULT 1,
    technical_metadata          jsonb,
    geo_location                jsonb,
    custom_icons                jsonb,
    language_code               text NOT NULL DEFAULT 'en-US',
    transcoding_state           text NOT NULL DEFAULT 'none',
    transcription_enabled       boolean NOT NULL DEFAULT false,
    translation_enabled         boolean NOT NULL DEFAULT false,
    celebrity_detection_enabled boolean NOT NULL DEFAULT false,
    label_detection_enabled     boolean NOT NULL DEFAULT false,
    person_detection_enabled    boolean NOT NULL DEFAULT false,
    text_detection_enabled      boolean NOT NULL DEFAULT false,
    create_unknown_persons      boolean NOT NULL DEFAULT false,
    has_relations               boolean NOT NULL DEFAULT false,
    media                       jsonb NOT NULL DEFAULT '{}',
    -- folder attributes (item_type = 'folder')
    owner_id                    uuid,
    visible_to                  jsonb,
    updatable_by                jsonb,
    sort_key                    text,
    archived_on                 timestamptz,
    deleted_on                  timestamptz,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX items_external_id_key ON items (tenant_id, external_id)
    WHERE external_id IS NOT NULL AND deleted_on IS NULL;
CREATE INDEX items_type_idx ON items (tenant_id, item_type, id) WHERE deleted_on IS NULL;
CREATE INDEX items_recycle_bin_idx ON items (tenant_id, id) WHERE deleted_on IS NOT NULL;
CREATE INDEX items_modified_idx ON items (tenant_id, modified_on, id);

ALTER TABLE tenants ADD FOREIGN KEY (id, archive_folder_id) REFERENCES items (tenant_id, id)
    DEFERRABLE INITIALLY DEFERRED;

-- An item may sit in several folders; position keeps the order of folderParents.
CREATE TABLE item_folders (
    tenant_id uuid NOT NULL,
    item_id   uuid NOT NULL,
    folder_id uuid NOT NULL,
    position  smallint NOT NULL,
    PRIMARY KEY (tenant_id, item_id, folder_id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, folder_id) REFERENCES items
);
CREATE INDEX item_folders_folder_idx ON item_folders (tenant_id, folder_id, item_id);

CREATE TABLE attachments (
    tenant_id   uuid NOT NULL,
    item_id     uuid NOT NULL,
    file_name   text NOT NULL,
    type        text NOT NULL,
    role        text NOT NULL,
    language    text NOT NULL DEFAULT '',
    description text NOT NULL DEFAULT '',
    user_id     uuid NOT NULL,
    blob_key    text NOT NULL,
    modified_on timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, item_id, file_name),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);

-- Audit records outlive the items they describe (no foreign key to items).
CREATE TABLE audit_records (
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    id          uuid NOT NULL,
    item_id     uuid NOT NULL,
    action_type text NOT NULL,
    executed_by uuid NOT NULL,
    email       text NOT NULL,
    item_title  text NOT NULL,
    executed_on timestamptz NOT NULL,
    mdf_diff    jsonb,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX audit_records_time_idx ON audit_records (tenant_id, executed_on DESC, id DESC);
CREATE INDEX audit_records_item_idx ON audit_records (tenant_id, item_id, executed_on DESC, id DESC);
CREATE INDEX audit_records_action_idx ON audit_records (tenant_id, action_type, executed_on DESC, id DESC);
CREATE INDEX audit_records_user_idx ON audit_records (tenant_id, executed_by, executed_on DESC, id DESC);

-- +goose Down
DROP TABLE audit_records, attachments, item_folders;
ALTER TABLE tenants DROP COLUMN archive_folder_id;
DROP TABLE items, api_keys, user_groups, groups, users, tenants;
