package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/loupe-mam/loupe"
)

// Event is one row of the outbox (migrations/00026_events.sql,
// docs/events.md).
type Event struct {
	Tx         uint64          `db:"tx"`
	Seq        int64           `db:"seq"`
	TenantID   string          `db:"tenant_id"`
	Type       loupe.EventType `db:"type"`
	ItemID     *string         `db:"item_id"`
	ActorID    *string         `db:"actor_id"`
	OccurredOn time.Time       `db:"occurred_on"`
	Data       loupe.JSON      `db:"data"`
}

// Cursor is the event's place in the outbox.
func (e *Event) Cursor() loupe.EventCursor { return loupe.EventCursor{Tx: e.Tx, Seq: e.Seq} }

// ID is the event's id as clients see it (the cursor that resumes after it).
func (e *Event) ID() string { return e.Cursor().String() }

// NewEvent is an event a change writes.
type NewEvent struct {
	Type loupe.EventType
	// ItemID is the item the event is about ("" for none).
	ItemID string
	// ActorID is the user who made the change ("" for the system: a
	// processing run, a scan).
	ActorID string
	// Data is the event's thin payload: ids, types, changed parts — never a
	// record (a reader fetches what it needs, with its own access).
	Data map[string]any
}

// itemChange is the itemChange event of an item's parts, with further
// payload keys and values in pairs.
func itemChange(itemID, actorID string, parts []loupe.ItemPart, kv ...any) NewEvent {
	data := map[string]any{"parts": parts}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i].(string)] = kv[i+1]
	}
	return NewEvent{Type: loupe.EventItemChange, ItemID: itemID, ActorID: actorID, Data: data}
}

// The outbox's statements. xid8 travels as text (database/sql has no
// unsigned parameter).
const (
	insertEventSQL = `
INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
VALUES ($1, $2, NULLIF($3, '')::uuid, NULLIF($4, '')::uuid, $5, $6)`

	insertEventsSQL = `
INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
SELECT $1, e.type, NULLIF(e.item_id, '')::uuid, NULLIF(e.actor_id, '')::uuid, $2, e.data
FROM unnest($3::text[], $4::text[], $5::text[], $6::jsonb[]) AS e(type, item_id, actor_id, data)`

	// eventColumns are an Event's; visibleEvents is the rule that makes a
	// cursor safe: only rows below the oldest transaction still running,
	// all of whose predecessors have ended. (ORDER BY names events.tx: the
	// bare name would be the text column answered, in text order, where
	// 999 comes after 1000.)
	eventColumns  = `tx::text AS tx, seq, tenant_id, type, item_id, actor_id, occurred_on, data`
	visibleEvents = `tx < pg_snapshot_xmin(pg_current_snapshot())`

	eventsAfterSQL = `
SELECT ` + eventColumns + ` FROM events
WHERE (tx, seq) > ($1::text::xid8, $2) AND ` + visibleEvents + `
ORDER BY events.tx, events.seq LIMIT $3`

	// feedSQL is eventsAfterSQL with, on each row, whether committed events
	// after the cursor wait behind the horizon (heldBackSQL, computed once):
	// a node's feed learns both in one round trip.
	feedSQL = `
SELECT ` + eventColumns + `, (SELECT EXISTS (SELECT 1 FROM events h WHERE (h.tx, h.seq) > ($1::text::xid8, $2)
                                           AND h.tx >= pg_snapshot_xmin(pg_current_snapshot()))) AS held
FROM events
WHERE (tx, seq) > ($1::text::xid8, $2) AND ` + visibleEvents + `
ORDER BY events.tx, events.seq LIMIT $3`

	// eventFilters: types $4, occurred in [$6, $7) (NULL: open).
	eventFilters = `($4::text[] IS NULL OR type = ANY($4))
  AND ($6::timestamptz IS NULL OR occurred_on >= $6) AND ($7::timestamptz IS NULL OR occurred_on < $7)`

	tenantEventsSQL = `
SELECT ` + eventColumns + ` FROM events
WHERE tenant_id = $1 AND (tx, seq) > ($2::text::xid8, $3) AND ` + eventFilters + ` AND ` + visibleEvents + `
ORDER BY events.tx, events.seq LIMIT $5`

	itemEventsSQL = `
SELECT ` + eventColumns + ` FROM events
WHERE tenant_id = $1 AND item_id = $8 AND (tx, seq) > ($2::text::xid8, $3) AND ` + eventFilters + `
  AND ` + visibleEvents + `
ORDER BY events.tx, events.seq LIMIT $5`

	// heldBackSQL: whether committed events after the cursor wait behind
	// the horizon (an older transaction still running): a reader that
	// found nothing new reads again shortly instead of waiting for the
	// next wake-up.
	heldBackSQL = `
SELECT EXISTS (SELECT 1 FROM events WHERE (tx, seq) > ($1::text::xid8, $2)
                                     AND tx >= pg_snapshot_xmin(pg_current_snapshot()))`

	eventsHeadSQL = `
SELECT tx::text AS tx, seq FROM events WHERE ` + visibleEvents + `
ORDER BY events.tx DESC, events.seq DESC LIMIT 1`

	// pruneEventsSQL deletes a batch: a short transaction each, since a
	// long one would hold every reader back (visibleEvents).
	pruneEventsSQL = `
DELETE FROM events WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM events WHERE occurred_on < $1 LIMIT $2))`
)

// emitTx writes events in the transaction of the change they announce.
func emitTx(ctx context.Context, tx execer, tenantID string, at time.Time, events ...NewEvent) error {
	if len(events) == 0 {
		return nil
	}
	datas := make([]string, len(events))
	for i, e := range events {
		b, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("store: unable to encode event: %w", err)
		}
		if e.Data == nil {
			b = []byte("{}")
		}
		datas[i] = string(b)
	}
	var err error
	if len(events) == 1 {
		e := events[0]
		_, err = tx.ExecContext(ctx, insertEventSQL, tenantID, string(e.Type), e.ItemID, e.ActorID, at, datas[0])
	} else {
		types, items, actors := make([]string, len(events)), make([]string, len(events)), make([]string, len(events))
		for i, e := range events {
			types[i], items[i], actors[i] = string(e.Type), e.ItemID, e.ActorID
		}
		_, err = tx.ExecContext(ctx, insertEventsSQL, tenantID, at, stringArray(types), stringArray(items),
			stringArray(actors), stringArray(datas))
	}
	if err != nil {
		return fmt.Errorf("store: unable to write events: %w", err)
	}
	return nil
}

// MaxEventsPage bounds one read of the outbox.
const MaxEventsPage = 1000

// EventsAfter reads the outbox of every tenant after a cursor, in order,
// up to limit events: a node's feed (internal/events/feed). held says
// whether committed events wait behind an older transaction (read again
// soon); with no event read, EventsHeldBack says it.
func (s *Store) EventsAfter(ctx context.Context, after loupe.EventCursor, limit int) (events []*Event, held bool, err error) {
	var rows []struct {
		Event
		Held bool `db:"held"`
	}
	if err := s.selectPrepared(ctx, &rows, feedSQL, strconv.FormatUint(after.Tx, 10), after.Seq, limit); err != nil {
		return nil, false, fmt.Errorf("store: unable to read events: %w", err)
	}
	events = make([]*Event, len(rows))
	for i := range rows {
		events[i] = &rows[i].Event
		held = held || rows[i].Held
	}
	return events, held, nil
}

// EventsHeldBack reports whether committed events after a cursor are not
// readable yet because an older transaction is still running.
func (s *Store) EventsHeldBack(ctx context.Context, after loupe.EventCursor) (bool, error) {
	var held bool
	if err := s.getPrepared(ctx, &held, heldBackSQL, strconv.FormatUint(after.Tx, 10), after.Seq); err != nil {
		return false, fmt.Errorf("store: unable to read events: %w", err)
	}
	return held, nil
}

// EventQuery selects a tenant's events.
type EventQuery struct {
	After loupe.EventCursor
	// Types keeps only these types (all when empty).
	Types []loupe.EventType
	// ItemID keeps only the item's events ("" for all).
	ItemID string
	// Since (inclusive) and Until (exclusive) bound when they occurred
	// (nil: open).
	Since, Until *time.Time
	// First bounds the page (1..MaxEventsPage).
	First int
}

// TenantEvents reads a tenant's events after a cursor, in order. Returns
// whether more follow.
func (s *Store) TenantEvents(ctx context.Context, tenantID string, q EventQuery) ([]*Event, bool, error) {
	if q.First < 1 || q.First > MaxEventsPage {
		return nil, false, loupe.Invalid("first must be between 1 and %d", MaxEventsPage)
	}
	var types any
	if len(q.Types) > 0 {
		names := make([]string, len(q.Types))
		for i, t := range q.Types {
			names[i] = string(t)
		}
		types = stringArray(names)
	}
	if q.Since != nil && q.Until != nil && !q.Since.Before(*q.Until) {
		return nil, false, loupe.Invalid("since must be before until")
	}
	args := []any{tenantID, strconv.FormatUint(q.After.Tx, 10), q.After.Seq, types, q.First + 1, q.Since, q.Until}
	query := tenantEventsSQL
	if q.ItemID != "" {
		if !loupe.ValidID(q.ItemID) {
			return nil, false, nil
		}
		query, args = itemEventsSQL, append(args, q.ItemID)
	}
	var out []*Event
	if err := s.selectPrepared(ctx, &out, query, args...); err != nil {
		return nil, false, fmt.Errorf("store: unable to read events: %w", err)
	}
	more := len(out) > q.First
	if more {
		out = out[:q.First]
	}
	return out, more, nil
}

// EventsHead is the cursor of the newest readable event (the zero cursor
// when there is none): where a reader that wants only what comes next
// starts.
func (s *Store) EventsHead(ctx context.Context) (loupe.EventCursor, error) {
	var row struct {
		Tx  uint64 `db:"tx"`
		Seq int64  `db:"seq"`
	}
	err := s.getPrepared(ctx, &row, eventsHeadSQL)
	if errors.Is(err, sql.ErrNoRows) {
		return loupe.EventCursor{}, nil
	}
	if err != nil {
		return loupe.EventCursor{}, fmt.Errorf("store: unable to read the events' head: %w", err)
	}
	return loupe.EventCursor{Tx: row.Tx, Seq: row.Seq}, nil
}

// pruneBatch is how many events one pruning statement deletes.
const pruneBatch = 10000

// PruneEvents deletes the events that occurred before a time, batch by
// batch. Returns how many it deleted.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	return s.pruneBatches(ctx, pruneEventsSQL, before)
}

// pruneBatches runs a batch delete ($1 the time, $2 the batch) until a
// batch deletes less than a whole one: short transactions, none of which
// holds the outbox's readers back for long.
func (s *Store) pruneBatches(ctx context.Context, query string, before time.Time) (int64, error) {
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, query, before, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("store: unable to prune: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// eventAccessSQL: whether the principal may see the item now, and whether
// it sits in folder $5 (NULL: no folder asked).
var eventAccessSQL = `
SELECT ` + visibleSQL("i", 3, 4) + ` AS visible,
       $5::uuid IS NULL OR $5::uuid = ANY (i.folder_ids) AS in_folder
FROM items i WHERE i.tenant_id = $1 AND i.id = $2`

// EventAccess answers whether p may see an event's item now and, when
// folderID is given, whether the item sits in that folder: what a live
// subscription checks before delivering each event.
func (s *Store) EventAccess(ctx context.Context, p *loupe.Principal, itemID, folderID string) (visible, inFolder bool, err error) {
	if !loupe.ValidID(itemID) {
		return false, false, nil
	}
	var folder any
	if folderID != "" {
		folder = folderID
	}
	var row struct {
		Visible  bool `db:"visible"`
		InFolder bool `db:"in_folder"`
	}
	err = s.getPrepared(ctx, &row, eventAccessSQL, p.TenantID, itemID, p.UserID, aclTokens(p), folder)
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("store: unable to check an event's access: %w", err)
	}
	return row.Visible, row.InFolder, nil
}
