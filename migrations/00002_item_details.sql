-- +goose Up

-- Attachment blobs: size and type are known once the upload has landed.
ALTER TABLE attachments
    ADD COLUMN size_bytes   bigint,
    ADD COLUMN content_type text,
    ADD COLUMN uploaded_on  timestamptz;

-- Comments on items, optionally anchored to a span of the media's timeline.
CREATE TABLE comments (
    tenant_id      uuid NOT NULL,
    id             uuid NOT NULL,
    item_id        uuid NOT NULL,
    type           text NOT NULL,
    parent_id      uuid,
    text           text NOT NULL,
    author_id      uuid NOT NULL,
    assignee_id    uuid,
    assigned_on    timestamptz,
    context        jsonb,
    resolved       boolean NOT NULL DEFAULT false,
    created_on     timestamptz NOT NULL,
    modified_on    timestamptz NOT NULL,
    text_edited_on timestamptz,
    deleted_on     timestamptz,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);
CREATE INDEX comments_item_idx ON comments (tenant_id, item_id, id);

CREATE TABLE comment_reactions (
    tenant_id  uuid NOT NULL,
    comment_id uuid NOT NULL,
    user_id    uuid NOT NULL,
    reaction   text NOT NULL,
    created_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, comment_id, user_id, reaction),
    FOREIGN KEY (tenant_id, comment_id) REFERENCES comments ON DELETE CASCADE
);

-- Directed relations between items of one tenant, by type.
CREATE TABLE item_relations (
    tenant_id       uuid NOT NULL,
    item_id         uuid NOT NULL,
    relation_type   text NOT NULL,
    related_item_id uuid NOT NULL,
    created_by      uuid NOT NULL,
    created_on      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id, relation_type, related_item_id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, related_item_id) REFERENCES items ON DELETE CASCADE
);
CREATE INDEX item_relations_related_idx ON item_relations (tenant_id, related_item_id);

-- Timed metadata: form values attached to a span of the media.
CREATE TABLE timed_metadata (
    tenant_id   uuid NOT NULL,
    item_id     uuid NOT NULL,
    id          text NOT NULL,
    start_ms    bigint NOT NULL,
    end_ms      bigint NOT NULL,
    form_id     text NOT NULL,
    form_data   jsonb NOT NULL,
    modified_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id, id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);
CREATE INDEX timed_metadata_start_idx ON timed_metadata (tenant_id, item_id, start_ms, id);

-- One timed transcript per item and language.
CREATE TABLE transcripts (
    tenant_id     uuid NOT NULL,
    item_id       uuid NOT NULL,
    language_code text NOT NULL,
    segments      jsonb NOT NULL,
    blob_key      text NOT NULL,
    updated_by    uuid NOT NULL,
    updated_on    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id, language_code),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);

-- Versions of an item's media; the newest is the item's current version.
CREATE TABLE item_versions (
    tenant_id  uuid NOT NULL,
    item_id    uuid NOT NULL,
    id         uuid NOT NULL,
    name       text NOT NULL,
    created_by uuid NOT NULL,
    created_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);
CREATE INDEX item_versions_item_idx ON item_versions (tenant_id, item_id, id);

-- Thumbnails at time positions (made by processing, or uploaded).
CREATE TABLE thumbnails (
    tenant_id   uuid NOT NULL,
    item_id     uuid NOT NULL,
    position_ms bigint NOT NULL,
    blob_key    text NOT NULL,
    width       integer,
    height      integer,
    created_on  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, item_id, position_ms),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items ON DELETE CASCADE
);

ALTER TABLE items
    ADD COLUMN media_usage             jsonb,
    ADD COLUMN upload_lock_owner       text,
    ADD COLUMN upload_locked_on        timestamptz,
    ADD COLUMN transcript_last_updated timestamptz;

-- Every existing item gets its first version.
INSERT INTO item_versions (tenant_id, item_id, id, name, created_by, created_on)
SELECT tenant_id, id, id, 'Version 1', created_by, created_on FROM items;

-- Full-text search over title, file name and metadata values. The vector is
-- a generated column so that every write keeps it current.
CREATE FUNCTION loupe_search_vector(title text, file_name text, form_data jsonb)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
         setweight(to_tsvector('simple', coalesce(file_name, '')), 'B') ||
         setweight(jsonb_to_tsvector('simple', coalesce(form_data, '{}'::jsonb), '["string", "numeric"]'), 'C')
$$;
ALTER TABLE items ADD COLUMN search tsvector
    GENERATED ALWAYS AS (loupe_search_vector(title, original_file_name, metadata_form_data)) STORED;
CREATE INDEX items_search_idx ON items USING gin (search) WHERE deleted_on IS NULL;

-- +goose Down
DROP INDEX items_search_idx;
ALTER TABLE items DROP COLUMN search, DROP COLUMN media_usage, DROP COLUMN upload_lock_owner,
    DROP COLUMN upload_locked_on, DROP COLUMN transcript_last_updated;
DROP FUNCTION loupe_search_vector(text, text, jsonb);
DROP TABLE thumbnails, item_versions, transcripts, timed_metadata, item_relations, comment_reactions, comments;
ALTER TABLE attachments DROP COLUMN size_bytes, DROP COLUMN content_type, DROP COLUMN uploaded_on;
