-- +goose Up

-- Presets (spec 2.20; docs/render.md): named output profiles that renders
-- use. type is 'unresolved' until a dry run through ffmpeg has passed,
-- then the profile it made.
CREATE TABLE presets (
    tenant_id   uuid NOT NULL,
    id          uuid NOT NULL,
    name        text NOT NULL,
    type        text NOT NULL,
    -- filters, capabilities, audioMapping and output (loupe.PresetSettings).
    settings    jsonb NOT NULL,
    check_error text NOT NULL DEFAULT '',
    checked_on  timestamptz,
    created_by  uuid NOT NULL,
    created_on  timestamptz NOT NULL,
    modified_on timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
-- The tenant's list, oldest first (index paging, like gateway configs).
CREATE INDEX presets_list ON presets (tenant_id, created_on, id);

-- Render-sequence requests (spec 4.5): clips of items rendered with a
-- preset into a new item or a placeholder, as a job. A request that has
-- not ended uses its preset (the preset's usage; deleting it is refused).
CREATE TABLE render_requests (
    tenant_id      uuid NOT NULL,
    id             uuid NOT NULL,
    preset_id      uuid NOT NULL,
    -- The item the render becomes the original of.
    target_item_id uuid NOT NULL,
    target_type    text NOT NULL CHECK (target_type IN ('newItem', 'placeholder')),
    -- [{itemId, in, out}] with in/out resolved to frames of the source.
    clips          jsonb NOT NULL,
    analytic_config jsonb NOT NULL,
    state          text NOT NULL CHECK (state IN ('queued', 'rendering', 'complete', 'failed')),
    percent        real NOT NULL DEFAULT 0,
    error          text NOT NULL DEFAULT '',
    -- What the render makes: exact frames and duration at the preset's rate.
    frames         bigint NOT NULL,
    duration       double precision NOT NULL,
    created_by     uuid NOT NULL,
    created_on     timestamptz NOT NULL,
    started_on     timestamptz,
    ended_on       timestamptz,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX render_requests_list ON render_requests (tenant_id, created_on DESC, id DESC);
-- A preset's usage, and a placeholder's pending render.
CREATE INDEX render_requests_preset ON render_requests (tenant_id, preset_id) WHERE state IN ('queued', 'rendering');
CREATE INDEX render_requests_target ON render_requests (tenant_id, target_item_id) WHERE state IN ('queued', 'rendering');

-- +goose Down
DROP TABLE render_requests;
DROP TABLE presets;
