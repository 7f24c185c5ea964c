-- +goose Up

-- Resumable uploads of an item's original media (tus 1.0, docs/uploads.md).
-- The bytes go to the file store as a multipart upload; what is durably
-- stored is known from here alone, never from the store's ListParts: the
-- upload's offset, the SHA-256 state at that offset, the parts uploaded and
-- the tail (the bytes after the last whole part, kept as a small blob of
-- its own). A request resumes exactly where these rows say, on any node.
CREATE TABLE uploads (
    tenant_id        uuid NOT NULL REFERENCES tenants (id),
    id               uuid NOT NULL,
    item_id          uuid NOT NULL,
    created_by       uuid NOT NULL,
    -- The declared Upload-Length and the part size chosen from it.
    size             bigint NOT NULL CHECK (size >= 0),
    part_size        bigint NOT NULL CHECK (part_size > 0),
    -- Bytes durably stored: the parts' and the tail's.
    received         bigint NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= size),
    -- Where the original goes, and the store's multipart upload id.
    blob_key         text NOT NULL,
    multipart_id     text NOT NULL DEFAULT '',
    -- The bytes after the last part: a blob of tail_size bytes (none when 0).
    tail_key         text NOT NULL DEFAULT '',
    tail_size        bigint NOT NULL DEFAULT 0,
    -- SHA-256 state (encoding.BinaryMarshaler) over the first received bytes.
    hash_state       bytea NOT NULL,
    -- The first bytes (up to 3 KiB), for sniffing the media type at the end.
    head             bytea NOT NULL DEFAULT '',
    file_name        text NOT NULL DEFAULT '',
    -- The tus Upload-Metadata as received (string values).
    metadata         jsonb NOT NULL DEFAULT '{}',
    -- Whether the upload made its item (its itemType may follow the media).
    created_item     boolean NOT NULL DEFAULT false,
    state            text NOT NULL DEFAULT 'uploading' CHECK (state IN ('uploading', 'complete')),
    sha256           text NOT NULL DEFAULT '',
    media_type       text NOT NULL DEFAULT '',
    -- The lock: the node (instance id) holding it, the holder's token and
    -- the lease it renews; another request asks it to let go.
    lock_owner       text NOT NULL DEFAULT '',
    lock_token       uuid,
    lock_expires     timestamptz,
    unlock_requested boolean NOT NULL DEFAULT false,
    created_on       timestamptz NOT NULL DEFAULT now(),
    modified_on      timestamptz NOT NULL DEFAULT now(),
    completed_on     timestamptz,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, item_id) REFERENCES items (tenant_id, id)
);

-- An item's uploads (its current one, the lock's release by item).
CREATE INDEX uploads_item_idx ON uploads (tenant_id, item_id, created_on DESC);
-- Unfinished uploads by age: what a cleanup of abandoned ones walks.
CREATE INDEX uploads_unfinished_idx ON uploads (modified_on) WHERE state = 'uploading';

-- The parts uploaded, with the ETags CompleteMultipart names.
CREATE TABLE upload_parts (
    tenant_id  uuid NOT NULL,
    upload_id  uuid NOT NULL,
    number     integer NOT NULL CHECK (number BETWEEN 1 AND 10000),
    etag       text NOT NULL,
    size       bigint NOT NULL CHECK (size >= 0),
    created_on timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, upload_id, number),
    FOREIGN KEY (tenant_id, upload_id) REFERENCES uploads (tenant_id, id) ON DELETE CASCADE
);

-- The tus upload whose request holds the item's upload lock (NULL for a
-- lock an external uploader took with lockUpload): such a lock is the
-- upload's to take over when its holder died; an external one is not.
ALTER TABLE items ADD COLUMN upload_lock_upload uuid;

-- +goose Down
ALTER TABLE items DROP COLUMN upload_lock_upload;
DROP TABLE upload_parts;
DROP TABLE uploads;
