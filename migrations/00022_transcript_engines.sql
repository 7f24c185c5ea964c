-- +goose Up

-- A transcript is written by a person (updated_by) or by an analysis
-- engine (engine: its transcriptionService, updated_by NULL). A re-run of
-- an engine does not replace a person's edit unless forced
-- (docs/analysis.md).
ALTER TABLE transcripts ALTER COLUMN updated_by DROP NOT NULL;
ALTER TABLE transcripts ADD COLUMN engine text;
ALTER TABLE transcripts ADD CONSTRAINT transcripts_writer_check CHECK ((updated_by IS NULL) <> (engine IS NULL));

-- +goose Down
DELETE FROM transcripts WHERE updated_by IS NULL;
ALTER TABLE transcripts DROP CONSTRAINT transcripts_writer_check;
ALTER TABLE transcripts DROP COLUMN engine;
ALTER TABLE transcripts ALTER COLUMN updated_by SET NOT NULL;
