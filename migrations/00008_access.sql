-- +goose Up

-- Access control (spec 5.4, docs/access-control.md). tokens is NULL for a
-- tenant admin, whom every rule admits.

-- loupe_admits: does a rule {level, groups} admit the user? A folder's
-- owner is always admitted.
CREATE FUNCTION loupe_admits(rule jsonb, owner uuid, uid uuid, tokens text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT tokens IS NULL
        OR coalesce(owner = uid, false)
        OR rule IS NULL
        OR coalesce(rule->>'level', 'tenant') = 'tenant'
        OR coalesce((rule->'groups') ?| tokens, false)
$$;

-- loupe_item_visible: a folder is visible when its visibleTo admits the
-- user; any other item when it sits in no folder or in a live folder that
-- is visible.
CREATE FUNCTION loupe_item_visible(t uuid, item uuid, item_type text, owner uuid, visible_to jsonb,
                                   uid uuid, tokens text[]) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT tokens IS NULL OR CASE
        WHEN item_type = 'folder' THEN loupe_admits(visible_to, owner, uid, tokens)
        ELSE NOT EXISTS (SELECT 1 FROM item_folders v WHERE v.tenant_id = t AND v.item_id = item)
          OR EXISTS (SELECT 1 FROM item_folders v
                     JOIN items f ON f.tenant_id = v.tenant_id AND f.id = v.folder_id
                     WHERE v.tenant_id = t AND v.item_id = item AND f.deleted_on IS NULL
                       AND loupe_admits(f.visible_to, f.owner_id, uid, tokens))
    END
$$;

-- loupe_item_updatable: a folder is updatable when both its rules admit
-- the user; any other item when it sits in no folder or in a live folder
-- that is updatable.
CREATE FUNCTION loupe_item_updatable(t uuid, item uuid, item_type text, owner uuid, visible_to jsonb,
                                     updatable_by jsonb, uid uuid, tokens text[]) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT tokens IS NULL OR CASE
        WHEN item_type = 'folder' THEN loupe_admits(visible_to, owner, uid, tokens)
                                   AND loupe_admits(updatable_by, owner, uid, tokens)
        ELSE NOT EXISTS (SELECT 1 FROM item_folders v WHERE v.tenant_id = t AND v.item_id = item)
          OR EXISTS (SELECT 1 FROM item_folders v
                     JOIN items f ON f.tenant_id = v.tenant_id AND f.id = v.folder_id
                     WHERE v.tenant_id = t AND v.item_id = item AND f.deleted_on IS NULL
                       AND loupe_admits(f.visible_to, f.owner_id, uid, tokens)
                       AND loupe_admits(f.updatable_by, f.owner_id, uid, tokens))
    END
$$;

-- +goose Down
DROP FUNCTION loupe_item_updatable(uuid, uuid, text, uuid, jsonb, jsonb, uuid, text[]);
DROP FUNCTION loupe_item_visible(uuid, uuid, text, uuid, jsonb, uuid, text[]);
DROP FUNCTION loupe_admits(jsonb, uuid, uuid, text[]);
