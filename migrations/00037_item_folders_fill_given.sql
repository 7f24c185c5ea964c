-- +goose Up

-- A link inserted with its child's name and type already given is kept as
-- given: an item's create writes the item and its links in one statement
-- (store/items_write.go), where the fill's look-up of the item could not
-- see the row the same statement is inserting. Links inserted without them
-- (child_type '') are filled from the item as before.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION loupe_item_folders_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.child_type <> '' THEN
        RETURN NEW;
    END IF;
    SELECT i.title, i.item_type, i.deleted_on IS NOT NULL
      INTO NEW.child_name, NEW.child_type, NEW.child_deleted
      FROM items i WHERE i.tenant_id = NEW.tenant_id AND i.id = NEW.item_id;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION loupe_item_folders_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT i.title, i.item_type, i.deleted_on IS NOT NULL
      INTO NEW.child_name, NEW.child_type, NEW.child_deleted
      FROM items i WHERE i.tenant_id = NEW.tenant_id AND i.id = NEW.item_id;
    RETURN NEW;
END $$;
-- +goose StatementEnd
