-- +goose Up

-- The item visibility and updatability predicates are written into each
-- query by the store (store/access_control.go) instead: Postgres never
-- inlines a SQL function whose body has subqueries, so it planned the body
-- anew on every call — every row read, admins included (a one-item read
-- cost 6× the same read without it). loupe_admits stays: it is a plain
-- expression, which Postgres inlines.
DROP FUNCTION loupe_item_updatable(uuid, uuid, text, uuid, jsonb, jsonb, uuid, text[]);
DROP FUNCTION loupe_item_visible(uuid, uuid, text, uuid, jsonb, uuid, text[]);

-- +goose Down
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
