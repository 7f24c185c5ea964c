-- +goose Up

-- Per-user notifications (spec 2.28, 4.6; docs/events.md): made from the
-- outbox's events by the notifications reader (a comment assigned to me
-- or mentioning me, my upload processed or failed) and sent by users
-- (POST /prime/api/v1/notifications). Read state is the user setting
-- dismissedNotifications (2.18), not a column.
CREATE TABLE notifications (
    tenant_id  uuid NOT NULL,
    id         uuid NOT NULL,
    user_id    uuid NOT NULL,
    type       text NOT NULL,
    title      text NOT NULL,
    message    text NOT NULL,
    item_id    uuid,
    sender_id  uuid,
    created_on timestamptz NOT NULL,
    data       jsonb NOT NULL DEFAULT '{}',
    -- The event it was made from (none for a sent one): made once per
    -- recipient, however often the reader runs over the event.
    event      text,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES users ON DELETE CASCADE
);
-- A user's list, newest first (keyset on created_on, id).
CREATE INDEX notifications_user ON notifications (tenant_id, user_id, created_on DESC, id DESC);
CREATE UNIQUE INDEX notifications_event ON notifications (tenant_id, user_id, event, type) WHERE event IS NOT NULL;
CREATE INDEX notifications_created_on ON notifications USING brin (created_on);

-- A group's members (a notification sent to a group).
CREATE INDEX user_groups_group ON user_groups (tenant_id, group_id);

-- The reader starts at the outbox's head: events from before it existed
-- make no notifications.
INSERT INTO event_readers (name, tx, seq)
SELECT 'notifications', COALESCE(max(tx), '0'), 0 FROM events;
UPDATE event_readers r SET seq = COALESCE((SELECT max(seq) FROM events e WHERE e.tx = r.tx), 0)
WHERE name = 'notifications';

-- +goose Down
DELETE FROM event_readers WHERE name = 'notifications';
DROP INDEX user_groups_group;
DROP TABLE notifications;
