-- +goose Up

-- Generated-media locations (spec 2.16, /ingest/api/v1/generatedMediaLocations):
-- where processing writes an item's proxies, thumbnails, strips and
-- waveforms. Each is a storage location (its bucket, prefix and sealed
-- credentials live there, probed and listed like any other) with the
-- settings below. docs/generated-media-locations.md.
CREATE TABLE generated_media_locations (
    tenant_id              uuid NOT NULL,
    id                     uuid NOT NULL,
    storage_provider       text NOT NULL DEFAULT 'obj_native',
    backup                 boolean NOT NULL DEFAULT false,
    delete_enabled         boolean NOT NULL DEFAULT false,
    auto_create_items      boolean NOT NULL DEFAULT false,
    upload_generated_media boolean NOT NULL DEFAULT true,
    platform_folder_id     uuid,
    -- The target the bucket's event notification was attached to (NULL:
    -- none configured on the server when it was created).
    events_target          text,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, id) REFERENCES storage_locations (tenant_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE generated_media_locations;
