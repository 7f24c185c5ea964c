-- +goose Up

-- Postgres' JIT compiles a statement whose estimated cost is high, and
-- the search's tier reads have high estimates (a prefix tsquery on a
-- ts_filter expression is estimated at a fixed share of the table) for
-- little work: at 10M items a tier read took 142 ms with JIT, of which
-- 131 ms compiling, and 11 ms without (docs/search.md). Loupe's
-- statements are short; JIT is off for its database. A role that may not
-- alter the database keeps what the server is configured with.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'jit left as configured: %', SQLERRM;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I RESET jit', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'jit left as configured: %', SQLERRM;
END $$;
-- +goose StatementEnd
