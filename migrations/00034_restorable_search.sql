-- +goose Up

-- A restore loads a dump's rows with an empty search_path (pg_restore
-- sets it so), and the items' search column is computed as they load:
-- the search functions that call one another by name then find nothing
-- and the restore fails (docs/operations.md "Backup and restore"; tested
-- in cmd/loupe/backup_test.go). They now name the schema they live in.
-- The same bodies otherwise: a generated column must not change meaning
-- under its function. Written with the schema's name rather than a
-- function-level search_path, which would stop Postgres inlining them
-- into the column's expression (a function call per row written).
-- +goose StatementBegin
DO $do$
BEGIN
  EXECUTE format($f$
CREATE OR REPLACE FUNCTION %1$I.loupe_search_vector_2(title text, file_name text, form_data jsonb)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$
  SELECT %1$I.loupe_search_vector(title, file_name, form_data) ||
         setweight(to_tsvector('simple', regexp_replace(coalesce(title, ''), '[[:punct:]]+', ' ', 'g')), 'A') ||
         setweight(to_tsvector('simple', regexp_replace(coalesce(file_name, ''), '[[:punct:]]+', ' ', 'g')), 'B')
$b$
$f$, current_schema());
  EXECUTE format($f$
CREATE OR REPLACE FUNCTION %1$I.loupe_search_vector_3(title text, file_name text, form_data jsonb, transcript text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$
  SELECT %1$I.loupe_search_vector_2(title, file_name, form_data) ||
         setweight(to_tsvector('simple', coalesce(transcript, '')), 'D')
$b$
$f$, current_schema());
END
$do$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION loupe_search_vector_2(title text, file_name text, form_data jsonb)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT loupe_search_vector(title, file_name, form_data) ||
         setweight(to_tsvector('simple', regexp_replace(coalesce(title, ''), '[[:punct:]]+', ' ', 'g')), 'A') ||
         setweight(to_tsvector('simple', regexp_replace(coalesce(file_name, ''), '[[:punct:]]+', ' ', 'g')), 'B')
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION loupe_search_vector_3(title text, file_name text, form_data jsonb, transcript text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT loupe_search_vector_2(title, file_name, form_data) ||
         setweight(to_tsvector('simple', coalesce(transcript, '')), 'D')
$$;
-- +goose StatementEnd
