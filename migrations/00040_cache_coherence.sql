-- +goose Up

-- Strict coherence of the nodes' caches (internal/coherence,
-- docs/scaling.md "Several nodes"). A node that caches (API keys, forms)
-- registers here, beats every second, and records the newest sync marker
-- its listener has applied. A change's writer commits, then sends a marker
-- (loupe_cache_sync) and does not answer until every caching node with a
-- fresh beat has applied it (or 2 s passed, logged). Notifications reach a
-- listener in commit order, so a node that applied the marker has applied
-- the change's notification before it. Not a tenant's data: one row per
-- node (store/catalog_test.go lists it).
CREATE TABLE cache_nodes (
    node        text PRIMARY KEY,
    started_at  timestamptz NOT NULL DEFAULT now(),
    seen_at     timestamptz NOT NULL DEFAULT now(),
    -- false while the node's listener is down (it caches nothing then, so
    -- no writer waits for it), or after a writer gave up waiting for it.
    caching     boolean NOT NULL DEFAULT false,
    applied_seq bigint NOT NULL DEFAULT 0
);

CREATE SEQUENCE cache_sync_seq;

-- +goose StatementBegin
-- loupe_cache_sync sends the next marker on loupe_sync and answers its
-- number. The lock makes markers commit in the order of their numbers (it
-- is held until the commit has queued the notification), so a node that
-- has applied marker n has applied every marker below n and every change
-- committed before them.
CREATE FUNCTION loupe_cache_sync() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    s bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('loupe.cache_sync', 0));
    s := nextval('cache_sync_seq');
    PERFORM pg_notify('loupe_sync', s::text);
    RETURN s;
END $$;
-- +goose StatementEnd
-- Loupe's plumbing, not an API: @omit keeps it out of GraphQL schemas
-- generated from the database (PostGraphile, the bench's reference, would
-- otherwise make it a mutation).
COMMENT ON FUNCTION loupe_cache_sync() IS E'@omit\nSends the next cache-sync marker on loupe_sync (internal/coherence).';

-- Forms are cached by the nodes for creates (store/definitions_form_cache.go).
-- A form changed or removed notifies loupe_forms with "<tenant>:<form>";
-- an option list (whose alternatives a form is read with) with "<tenant>:"
-- (every form of the tenant); a truncation with "" (every form). A new
-- form changes nothing cached (an absent form is not cached).

-- +goose StatementBegin
CREATE FUNCTION loupe_form_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('loupe_forms', OLD.tenant_id || ':' || OLD.id);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION loupe_forms_of_tenant_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('loupe_forms', OLD.tenant_id || ':');
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('loupe_forms', NEW.tenant_id || ':');
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION loupe_forms_all_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('loupe_forms', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER mdfs_forms_changed AFTER UPDATE OR DELETE ON mdfs
    FOR EACH ROW EXECUTE FUNCTION loupe_form_changed();
CREATE TRIGGER option_lists_forms_changed AFTER INSERT OR UPDATE OR DELETE ON option_lists
    FOR EACH ROW EXECUTE FUNCTION loupe_forms_of_tenant_changed();
CREATE TRIGGER mdfs_forms_truncated AFTER TRUNCATE ON mdfs
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_forms_all_changed();
CREATE TRIGGER option_lists_forms_truncated AFTER TRUNCATE ON option_lists
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_forms_all_changed();

-- +goose Down
DROP TRIGGER option_lists_forms_truncated ON option_lists;
DROP TRIGGER mdfs_forms_truncated ON mdfs;
DROP TRIGGER option_lists_forms_changed ON option_lists;
DROP TRIGGER mdfs_forms_changed ON mdfs;
DROP FUNCTION loupe_forms_all_changed();
DROP FUNCTION loupe_forms_of_tenant_changed();
DROP FUNCTION loupe_form_changed();
DROP FUNCTION loupe_cache_sync();
DROP SEQUENCE cache_sync_seq;
DROP TABLE cache_nodes;
