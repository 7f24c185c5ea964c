package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loupe-mam/loupe"
)

// Notification is one notice to one user (docs/events.md).
type Notification struct {
	TenantID  string     `db:"tenant_id"`
	ID        string     `db:"id"`
	UserID    string     `db:"user_id"`
	Type      string     `db:"type"`
	Title     string     `db:"title"`
	Message   string     `db:"message"`
	ItemID    *string    `db:"item_id"`
	SenderID  *string    `db:"sender_id"`
	CreatedOn time.Time  `db:"created_on"`
	Data      loupe.JSON `db:"data"`
	// Dismissed is the user's read state (dismissedNotifications), set by
	// the reader.
	Dismissed bool `db:"-"`
}

// NodeID implements Node.
func (n *Notification) NodeID() string { return n.ID }

// NewNotification is a notice to make for recipients.
type NewNotification struct {
	// Type is custom for one sent by a user, else the kind of news
	// (commentAssignment, commentMention, commentReply, processingCompletion,
	// processingFailure).
	Type, Title, Message string
	ItemID, SenderID     string
	Data                 map[string]any
	// Event is the id of the event it is made from ("" for a sent one):
	// made once per recipient and type.
	Event string
	// UserIDs are the recipients; inactive and unknown users are skipped.
	UserIDs []string
	// tenantID is the recipients' tenant (ForTenant).
	tenantID string
}

// ForTenant is n for recipients of a tenant (what NotifyFromEvents' decide
// answers).
func (n NewNotification) ForTenant(tenantID string) NewNotification {
	n.tenantID = tenantID
	return n
}

// Limits of a sent notification.
const (
	MaxNotificationTitle   = 200
	MaxNotificationMessage = 2000
	MaxNotificationTargets = 100
	MaxNotificationsPage   = 100
)

const (
	// insertNotificationsSQL makes the notice for each active recipient of
	// the tenant, once (an event's, again, changes nothing), and announces
	// each made (a notification event, in the same statement) to the
	// recipient's subscriptions.
	insertNotificationsSQL = `
WITH made AS (
    INSERT INTO notifications (tenant_id, id, user_id, type, title, message, item_id, sender_id, created_on, data, event)
    SELECT $1, gen_random_uuid(), u.id, $3, $4, $5, NULLIF($6, '')::uuid, NULLIF($7, '')::uuid, $8, $9, NULLIF($10, '')
    FROM users u WHERE u.tenant_id = $1 AND u.id = ANY($2::uuid[]) AND NOT u.deactivated
    ON CONFLICT DO NOTHING
    RETURNING id, user_id, item_id, sender_id
), announced AS (
    INSERT INTO events (tenant_id, type, item_id, actor_id, occurred_on, data)
    SELECT $1, 'notification', item_id, sender_id, $8, jsonb_build_object('notificationId', id, 'userId', user_id,
        'notificationType', $3::text)
    FROM made
)
SELECT count(*) FROM made`

	notificationColumns = `tenant_id, id, user_id, type, title, message, item_id, sender_id, created_on, data`

	userNotificationsSQL = `
SELECT ` + notificationColumns + ` FROM notifications
WHERE tenant_id = $1 AND user_id = $2 AND ($3::timestamptz IS NULL OR (created_on, id) < ($3, $4::uuid))
ORDER BY created_on DESC, id DESC LIMIT $5`

	notificationsByIDSQL = `
SELECT ` + notificationColumns + ` FROM notifications
WHERE tenant_id = $1 AND user_id = $2 AND id = ANY($3::uuid[]) ORDER BY created_on DESC, id DESC`

	noticeItemLiveSQL = `SELECT EXISTS (SELECT 1 FROM items WHERE tenant_id = $1 AND id = $2 AND deleted_on IS NULL)`

	notificationExistsSQL = `
SELECT id::text FROM notifications WHERE tenant_id = $1 AND user_id = $2 AND id = ANY($3::uuid[])`

	// groupMembersSQL: the active members of the named groups, and the
	// names that are no group of the tenant.
	groupMembersSQL = `
SELECT DISTINCT ug.user_id::text FROM groups g
JOIN user_groups ug ON ug.tenant_id = g.tenant_id AND ug.group_id = g.id
JOIN users u ON u.tenant_id = ug.tenant_id AND u.id = ug.user_id AND NOT u.deactivated
WHERE g.tenant_id = $1 AND g.name = ANY($2::text[])`

	knownGroupsSQL  = `SELECT name FROM groups WHERE tenant_id = $1 AND name = ANY($2::text[])`
	activeUsersSQL  = `SELECT id::text FROM users WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND NOT deactivated`
	pruneNoticesSQL = `DELETE FROM notifications WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM notifications WHERE created_on < $1 LIMIT $2))`
)

// notifyTx makes n for its recipients in tx. Returns how many were made.
func notifyTx(ctx context.Context, tx *sqlx.Tx, tenantID string, at time.Time, n NewNotification) (int, error) {
	if len(n.UserIDs) == 0 {
		return 0, nil
	}
	data := n.Data
	if data == nil {
		data = map[string]any{}
	}
	b, err := json.Marshal(data)
	if err != nil {
		return 0, err
	}
	var made int
	if err := tx.GetContext(ctx, &made, insertNotificationsSQL, tenantID, stringArray(validIDs(n.UserIDs)), n.Type,
		n.Title, n.Message, n.ItemID, n.SenderID, at, string(b), n.Event); err != nil {
		return 0, fmt.Errorf("store: unable to write notifications: %w", err)
	}
	return made, nil
}

// NotificationSend is a notification a user sends.
type NotificationSend struct {
	Title, Message string
	ItemID         string
	// UserIDs and Groups (names) are the recipients.
	UserIDs, Groups []string
}

// SendNotification sends a user's notification to users and the members
// of groups. A sender may address only groups they belong to, unless
// admin. EINVALID, nothing sent, for no recipients, too long a text, an
// unknown user or group; EFORBIDDEN for a group not the sender's. Returns
// how many users it reached.
func (s *Store) SendNotification(ctx context.Context, p *loupe.Principal, in NotificationSend) (int, error) {
	in.Title, in.Message = strings.TrimSpace(in.Title), strings.TrimSpace(in.Message)
	switch {
	case len(in.UserIDs)+len(in.Groups) == 0:
		return 0, loupe.Invalid("recipients is empty: name users (userIds) or groups")
	case len(in.UserIDs)+len(in.Groups) > MaxNotificationTargets:
		return 0, loupe.Invalid("at most %d recipients (users and groups)", MaxNotificationTargets)
	case in.Message == "":
		return 0, loupe.Invalid("message is required")
	case len(in.Message) > MaxNotificationMessage:
		return 0, loupe.Invalid("message is longer than %d bytes", MaxNotificationMessage)
	case len(in.Title) > MaxNotificationTitle:
		return 0, loupe.Invalid("title is longer than %d bytes", MaxNotificationTitle)
	case in.ItemID != "" && !loupe.ValidID(in.ItemID):
		return 0, loupe.Invalid("item %s does not exist", in.ItemID)
	}
	for _, id := range in.UserIDs {
		if !loupe.ValidID(id) {
			return 0, loupe.Invalid("user %s is not a user of the tenant", id)
		}
	}
	if !p.IsAdmin {
		for _, g := range in.Groups {
			if !slices.ContainsFunc(p.Groups, func(mine string) bool { return strings.EqualFold(mine, g) }) {
				return 0, loupe.Forbidden("you may send to your own groups only; you are not in %q", g)
			}
		}
	}
	if in.Title == "" {
		in.Title = "Message from " + p.Email
	}
	var made int
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var active []string
		if err := tx.SelectContext(ctx, &active, activeUsersSQL, p.TenantID, stringArray(in.UserIDs)); err != nil {
			return fmt.Errorf("store: unable to check recipients: %w", err)
		}
		if missing := firstMissing(lowerAll(in.UserIDs), active); missing != "" {
			return loupe.Invalid("user %s is not a user of the tenant", missing)
		}
		if len(in.Groups) > 0 {
			var known, members []string
			if err := tx.SelectContext(ctx, &known, knownGroupsSQL, p.TenantID, stringArray(in.Groups)); err != nil {
				return fmt.Errorf("store: unable to check groups: %w", err)
			}
			if missing := firstMissing(in.Groups, known); missing != "" {
				return loupe.Invalid("group %q is not a group of the tenant", missing)
			}
			if err := tx.SelectContext(ctx, &members, groupMembersSQL, p.TenantID, stringArray(in.Groups)); err != nil {
				return fmt.Errorf("store: unable to read group members: %w", err)
			}
			active = append(active, members...)
		}
		if in.ItemID != "" {
			var live bool
			if err := tx.GetContext(ctx, &live, noticeItemLiveSQL, p.TenantID, in.ItemID); err != nil {
				return fmt.Errorf("store: unable to check item: %w", err)
			}
			if !live {
				return loupe.Invalid("item %s does not exist", in.ItemID)
			}
		}
		var err error
		made, err = notifyTx(ctx, tx, p.TenantID, now(), NewNotification{Type: "custom", Title: in.Title,
			Message: in.Message, ItemID: in.ItemID, SenderID: p.UserID, UserIDs: dedupe(active),
			Data: map[string]any{"senderEmail": p.Email}})
		return err
	})
	return made, err
}

// TimeCursor is a place in a list newest first by a time, then id: a
// user's notifications, a webhook's deliveries.
type TimeCursor struct {
	CreatedOn time.Time
	ID        string
}

// String is the cursor as nextToken.
func (c TimeCursor) String() string {
	return strconv.FormatInt(c.CreatedOn.UnixMicro(), 10) + "." + c.ID
}

// ParseTimeCursor reads a nextToken ("" is the start).
func ParseTimeCursor(s string) (*TimeCursor, error) {
	if s == "" {
		return nil, nil
	}
	us, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || !loupe.ValidID(id) {
		return nil, loupe.Invalid("nextToken %q is not one this list gave", s)
	}
	return &TimeCursor{CreatedOn: time.UnixMicro(n).UTC(), ID: id}, nil
}

// Notifications reads a page of the principal's notifications, newest
// first, after a cursor. Returns whether more follow.
func (s *Store) Notifications(ctx context.Context, p *loupe.Principal, after *TimeCursor, first int) ([]*Notification, bool, error) {
	if first < 1 || first > MaxNotificationsPage {
		return nil, false, loupe.Invalid("size must be between 1 and %d", MaxNotificationsPage)
	}
	var at, id any
	if after != nil {
		at, id = after.CreatedOn, after.ID
	}
	var out []*Notification
	if err := s.selectPrepared(ctx, &out, userNotificationsSQL, p.TenantID, p.UserID, at, id, first+1); err != nil {
		return nil, false, fmt.Errorf("store: unable to read notifications: %w", err)
	}
	more := len(out) > first
	if more {
		out = out[:first]
	}
	return out, more, nil
}

// OwnNotifications answers which of ids are the principal's notifications.
func (s *Store) OwnNotifications(ctx context.Context, p *loupe.Principal, ids []string) ([]string, error) {
	var out []string
	if err := s.db.SelectContext(ctx, &out, notificationExistsSQL, p.TenantID, p.UserID, stringArray(validIDs(ids))); err != nil {
		return nil, fmt.Errorf("store: unable to read notifications: %w", err)
	}
	return out, nil
}

// PruneNotifications deletes the notifications made before a time.
func (s *Store) PruneNotifications(ctx context.Context, before time.Time) (int64, error) {
	return s.pruneBatches(ctx, pruneNoticesSQL, before)
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if id = strings.ToLower(id); !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// dismissNotificationsSQL sets the user's read state of notifications $3
// to $4 in dismissedNotifications and keeps the map bounded: keys that
// name notifications (uuids) stay only while the notification exists;
// other keys (a client's own) are left as they are.
const dismissNotificationsSQL = `
INSERT INTO user_settings AS s (tenant_id, user_id, settings, modified_on)
VALUES ($1, $2, jsonb_build_object('dismissedNotifications',
        (SELECT COALESCE(jsonb_object_agg(id, $4::boolean), '{}'::jsonb) FROM unnest($3::text[]) AS id)), $5)
ON CONFLICT (tenant_id, user_id) DO UPDATE
SET settings = s.settings || jsonb_build_object('dismissedNotifications', (
        SELECT COALESCE(jsonb_object_agg(e.key, e.value), '{}'::jsonb)
        FROM jsonb_each(COALESCE(s.settings->'dismissedNotifications', '{}'::jsonb)
                        || EXCLUDED.settings->'dismissedNotifications') AS e
        WHERE e.key !~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
           OR EXISTS (SELECT 1 FROM notifications n
                      WHERE n.tenant_id = $1 AND n.user_id = $2 AND n.id = e.key::uuid))),
    modified_on = EXCLUDED.modified_on`

// DismissNotifications sets the read state of the principal's
// notifications ids (others are ignored) and answers them.
func (s *Store) DismissNotifications(ctx context.Context, p *loupe.Principal, ids []string, dismissed bool) ([]*Notification, error) {
	if len(ids) > MaxNotificationsPage {
		return nil, loupe.Invalid("at most %d ids at once", MaxNotificationsPage)
	}
	own, err := s.OwnNotifications(ctx, p, ids)
	if err != nil {
		return nil, err
	}
	if len(own) == 0 {
		return []*Notification{}, nil
	}
	if _, err := s.db.ExecContext(ctx, dismissNotificationsSQL, p.TenantID, p.UserID, stringArray(own), dismissed, now()); err != nil {
		return nil, fmt.Errorf("store: unable to write dismissedNotifications: %w", err)
	}
	var out []*Notification
	if err := s.db.SelectContext(ctx, &out, notificationsByIDSQL, p.TenantID, p.UserID, stringArray(own)); err != nil {
		return nil, fmt.Errorf("store: unable to read notifications: %w", err)
	}
	for _, n := range out {
		n.Dismissed = dismissed
	}
	return out, nil
}

// NotificationOf reads one of the principal's notifications (ENOTFOUND
// when it is not theirs).
func (s *Store) NotificationOf(ctx context.Context, p *loupe.Principal, id string) (*Notification, error) {
	var out []*Notification
	if err := s.db.SelectContext(ctx, &out, notificationsByIDSQL, p.TenantID, p.UserID, stringArray(validIDs([]string{id}))); err != nil {
		return nil, fmt.Errorf("store: unable to read notification: %w", err)
	}
	if len(out) == 0 {
		return nil, loupe.NotFound()
	}
	return out[0], nil
}
