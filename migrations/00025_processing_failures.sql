-- +goose Up

-- A processing run that fails is metered too (docs/usage.md): a row with no
-- outputs and no media time, marked failed, so a tenant's usage shows the
-- runs that made nothing beside those that did.
ALTER TABLE media_operations ADD COLUMN failed boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE media_operations DROP COLUMN failed;
