-- +goose Up

-- Metadata definition forms (spec 2.22) and option lists (2.23), see
-- docs/metadata-forms.md. A form is read and written whole, so its fields
-- are one jsonb array; columns hold what is listed or checked on its own.
CREATE TABLE mdfs (
    tenant_id      uuid NOT NULL REFERENCES tenants (id),
    id             text NOT NULL,
    label          text NOT NULL,
    display_name   text NOT NULL,
    active         boolean NOT NULL DEFAULT true,
    flavor         text,
    color          text,
    icon           text,
    rule           text,
    fields         jsonb NOT NULL DEFAULT '[]',
    -- Fields an update removed, as they were last defined: item values of
    -- them stay readable under their labels.
    retired_fields jsonb NOT NULL DEFAULT '[]',
    views          jsonb NOT NULL DEFAULT '{}',
    view_sections  jsonb NOT NULL DEFAULT '{}',
    permissions    jsonb NOT NULL DEFAULT '{"read": {}, "write": {}}',
    usage_rules    jsonb,
    -- The forms every tenant starts with; they cannot be deleted.
    is_default     boolean NOT NULL DEFAULT false,
    created_on     timestamptz NOT NULL,
    modified_on    timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE option_lists (
    tenant_id        uuid NOT NULL REFERENCES tenants (id),
    id               uuid NOT NULL,
    name             text NOT NULL,
    option_list_type text NOT NULL DEFAULT 'choice',
    alternatives     jsonb NOT NULL DEFAULT '[]',
    created_on       timestamptz NOT NULL,
    modified_on      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
-- Names are unique regardless of case: "Genres" and "genres" would be one
-- list to a person picking it.
CREATE UNIQUE INDEX option_lists_name_key ON option_lists (tenant_id, lower(name));

-- Changes to forms and option lists, written in the transaction of the
-- change, with the definition before and after.
CREATE TABLE definition_changes (
    tenant_id    uuid NOT NULL REFERENCES tenants (id),
    id           uuid NOT NULL,
    subject_type text NOT NULL,
    subject_id   text NOT NULL,
    action       text NOT NULL,
    executed_by  uuid NOT NULL,
    email        text NOT NULL,
    executed_on  timestamptz NOT NULL,
    before       jsonb,
    after        jsonb,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX definition_changes_time_idx ON definition_changes (tenant_id, executed_on DESC, id DESC);
CREATE INDEX definition_changes_subject_idx ON definition_changes (tenant_id, subject_id, executed_on DESC, id DESC);

-- Deleting a form is refused while anything uses it; these answer that
-- without reading the tenant's items.
CREATE INDEX items_form_idx ON items (tenant_id, metadata_form_id);
CREATE INDEX timed_metadata_form_idx ON timed_metadata (tenant_id, form_id);

-- loupe_mdf_field is one field of a default form as the store writes fields.
-- +goose StatementBegin
CREATE FUNCTION loupe_mdf_field(f_id text, f_field_id text, f_label text, f_type text, f_sortable boolean)
RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('id', f_id, 'fieldId', f_field_id, 'label', f_label, 'type', f_type,
        'required', false, 'readOnly', false, 'sortable', f_sortable,
        'systemDefaultField', f_id IN ('default_title', 'default_description'))
$$;
-- +goose StatementEnd

-- loupe_default_mdfs gives a tenant the default forms (store.CreateTenant
-- calls it for new tenants); forms it has already are left alone. A
-- procedure, not a function: it writes, and is no part of any read API.
-- +goose StatementBegin
CREATE PROCEDURE loupe_default_mdfs(tenant uuid, made_on timestamptz) LANGUAGE sql AS $$
    WITH f(title, description, keywords, location, rating, producer) AS (
        SELECT loupe_mdf_field('default_title', 'title', 'Title', 'text', true),
               loupe_mdf_field('default_description', 'description', 'Description', 'text', false),
               loupe_mdf_field('default_keywords', 'keywords', 'Keywords', 'text', false),
               loupe_mdf_field('default_location', 'location', 'Location', 'text', true),
               loupe_mdf_field('default_rating', 'rating', 'Rating', 'number', true),
               loupe_mdf_field('default_producer', 'producer', 'Producer', 'text', true)
    )
    INSERT INTO mdfs (tenant_id, id, label, display_name, flavor, fields, is_default, created_on, modified_on)
    SELECT tenant, d.id, d.label, d.label, d.flavor, d.fields, true, made_on, made_on
    FROM f, LATERAL (VALUES
        ('default', 'Default', NULL::text,
         jsonb_build_array(f.title, f.description, f.keywords, f.location, f.rating, f.producer)),
        ('default_video', 'Video', NULL,
         jsonb_build_array(f.title, f.description, f.keywords, f.location, f.rating, f.producer)),
        ('default_audio', 'Audio', NULL,
         jsonb_build_array(f.title, f.description, f.keywords, f.rating,
                           loupe_mdf_field('default_artist', 'artist', 'Artist', 'text', true))),
        ('default_image', 'Image', NULL,
         jsonb_build_array(f.title, f.description, f.keywords, f.location, f.rating,
                           loupe_mdf_field('default_photographer', 'photographer', 'Photographer', 'text', true))),
        ('default_folder', 'Folder', NULL, jsonb_build_array(f.title, f.description)),
        ('default_detected_text', 'Detected text', 'timed-metadata',
         jsonb_build_array(f.title, f.description,
                           loupe_mdf_field('default_text', 'text', 'Text', 'text', false),
                           loupe_mdf_field('default_confidence', 'confidence', 'Confidence', 'number', true))),
        ('default_restricted', 'Restricted', NULL,
         jsonb_build_array(f.title, f.description,
                           loupe_mdf_field('default_restriction', 'restriction', 'Restriction', 'text', false)))
    ) AS d(id, label, flavor, fields)
    ON CONFLICT (tenant_id, id) DO NOTHING
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE t uuid;
BEGIN
    FOR t IN SELECT id FROM tenants LOOP
        CALL loupe_default_mdfs(t, now());
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP PROCEDURE loupe_default_mdfs(uuid, timestamptz);
DROP FUNCTION loupe_mdf_field(text, text, text, text, boolean);
DROP INDEX timed_metadata_form_idx;
DROP INDEX items_form_idx;
DROP TABLE definition_changes, option_lists, mdfs;
