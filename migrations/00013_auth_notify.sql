-- +goose Up

-- Authentication caches keys in memory (internal/auth/cache.go). Every change
-- that can make a cached key wrong — a key revoked, deleted or re-dated, a
-- user deactivated or removed, a group membership or a group changed —
-- notifies the channel loupe_auth, and every server forgets the keys it
-- concerns. The payload names the user ("<tenant_id>:<user_id>"); an empty
-- payload means every key (a group renamed or removed, a table truncated).
-- Inserting a key or a user changes nothing already cached; last_used_on
-- updates are left out on purpose (frequent, and no decision by themselves).

-- +goose StatementBegin
-- TG_ARGV[0] is the column holding the user id. A membership given to a
-- user created in the same transaction concerns no key anyone has used yet,
-- so it is not announced.
CREATE FUNCTION loupe_auth_user_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' AND EXISTS (
        SELECT 1 FROM users u
        WHERE u.tenant_id = NEW.tenant_id AND u.id::text = to_jsonb(NEW) ->> TG_ARGV[0]
          AND u.xmin = pg_current_xact_id()::xid) THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('loupe_auth', OLD.tenant_id || ':' || (to_jsonb(OLD) ->> TG_ARGV[0]));
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('loupe_auth', NEW.tenant_id || ':' || (to_jsonb(NEW) ->> TG_ARGV[0]));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION loupe_auth_all_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('loupe_auth', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER api_keys_auth_changed
    AFTER UPDATE OF tenant_id, id, user_id, secret_hash, is_active, expires_on, max_unused_days OR DELETE
    ON api_keys FOR EACH ROW EXECUTE FUNCTION loupe_auth_user_changed('user_id');
CREATE TRIGGER users_auth_changed
    AFTER UPDATE OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION loupe_auth_user_changed('id');
CREATE TRIGGER user_groups_auth_changed
    AFTER INSERT OR UPDATE OR DELETE ON user_groups
    FOR EACH ROW EXECUTE FUNCTION loupe_auth_user_changed('user_id');
-- A group renamed (its "<tenant>:<name>" token changes) or removed; an
-- upsert that leaves the name as it was (ensureGroupSQL) changes nothing.
CREATE TRIGGER groups_auth_renamed
    AFTER UPDATE ON groups FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.id <> NEW.id)
    EXECUTE FUNCTION loupe_auth_all_changed();
CREATE TRIGGER groups_auth_changed
    AFTER DELETE ON groups
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_auth_all_changed();
CREATE TRIGGER api_keys_auth_truncated AFTER TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_auth_all_changed();
CREATE TRIGGER users_auth_truncated AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_auth_all_changed();
CREATE TRIGGER user_groups_auth_truncated AFTER TRUNCATE ON user_groups
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_auth_all_changed();

-- +goose Down
DROP TRIGGER user_groups_auth_truncated ON user_groups;
DROP TRIGGER users_auth_truncated ON users;
DROP TRIGGER api_keys_auth_truncated ON api_keys;
DROP TRIGGER groups_auth_changed ON groups;
DROP TRIGGER groups_auth_renamed ON groups;
DROP TRIGGER user_groups_auth_changed ON user_groups;
DROP TRIGGER users_auth_changed ON users;
DROP TRIGGER api_keys_auth_changed ON api_keys;
DROP FUNCTION loupe_auth_all_changed();
DROP FUNCTION loupe_auth_user_changed();
