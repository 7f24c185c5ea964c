-- +goose Up

-- Search that stays fast at millions of items (docs/search.md, "Ranking"
-- and "Plans at scale"). Hits are ranked by tier, the best weight class
-- that holds every search term (A title, B file name, C metadata values,
-- D transcripts), then newest first. Each tier is read apart, newest
-- first, and stops at the page:
--
-- * items_search_recent_idx is the newest-first order itself: a query
--   whose tier holds many items walks it and filters by the match, and
--   stops after the page.
-- * The GIN index on items.search cannot tell weights apart (a weighted
--   tsquery, 'word':*A, is rechecked on the heap for every item holding
--   the word anywhere), and the planner's estimate of a weighted query is
--   the unweighted one. So each tier's words have their own vector, the
--   search vector cut to the tier's weights (ts_filter), indexed: a word
--   that is rare in titles but common in metadata is then found in the
--   title tier through a small index, and estimated from that vector's own
--   statistics (ANALYZE gathers them for an index expression).
CREATE INDEX IF NOT EXISTS items_search_recent_idx ON items (tenant_id, created_on DESC, id DESC) WHERE deleted_on IS NULL;
CREATE INDEX IF NOT EXISTS items_search_a_idx ON items USING gin (ts_filter(search, '{a}')) WHERE deleted_on IS NULL;
CREATE INDEX IF NOT EXISTS items_search_ab_idx ON items USING gin (ts_filter(search, '{a,b}')) WHERE deleted_on IS NULL;
CREATE INDEX IF NOT EXISTS items_search_abc_idx ON items USING gin (ts_filter(search, '{a,b,c}')) WHERE deleted_on IS NULL;

-- The search terms as a query: the loose words as loupe_search_query
-- makes them (each a prefix, all required), and each phrase (the words a
-- client put in double quotes) as phraseto_tsquery makes it (the words
-- adjacent, in order, whole words), all required. NULL when there is no
-- word at all. Every part is made by Postgres from plain text and joined
-- in its canonical text form, so nothing a client types is ever query
-- syntax. IMMUTABLE: folded to a constant when the statement is planned
-- with its parameters.
-- +goose StatementBegin
CREATE FUNCTION loupe_search_query_2(words text, phrases text[])
RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg('(' || part::text || ')', ' & ')::tsquery
  FROM (SELECT loupe_search_query(words) AS part
        UNION ALL
        SELECT phraseto_tsquery('simple', p) FROM unnest(phrases) AS p) parts
  WHERE part IS NOT NULL AND numnode(part) > 0
$$;
-- +goose StatementEnd

-- Any of the search terms: a prefix of any loose word or any phrase. A
-- transcript segment that holds one is where the item was found
-- (Item.transcriptMatches).
-- +goose StatementBegin
CREATE FUNCTION loupe_search_any_query(words text, phrases text[])
RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg('(' || part || ')', ' | ')::tsquery
  FROM (SELECT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || ''':*' AS part
        FROM unnest(to_tsvector('simple', coalesce(words, '')))
        UNION ALL
        SELECT q::text FROM unnest(phrases) AS p, phraseto_tsquery('simple', p) AS q
        WHERE numnode(q) > 0) parts
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION loupe_search_any_query(text, text[]);
DROP FUNCTION loupe_search_query_2(text, text[]);
DROP INDEX items_search_abc_idx;
DROP INDEX items_search_ab_idx;
DROP INDEX items_search_a_idx;
DROP INDEX items_search_recent_idx;
