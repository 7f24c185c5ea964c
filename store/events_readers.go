package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/jmoiron/sqlx"
)

// A durable reader of the outbox (event_readers) handles each event once
// across nodes: a node works for it only while holding its row, and moves
// it on in the transaction of its work.

const (
	lockReaderSQL = `SELECT tx::text AS tx, seq FROM event_readers WHERE name = $1 FOR UPDATE SKIP LOCKED`
	moveReaderSQL = `UPDATE event_readers SET tx = $2::text::xid8, seq = $3 WHERE name = $1`
)

// ReaderNotifications is the reader that makes notifications.
const ReaderNotifications = "notifications"

// ReaderWebhooks is the reader that hands events to webhooks.
const ReaderWebhooks = "webhooks"

// readEvents runs handle over the next events of the durable reader name,
// up to limit, and moves the reader past them, in one transaction, while
// holding the reader. Returns how many events it handled (0 when there
// are none, or when another node holds the reader).
func (s *Store) readEvents(ctx context.Context, name string, limit int, handle func(tx *sqlx.Tx, events []*Event) error) (int, error) {
	handled := 0
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var at struct {
			Tx  uint64 `db:"tx"`
			Seq int64  `db:"seq"`
		}
		if err := tx.GetContext(ctx, &at, lockReaderSQL, name); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil // another node is at it
			}
			return fmt.Errorf("store: unable to take the %s reader: %w", name, err)
		}
		var events []*Event
		if err := tx.SelectContext(ctx, &events, eventsAfterSQL, strconv.FormatUint(at.Tx, 10), at.Seq, limit); err != nil {
			return fmt.Errorf("store: unable to read events: %w", err)
		}
		if len(events) == 0 {
			return nil
		}
		if err := handle(tx, events); err != nil {
			return err
		}
		last := events[len(events)-1].Cursor()
		if _, err := tx.ExecContext(ctx, moveReaderSQL, name, strconv.FormatUint(last.Tx, 10), last.Seq); err != nil {
			return fmt.Errorf("store: unable to move the %s reader: %w", name, err)
		}
		handled = len(events)
		return nil
	})
	return handled, err
}

// NotifyFromEvents makes the notifications of the next events of the
// notifications reader, up to limit: decide says which (it may read the
// store; it runs while the reader is held), and they are written and the
// reader moved on in one transaction. Returns how many events it handled.
func (s *Store) NotifyFromEvents(ctx context.Context, limit int, decide func(context.Context, []*Event) ([]NewNotification, error)) (int, error) {
	return s.readEvents(ctx, ReaderNotifications, limit, func(tx *sqlx.Tx, events []*Event) error {
		notices, err := decide(ctx, events)
		if err != nil {
			return err
		}
		at := now()
		for _, n := range notices {
			if _, err := notifyTx(ctx, tx, n.tenantID, at, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// NoticeFacts are what notifications say about the items and comments of
// a batch of events: keyed by "<tenant>/<id>".
type NoticeFacts struct {
	Items    map[string]NoticeItem
	Comments map[string]NoticeComment
	// Users maps "<tenant>/<lower-case email>" to a user id.
	Users map[string]string
}

// NoticeItem is an item as a notification names it.
type NoticeItem struct {
	Title     string `db:"title"`
	CreatedBy string `db:"created_by"`
}

// NoticeComment is a comment as a notification quotes it.
type NoticeComment struct {
	Text         string  `db:"text"`
	AuthorID     string  `db:"author_id"`
	ParentAuthor *string `db:"parent_author"`
}

// FactKey is the key of NoticeFacts' maps.
func FactKey(tenantID, id string) string { return tenantID + "/" + id }

const (
	noticeItemsSQL = `
SELECT i.tenant_id::text || '/' || i.id::text AS key, i.title, i.created_by::text AS created_by
FROM unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, id)
JOIN items i ON i.tenant_id = k.tenant_id AND i.id = k.id`

	noticeCommentsSQL = `
SELECT c.tenant_id::text || '/' || c.id::text AS key, c.text, c.author_id::text AS author_id,
       p.author_id::text AS parent_author
FROM unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, id)
JOIN comments c ON c.tenant_id = k.tenant_id AND c.id = k.id
LEFT JOIN comments p ON p.tenant_id = c.tenant_id AND p.id = c.parent_id`

	noticeUsersSQL = `
SELECT u.tenant_id::text || '/' || lower(u.email) AS key, u.id::text AS id
FROM unnest($1::uuid[], $2::text[]) AS k(tenant_id, email)
JOIN users u ON u.tenant_id = k.tenant_id AND lower(u.email) = k.email AND NOT u.deactivated`
)

// NoticeFactsOf reads the facts of items, comments and users (emails),
// each given as tenant and id (email) pairs.
func (s *Store) NoticeFactsOf(ctx context.Context, items, comments, emails [][2]string) (*NoticeFacts, error) {
	f := &NoticeFacts{Items: map[string]NoticeItem{}, Comments: map[string]NoticeComment{}, Users: map[string]string{}}
	split := func(pairs [][2]string) (any, any) {
		a, b := make([]string, len(pairs)), make([]string, len(pairs))
		for i, p := range pairs {
			a[i], b[i] = p[0], p[1]
		}
		return stringArray(a), stringArray(b)
	}
	if len(items) > 0 {
		var rows []struct {
			Key string `db:"key"`
			NoticeItem
		}
		t, ids := split(items)
		if err := s.db.SelectContext(ctx, &rows, noticeItemsSQL, t, ids); err != nil {
			return nil, fmt.Errorf("store: unable to read items: %w", err)
		}
		for _, r := range rows {
			f.Items[r.Key] = r.NoticeItem
		}
	}
	if len(comments) > 0 {
		var rows []struct {
			Key string `db:"key"`
			NoticeComment
		}
		t, ids := split(comments)
		if err := s.db.SelectContext(ctx, &rows, noticeCommentsSQL, t, ids); err != nil {
			return nil, fmt.Errorf("store: unable to read comments: %w", err)
		}
		for _, r := range rows {
			f.Comments[r.Key] = r.NoticeComment
		}
	}
	if len(emails) > 0 {
		var rows []struct {
			Key string `db:"key"`
			ID  string `db:"id"`
		}
		t, e := split(emails)
		if err := s.db.SelectContext(ctx, &rows, noticeUsersSQL, t, e); err != nil {
			return nil, fmt.Errorf("store: unable to read users: %w", err)
		}
		for _, r := range rows {
			f.Users[r.Key] = r.ID
		}
	}
	return f, nil
}
