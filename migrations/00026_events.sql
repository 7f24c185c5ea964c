-- +goose Up

-- The outbox (docs/events.md): every change that matters writes a row here
-- in the transaction of the change, so nothing is published that did not
-- commit and nothing that committed is lost. Webhooks, subscriptions,
-- notifications and the activity log all read from it.
--
-- Order and gaps: a row's place is (tx, seq), tx the id of the writing
-- transaction. Transaction ids are handed out in start order, not commit
-- order, so a reader takes only rows whose tx lies below the oldest
-- transaction still running (pg_snapshot_xmin of its snapshot): everything
-- before that position has ended, and a cursor never skips a row that
-- commits later.
CREATE TABLE events (
    tx          xid8 NOT NULL DEFAULT pg_current_xact_id(),
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id   uuid NOT NULL,
    type        text NOT NULL,
    item_id     uuid,
    actor_id    uuid,
    occurred_on timestamptz NOT NULL DEFAULT now(),
    data        jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (tx, seq)
);
-- A tenant's events in order (the API's reads, catch-up), an item's (its
-- subscriptions' catch-up, the progress throttle), and their age (pruning).
CREATE INDEX events_tenant ON events (tenant_id, tx, seq);
CREATE INDEX events_item ON events (tenant_id, item_id, tx, seq) WHERE item_id IS NOT NULL;
CREATE INDEX events_occurred_on ON events USING brin (occurred_on);

-- One wake-up per committing transaction, never one per row: Postgres
-- delivers identical notifications of one transaction once, so a
-- payload-less NOTIFY per statement is one per transaction. Every node's
-- feed reads the outbox by cursor on each wake-up and at least every
-- second besides: a missed notification costs latency, never an event.
-- +goose StatementBegin
CREATE FUNCTION loupe_events_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('loupe_events', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER events_written AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION loupe_events_written();

-- Durable readers of the outbox (notifications, webhook dispatch): the
-- position each has handled. A node works for a reader only while it holds
-- the reader's row (FOR UPDATE SKIP LOCKED) and moves it on in the
-- transaction of its work, so each event is handled once across nodes.
CREATE TABLE event_readers (
    name text PRIMARY KEY,
    tx   xid8 NOT NULL DEFAULT '0',
    seq  bigint NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE event_readers;
DROP TRIGGER events_written ON events;
DROP FUNCTION loupe_events_written();
DROP TABLE events;
