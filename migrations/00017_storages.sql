-- +goose Up

-- The tenant's storages (spec 2.13, /config/api/v1/storages) and storage
-- locations (/prime/api/v1/storages): where a tenant's files may go. A
-- location may belong to a storage; a storage in use by a location cannot be
-- deleted (the spec's 400 "The conditional request failed").
-- docs/storage-locations.md.
CREATE TABLE storages (
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    id          uuid NOT NULL,
    name        text NOT NULL,
    private     boolean NOT NULL DEFAULT false,
    description text NOT NULL DEFAULT '',
    owner       text NOT NULL DEFAULT '',
    created_on  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

-- The listing order: name, id.
CREATE INDEX storages_name_idx ON storages (tenant_id, name, id);

CREATE TABLE storage_locations (
    tenant_id        uuid NOT NULL REFERENCES tenants (id),
    id               uuid NOT NULL,
    storage_id       uuid,
    name             text NOT NULL,
    type             text NOT NULL CHECK (type IN ('s3')),
    bucket_name      text NOT NULL,
    path_prefix      text NOT NULL DEFAULT '',
    endpoint         text NOT NULL DEFAULT '',
    region           text NOT NULL DEFAULT '',
    path_style       boolean NOT NULL DEFAULT false,
    access_type      text NOT NULL CHECK (access_type IN ('key-user', 'assume-role')),
    access_key       text,
    role_identifier  text,
    external_id      text,
    -- The secret access key sealed with the server's credentials key
    -- (AES-256-GCM: nonce || ciphertext || tag, bound to tenant and id);
    -- NULL when none is saved. Never returned.
    secret_sealed    bytea,
    is_default       boolean NOT NULL DEFAULT false,
    created_on       timestamptz NOT NULL DEFAULT now(),
    modified_on      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, storage_id) REFERENCES storages (tenant_id, id)
);

-- The listing order, and the storage in-use check of a storage delete.
CREATE INDEX storage_locations_name_idx ON storage_locations (tenant_id, name, id);
CREATE INDEX storage_locations_storage_idx ON storage_locations (tenant_id, storage_id) WHERE storage_id IS NOT NULL;
-- At most one default location per tenant.
CREATE UNIQUE INDEX storage_locations_default_idx ON storage_locations (tenant_id) WHERE is_default;

-- +goose Down
DROP TABLE storage_locations;
DROP TABLE storages;
