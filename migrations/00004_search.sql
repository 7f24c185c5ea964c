-- +goose Up

-- Search words inside punctuated names. Postgres' parser keeps "clip.mov"
-- (a host name to it) as one word, so "mov" found nothing while "mp4" found
-- "Interview_2024.mp4" (split at "_"). The vector now also holds the title
-- and the file name with punctuation turned into spaces. A new function and
-- a new column, because a generated column must not change meaning under an
-- existing function; re-adding the column recomputes every row.
-- +goose StatementBegin
CREATE FUNCTION loupe_search_vector_2(title text, file_name text, form_data jsonb)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT loupe_search_vector(title, file_name, form_data) ||
         setweight(to_tsvector('simple', regexp_replace(coalesce(title, ''), '[[:punct:]]+', ' ', 'g')), 'A') ||
         setweight(to_tsvector('simple', regexp_replace(coalesce(file_name, ''), '[[:punct:]]+', ' ', 'g')), 'B')
$$;
-- +goose StatementEnd

ALTER TABLE items DROP COLUMN search;
ALTER TABLE items ADD COLUMN search tsvector
    GENERATED ALWAYS AS (loupe_search_vector_2(title, original_file_name, metadata_form_data)) STORED;
CREATE INDEX items_search_idx ON items USING gin (search) WHERE deleted_on IS NULL;

-- The search words as a query: the words of the input, split and lowered by
-- the same parser and dictionary as the documents, each a prefix (:*), all
-- required (&). Every lexeme is quoted for the tsquery syntax, so operators
-- and punctuation in user input are only ever text. NULL when the input has
-- no words. IMMUTABLE so that the planner folds it to a constant and sees the
-- query (index choice, selectivity) when the input is a bound parameter.
-- +goose StatementBegin
CREATE FUNCTION loupe_search_query(words text)
RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT string_agg('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || ''':*', ' & ')::tsquery
  FROM unnest(to_tsvector('simple', words))
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION loupe_search_query(text);
ALTER TABLE items DROP COLUMN search;
ALTER TABLE items ADD COLUMN search tsvector
    GENERATED ALWAYS AS (loupe_search_vector(title, original_file_name, metadata_form_data)) STORED;
CREATE INDEX items_search_idx ON items USING gin (search) WHERE deleted_on IS NULL;
DROP FUNCTION loupe_search_vector_2(text, text, jsonb);
