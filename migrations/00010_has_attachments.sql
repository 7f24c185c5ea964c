-- +goose Up

-- Whether an item has attachments, so that reading an item without any
-- (most) costs no attachments query. Kept by a trigger on attachments.
ALTER TABLE items ADD COLUMN has_attachments boolean NOT NULL DEFAULT false;
UPDATE items i SET has_attachments = true
WHERE EXISTS (SELECT 1 FROM attachments a WHERE a.tenant_id = i.tenant_id AND a.item_id = i.id);

-- +goose StatementBegin
CREATE FUNCTION loupe_item_has_attachments() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t uuid := coalesce(NEW.tenant_id, OLD.tenant_id);
    it uuid := coalesce(NEW.item_id, OLD.item_id);
BEGIN
    UPDATE items SET has_attachments = EXISTS (SELECT 1 FROM attachments a WHERE a.tenant_id = t AND a.item_id = it)
    WHERE tenant_id = t AND id = it;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER attachments_flag AFTER INSERT OR DELETE ON attachments
    FOR EACH ROW EXECUTE FUNCTION loupe_item_has_attachments();

-- +goose Down
DROP TRIGGER attachments_flag ON attachments;
DROP FUNCTION loupe_item_has_attachments();
ALTER TABLE items DROP COLUMN has_attachments;
