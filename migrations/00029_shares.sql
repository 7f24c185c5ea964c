-- +goose Up

-- Shares (spec 4.5, 2.28; docs/shares.md): a grant to people without an
-- account of one item or one folder (its subtree at the time of each
-- request), to view or to upload into, narrowed to what its creator may
-- see — checked at every request, not only at creation.
CREATE TABLE shares (
    tenant_id     uuid NOT NULL,
    id            uuid NOT NULL,
    -- The root: an item or a folder (its type decides which).
    target_id     uuid NOT NULL,
    target_type   text NOT NULL CHECK (target_type IN ('item', 'folder')),
    access        text NOT NULL CHECK (access IN ('view', 'upload')),
    title         text NOT NULL,
    message       text NOT NULL DEFAULT '',
    created_by    uuid NOT NULL,
    created_on    timestamptz NOT NULL,
    -- Always set: the tenant's shareLimits give the default and the cap.
    expires_on    timestamptz NOT NULL,
    max_uses      integer CHECK (max_uses > 0),
    -- Explicit opens (POST …/open); never a GET, HEAD or Range request.
    uses          integer NOT NULL DEFAULT 0,
    -- argon2id, PHC string format; NULL: no password.
    password_hash text,
    options       jsonb NOT NULL,
    revoked_on    timestamptz,
    revoked_by    uuid,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, created_by) REFERENCES users ON DELETE CASCADE,
    CHECK (max_uses IS NULL OR uses <= max_uses)
);
-- The tenant's list, newest first (keyset on created_on, id).
CREATE INDEX shares_list ON shares (tenant_id, created_on DESC, id DESC);

-- The links of a share: one public (no recipient) and/or one per named
-- recipient. Only the SHA-256 of a token is kept; a link is looked up by
-- it (the hash is the key: a token names its tenant and share).
CREATE TABLE share_tokens (
    token_hash bytea PRIMARY KEY,
    tenant_id  uuid NOT NULL,
    share_id   uuid NOT NULL,
    recipient  text,
    created_on timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, share_id) REFERENCES shares ON DELETE CASCADE
);
CREATE INDEX share_tokens_share ON share_tokens (tenant_id, share_id);

-- The short sessions an explicit open mints: what every outsider request
-- after the open presents. Kept as SHA-256 like the tokens.
CREATE TABLE share_sessions (
    session_hash bytea PRIMARY KEY,
    tenant_id    uuid NOT NULL,
    share_id     uuid NOT NULL,
    token_hash   bytea NOT NULL,
    created_on   timestamptz NOT NULL,
    expires_on   timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, share_id) REFERENCES shares ON DELETE CASCADE
);
CREATE INDEX share_sessions_share ON share_sessions (tenant_id, share_id);
CREATE INDEX share_sessions_expires ON share_sessions (expires_on);

-- Wrong passwords, per link and per address: each failure doubles the
-- wait before the next attempt is heard (capped), never locking the
-- share for good. key is "t:<token hash hex>" or "a:<address>".
CREATE TABLE share_password_failures (
    key          text PRIMARY KEY,
    failures     integer NOT NULL,
    last_failure timestamptz NOT NULL
);
CREATE INDEX share_password_failures_age ON share_password_failures (last_failure);

-- Uploads made through upload shares: the session's tus requests reach
-- only these (and only while the share lets them).
CREATE TABLE share_uploads (
    tenant_id  uuid NOT NULL,
    upload_id  uuid NOT NULL,
    share_id   uuid NOT NULL,
    item_id    uuid NOT NULL,
    created_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, upload_id),
    FOREIGN KEY (tenant_id, share_id) REFERENCES shares ON DELETE CASCADE
);
CREATE INDEX share_uploads_share ON share_uploads (tenant_id, share_id, created_on);

-- An outsider's comment (through a share with comments on): its author is
-- the share (author_id its id, author_type 'share'), with the name the
-- outsider gave.
ALTER TABLE comments
    ADD COLUMN author_type text NOT NULL DEFAULT 'user' CHECK (author_type IN ('user', 'share')),
    ADD COLUMN author_name text;

-- +goose Down
ALTER TABLE comments DROP COLUMN author_type, DROP COLUMN author_name;
DROP TABLE share_uploads;
DROP TABLE share_password_failures;
DROP TABLE share_sessions;
DROP TABLE share_tokens;
DROP TABLE shares;
