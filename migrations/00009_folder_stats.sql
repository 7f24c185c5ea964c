-- +goose Up

-- Live children per folder, so that a content listing's total is one row
-- read instead of counting up to 100k links. Statement-level triggers with
-- transition tables fold a bulk write (a folder delete, a COPY) into one
-- update per folder.
CREATE TABLE folder_stats (
    tenant_id     uuid NOT NULL,
    folder_id     uuid NOT NULL,
    live_children bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, folder_id)
);

INSERT INTO folder_stats (tenant_id, folder_id, live_children)
SELECT tenant_id, folder_id, count(*) FILTER (WHERE NOT child_deleted) FROM item_folders GROUP BY 1, 2;

-- +goose StatementBegin
CREATE FUNCTION loupe_folder_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO folder_stats AS s (tenant_id, folder_id, live_children)
        SELECT tenant_id, folder_id, count(*) FROM new_rows WHERE NOT child_deleted
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (tenant_id, folder_id) DO UPDATE SET live_children = s.live_children + EXCLUDED.live_children;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO folder_stats AS s (tenant_id, folder_id, live_children)
        SELECT tenant_id, folder_id, -count(*) FROM old_rows WHERE NOT child_deleted
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (tenant_id, folder_id) DO UPDATE SET live_children = s.live_children + EXCLUDED.live_children;
    ELSE
        INSERT INTO folder_stats AS s (tenant_id, folder_id, live_children)
        SELECT tenant_id, folder_id, sum(d) FROM (
            SELECT tenant_id, folder_id, 1 AS d FROM new_rows WHERE NOT child_deleted
            UNION ALL
            SELECT tenant_id, folder_id, -1 FROM old_rows WHERE NOT child_deleted) c
        GROUP BY 1, 2 HAVING sum(d) <> 0 ORDER BY 1, 2
        ON CONFLICT (tenant_id, folder_id) DO UPDATE SET live_children = s.live_children + EXCLUDED.live_children;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER folder_stats_insert AFTER INSERT ON item_folders
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loupe_folder_stats_apply();
CREATE TRIGGER folder_stats_delete AFTER DELETE ON item_folders
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION loupe_folder_stats_apply();
CREATE TRIGGER folder_stats_update AFTER UPDATE ON item_folders
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loupe_folder_stats_apply();

-- +goose Down
DROP TRIGGER folder_stats_update ON item_folders;
DROP TRIGGER folder_stats_delete ON item_folders;
DROP TRIGGER folder_stats_insert ON item_folders;
DROP FUNCTION loupe_folder_stats_apply();
DROP TABLE folder_stats;
