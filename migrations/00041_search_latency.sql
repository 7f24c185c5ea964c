-- +goose Up

-- A GIN index takes new entries into a pending list that every search of
-- it reads whole, until a vacuum or an insert past the list's limit
-- merges it into the index. At the default limit (4 MB) the 10M run's
-- search indexes had 150–660 pending pages after its writes, and a
-- selective search spent 4 of its 6 ms reading them. At 256 kB a search
-- reads at most 32 pages of each (docs/search.md, "Indexes"); a write
-- merges the list a little more often.
ALTER INDEX items_search_idx SET (gin_pending_list_limit = 256);
ALTER INDEX items_search_a_idx SET (gin_pending_list_limit = 256);
ALTER INDEX items_search_ab_idx SET (gin_pending_list_limit = 256);
ALTER INDEX items_search_abc_idx SET (gin_pending_list_limit = 256);

-- Parallel query: a statement whose estimate is large gets workers, whose
-- start costs milliseconds. The search's tier reads are estimated at a
-- fixed share of the table (a prefix tsquery on a ts_filter expression)
-- and read nothing: at 10M items 12 ms with two workers, 0.5 ms without.
-- Loupe's statements are short and its clients many, so workers only
-- take cores from other requests; like JIT (00038) it is off for its
-- database. A role that may not alter the database keeps what the server
-- is configured with.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'parallel query left as configured: %', SQLERRM;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I RESET max_parallel_workers_per_gather', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'parallel query left as configured: %', SQLERRM;
END $$;
-- +goose StatementEnd
ALTER INDEX items_search_abc_idx RESET (gin_pending_list_limit);
ALTER INDEX items_search_ab_idx RESET (gin_pending_list_limit);
ALTER INDEX items_search_a_idx RESET (gin_pending_list_limit);
ALTER INDEX items_search_idx RESET (gin_pending_list_limit);
