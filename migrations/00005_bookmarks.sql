-- +goose Up

-- System bookmarks and their folders (spec 2.11). Folder ids are chosen by
-- the client (the folders are written as a whole set), so they are text;
-- bookmark ids are UUIDs. Both key on (tenant_id, id).
CREATE TABLE bookmark_folders (
    tenant_id     uuid NOT NULL REFERENCES tenants (id),
    id            text NOT NULL,
    title         text NOT NULL,
    parent_folder text,
    sort_key      text,
    PRIMARY KEY (tenant_id, id),
    -- Deferred: a folders write replaces the whole set in one transaction,
    -- and the set is consistent only when it is complete.
    FOREIGN KEY (tenant_id, parent_folder) REFERENCES bookmark_folders (tenant_id, id)
        DEFERRABLE INITIALLY DEFERRED
);
-- The listing order: sortKey (nulls last), title, id.
CREATE INDEX bookmark_folders_order_idx ON bookmark_folders (tenant_id, sort_key NULLS LAST, title, id);
CREATE INDEX bookmark_folders_parent_idx ON bookmark_folders (tenant_id, parent_folder)
    WHERE parent_folder IS NOT NULL;

CREATE TABLE bookmarks (
    tenant_id          uuid NOT NULL REFERENCES tenants (id),
    id                 uuid NOT NULL,
    title              text NOT NULL,
    path               text NOT NULL,
    icon               text NOT NULL,
    is_filter_bookmark boolean,
    parent_folder      text,
    -- Group ids or "<tenant_id>:<group_name>"; NULL: everyone in the tenant.
    visible_to_groups  text[],
    sort_key           text,
    PRIMARY KEY (tenant_id, id),
    -- Deferred for the same reason; a folders write sets parent_folder of
    -- the bookmarks whose folder goes away to NULL in its transaction.
    FOREIGN KEY (tenant_id, parent_folder) REFERENCES bookmark_folders (tenant_id, id)
        DEFERRABLE INITIALLY DEFERRED
);
-- The listing order: sortKey (nulls last), title, id.
CREATE INDEX bookmarks_order_idx ON bookmarks (tenant_id, sort_key NULLS LAST, title, id);
CREATE INDEX bookmarks_parent_idx ON bookmarks (tenant_id, parent_folder)
    WHERE parent_folder IS NOT NULL;

-- +goose Down
DROP TABLE bookmarks, bookmark_folders;
