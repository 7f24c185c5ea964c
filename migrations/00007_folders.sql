-- +goose Up

-- A folder's content is listed from item_folders alone: each link carries
-- what listings sort and filter on (the child's name, type and whether it is
-- in the recycle bin), kept in step with items by triggers, so that a page
-- deep in a folder of 100k children walks one index instead of joining every
-- child it skips.
ALTER TABLE item_folders
    ADD COLUMN child_name    text NOT NULL DEFAULT '',
    ADD COLUMN child_type    text NOT NULL DEFAULT '',
    ADD COLUMN child_deleted boolean NOT NULL DEFAULT false;

UPDATE item_folders l SET child_name = i.title, child_type = i.item_type, child_deleted = i.deleted_on IS NOT NULL
FROM items i WHERE i.tenant_id = l.tenant_id AND i.id = l.item_id;

-- +goose StatementBegin
CREATE FUNCTION loupe_item_folders_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT i.title, i.item_type, i.deleted_on IS NOT NULL
      INTO NEW.child_name, NEW.child_type, NEW.child_deleted
      FROM items i WHERE i.tenant_id = NEW.tenant_id AND i.id = NEW.item_id;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER item_folders_fill BEFORE INSERT ON item_folders
    FOR EACH ROW EXECUTE FUNCTION loupe_item_folders_fill();

-- +goose StatementBegin
CREATE FUNCTION loupe_item_folders_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE item_folders SET child_name = NEW.title, child_deleted = NEW.deleted_on IS NOT NULL
    WHERE tenant_id = NEW.tenant_id AND item_id = NEW.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER items_follow_in_folders AFTER UPDATE OF title, deleted_on ON items
    FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.deleted_on IS DISTINCT FROM NEW.deleted_on)
    EXECUTE FUNCTION loupe_item_folders_follow();

CREATE INDEX item_folders_by_name_idx ON item_folders (tenant_id, folder_id, child_name, item_id) WHERE NOT child_deleted;
CREATE INDEX item_folders_live_idx ON item_folders (tenant_id, folder_id, item_id) WHERE NOT child_deleted;
CREATE INDEX item_folders_subfolders_idx ON item_folders (tenant_id, folder_id, child_name, item_id)
    WHERE child_type = 'folder' AND NOT child_deleted;

-- Items deleted with a folder remember it, so that undeleting the folder
-- brings them back together.
ALTER TABLE items ADD COLUMN deleted_with uuid;
CREATE INDEX items_deleted_with_idx ON items (tenant_id, deleted_with) WHERE deleted_with IS NOT NULL;

-- +goose Down
DROP INDEX items_deleted_with_idx;
ALTER TABLE items DROP COLUMN deleted_with;
DROP TRIGGER items_follow_in_folders ON items;
DROP TRIGGER item_folders_fill ON item_folders;
DROP FUNCTION loupe_item_folders_follow(), loupe_item_folders_fill();
DROP INDEX item_folders_by_name_idx, item_folders_live_idx, item_folders_subfolders_idx;
ALTER TABLE item_folders DROP COLUMN child_name, DROP COLUMN child_type, DROP COLUMN child_deleted;
