-- +goose Up

-- User settings (spec 2.18): one row per user, holding only the keys the user
-- has written; the store fills in the defaults on read, so a default can
-- change without rewriting rows. Writes merge into the row in one upsert
-- (jsonb ||), which locks it, so concurrent writers never lose each other's
-- keys. The store validates every key and bounds the document at 256 KiB.
CREATE TABLE user_settings (
    tenant_id   uuid NOT NULL,
    user_id     uuid NOT NULL,
    settings    jsonb NOT NULL DEFAULT '{}',
    modified_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, user_id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users ON DELETE CASCADE,
    CONSTRAINT user_settings_object_check CHECK (jsonb_typeof(settings) = 'object'),
    -- Reads cast the work folder id to look the folder up.
    CONSTRAINT user_settings_work_folder_check CHECK (
        COALESCE(settings->>'workFolderId', '') = ''
        OR settings->>'workFolderId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
);

-- Persons (spec 2.17) are items of itemType person; the images showing a
-- person are items too, kept in the order given.
CREATE TABLE person_images (
    tenant_id uuid NOT NULL,
    person_id uuid NOT NULL,
    image_id  uuid NOT NULL,
    position  smallint NOT NULL,
    PRIMARY KEY (tenant_id, person_id, image_id),
    FOREIGN KEY (tenant_id, person_id) REFERENCES items ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, image_id) REFERENCES items ON DELETE CASCADE
);
-- Which persons an image shows; also the foreign key's lookups.
CREATE INDEX person_images_image_idx ON person_images (tenant_id, image_id, person_id);

-- +goose Down
DROP TABLE person_images, user_settings;
