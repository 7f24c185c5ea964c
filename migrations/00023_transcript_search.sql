-- +goose Up

-- Transcripts are searchable (docs/search.md), weighted below everything
-- else (D): the words of every transcript of the item, in any language
-- (its translations too), kept on the item by each transcript write
-- (store/transcripts.go) and capped so that the vector stays within
-- Postgres' 1 MB. A new function and column, as in 00004.
ALTER TABLE items ADD COLUMN transcript_text text;

-- +goose StatementBegin
CREATE FUNCTION loupe_search_vector_3(title text, file_name text, form_data jsonb, transcript text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT loupe_search_vector_2(title, file_name, form_data) ||
         setweight(to_tsvector('simple', coalesce(transcript, '')), 'D')
$$;
-- +goose StatementEnd

ALTER TABLE items DROP COLUMN search;
ALTER TABLE items ADD COLUMN search tsvector
    GENERATED ALWAYS AS (loupe_search_vector_3(title, original_file_name, metadata_form_data, transcript_text)) STORED;
CREATE INDEX items_search_idx ON items USING gin (search) WHERE deleted_on IS NULL;

-- +goose Down
ALTER TABLE items DROP COLUMN search;
ALTER TABLE items ADD COLUMN search tsvector
    GENERATED ALWAYS AS (loupe_search_vector_2(title, original_file_name, metadata_form_data)) STORED;
CREATE INDEX items_search_idx ON items USING gin (search) WHERE deleted_on IS NULL;
DROP FUNCTION loupe_search_vector_3(text, text, jsonb, text);
ALTER TABLE items DROP COLUMN transcript_text;
