-- +goose Up

-- An item's folders (folderParents, in the order given) are kept on the item
-- itself, in step with item_folders by a trigger. Every item read answers
-- them: computed per row, they were 40 % of a folder content page's
-- Postgres time (an index scan and a sort per hit) and a fifth of a one-item
-- read. Writes pay instead: each link added, removed or moved rewrites its
-- item's row once.
ALTER TABLE items ADD COLUMN folder_ids uuid[] NOT NULL DEFAULT '{}';

UPDATE items i SET folder_ids = l.ids
FROM (SELECT tenant_id, item_id, array_agg(folder_id ORDER BY position) AS ids
      FROM item_folders GROUP BY tenant_id, item_id) l
WHERE i.tenant_id = l.tenant_id AND i.id = l.item_id;

-- +goose StatementBegin
CREATE FUNCTION loupe_item_folder_ids() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    link item_folders;
BEGIN
    IF TG_OP = 'DELETE' THEN link := OLD; ELSE link := NEW; END IF;
    -- Only when they change: the row triggers of one statement adding
    -- several links of an item run after all of them, and the first one
    -- already writes the final list.
    UPDATE items i SET folder_ids = f.ids
    FROM (SELECT ARRAY(SELECT l.folder_id FROM item_folders l
                       WHERE l.tenant_id = link.tenant_id AND l.item_id = link.item_id
                       ORDER BY l.position) AS ids) f
    WHERE i.tenant_id = link.tenant_id AND i.id = link.item_id AND i.folder_ids IS DISTINCT FROM f.ids;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER item_folder_ids AFTER INSERT OR DELETE OR UPDATE OF folder_id, position ON item_folders
    FOR EACH ROW EXECUTE FUNCTION loupe_item_folder_ids();

-- +goose Down
DROP TRIGGER item_folder_ids ON item_folders;
DROP FUNCTION loupe_item_folder_ids();
ALTER TABLE items DROP COLUMN folder_ids;
