-- +goose Up

-- Webhooks (docs/events.md): the original service's hook shape, plus
-- enabled state, a signing secret (sealed like storage credentials) and,
-- for a day after a rotation, the previous one. A hook is its tenant's
-- admins' to manage.
CREATE TABLE webhooks (
    tenant_id        uuid NOT NULL REFERENCES tenants (id),
    id               uuid NOT NULL,
    created_by       uuid NOT NULL,
    created_on       timestamptz NOT NULL,
    modified_on      timestamptz NOT NULL,
    type             text NOT NULL,
    url              text NOT NULL,
    label            text NOT NULL DEFAULT '',
    protected        boolean NOT NULL DEFAULT false,
    condition        jsonb NOT NULL DEFAULT '{"criteria": "always"}',
    headers          jsonb NOT NULL DEFAULT '[]',
    secret           text NOT NULL,
    previous_secret  text,
    previous_until   timestamptz,
    enabled          boolean NOT NULL DEFAULT true,
    disabled_reason  text,
    PRIMARY KEY (tenant_id, id)
);
-- The hooks an event goes to.
CREATE INDEX webhooks_type ON webhooks (tenant_id, type) WHERE enabled;

-- Every attempt to deliver a message to a hook: what was sent (so a
-- delivery can be replayed with its webhook-id) and what came back.
CREATE TABLE webhook_deliveries (
    tenant_id    uuid NOT NULL,
    webhook_id   uuid NOT NULL,
    id           uuid NOT NULL,
    message_id   text NOT NULL,
    event_type   text NOT NULL,
    payload      jsonb NOT NULL,
    attempt      integer NOT NULL,
    attempted_on timestamptz NOT NULL,
    status       integer,
    duration_ms  integer NOT NULL DEFAULT 0,
    answer       text NOT NULL DEFAULT '',
    error        text NOT NULL DEFAULT '',
    succeeded    boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, webhook_id) REFERENCES webhooks ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (tenant_id, webhook_id, attempted_on DESC, id DESC);
CREATE INDEX webhook_deliveries_message ON webhook_deliveries (tenant_id, webhook_id, message_id);

-- The reader that hands events to hooks starts at the outbox's head.
INSERT INTO event_readers (name, tx, seq)
SELECT 'webhooks', COALESCE(max(tx), '0'), 0 FROM events;
UPDATE event_readers r SET seq = COALESCE((SELECT max(seq) FROM events e WHERE e.tx = r.tx), 0)
WHERE name = 'webhooks';

-- +goose Down
DELETE FROM event_readers WHERE name = 'webhooks';
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
