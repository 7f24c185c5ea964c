-- +goose Up

-- A user's keys are listed by user (a tenant's by the primary key).
CREATE INDEX api_keys_user_idx ON api_keys (tenant_id, user_id, created_on);

-- Security settings of a tenant (spec 2.27): the key set that verifies its
-- identity provider's tokens, and whether users that appear through one
-- join the tenant's organisation group.
ALTER TABLE tenants
    ADD COLUMN jwks_url text,
    ADD COLUMN auto_add_users_to_org_group boolean NOT NULL DEFAULT false,
    ADD COLUMN security_modified_on timestamptz;

-- Users known by their identity provider's subject (sub claim).
ALTER TABLE users ADD COLUMN idp_subject text;
CREATE UNIQUE INDEX users_idp_subject_key ON users (tenant_id, idp_subject) WHERE idp_subject IS NOT NULL;

-- Keys of the system scope (`loupe system-key create`): they belong to no
-- tenant and open only the system endpoints (tenant ids, storage managers,
-- metering of several tenants). The id shares the api_keys namespace in
-- practice (both are 128-bit random), and a lookup tries both tables.
CREATE TABLE system_keys (
    id          text PRIMARY KEY,
    label       text NOT NULL DEFAULT '',
    secret_hash bytea NOT NULL,
    created_on  timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER system_keys_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON system_keys
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_auth_all_changed();

-- +goose Down
DROP TABLE system_keys;
DROP INDEX users_idp_subject_key;
ALTER TABLE users DROP COLUMN idp_subject;
ALTER TABLE tenants DROP COLUMN security_modified_on, DROP COLUMN auto_add_users_to_org_group, DROP COLUMN jwks_url;
DROP INDEX api_keys_user_idx;
